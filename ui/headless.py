"""`-p PROMPT`: one turn without a person, for scripts and CI.

The final answer goes to stdout, everything else to stderr. On a terminal the
answer is drawn through `safe` like everything else; piped or redirected it is
written byte for byte, since a script reading it wants the model's exact text.
Exit codes:
0 answered (or, in plan mode, a plan produced: it is printed, but not approved
and not saved, since nobody can approve it); 1 the model or a limit failed,
or the turn stopped on an internal error; 130 interrupted. Before the turn,
ui/startup.py answers 2 for a session that cannot be found and 3 for one open in
another process (-p refuses rather than fork it behind the user's back).
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from agent.loop import Agent
from ui.console import ConsoleView
from ui.safe_text import safe


def run_headless(agent: Agent, prompt: str, view: ConsoleView) -> int:
    """Run one turn and print its answer (or the plan that could not be approved)."""
    outcome = agent.run_turn(prompt)
    if outcome.ending == "answered":
        write_answer(outcome.text, sys.stdout)
        return 0
    plan = last_plan(agent.messages)
    if outcome.ending == "ended_by_tool" and outcome.tool == "ExitPlanMode" and plan:
        write_answer(plan, sys.stdout)
        return 0
    if outcome.ending == "interrupted":
        view.error("interrupted")
        return 130
    view.error(outcome.error or f"the turn ended without an answer ({outcome.ending})")
    return 1


def write_answer(text: str, out: TextIO) -> None:
    """The answer as the model wrote it for a pipe or a file; made safe for a terminal.

    A character the output cannot encode (a lone surrogate a model sent as JSON)
    is written as a backslash escape, so the answer is never lost to a crash.
    """
    encoding = out.encoding or "utf-8"
    shown = (safe(text) if out.isatty() else text) + "\n"
    out.write(shown.encode(encoding, "backslashreplace").decode(encoding))
    out.flush()


def last_plan(messages: list[dict[str, Any]]) -> str:
    """The plan of the latest ExitPlanMode call in the history, '' if none."""
    for message in reversed(messages):
        for call in reversed(message.get("tool_calls") or []):
            if call["function"]["name"] == "ExitPlanMode":
                try:
                    return str(json.loads(call["function"]["arguments"]).get("plan", ""))
                except (ValueError, AttributeError):
                    return ""
    return ""
