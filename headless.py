"""`-p PROMPT`: one turn without a person, for scripts and CI.

The final answer goes to stdout, everything else to stderr. Exit codes:
0 answered (or, in plan mode, a plan produced: it is printed, but not approved
and not saved, since nobody can approve it); 1 the model or a limit failed;
130 interrupted.
"""

from __future__ import annotations


from agent import Agent
from ui.console import ConsoleView


def run_headless(agent: Agent, prompt: str, view: ConsoleView, shown_plans: list[str]) -> int:
    outcome = agent.run_turn(prompt)
    if outcome.ending == "answered":
        print(outcome.text)
        return 0
    if outcome.ending == "plan_rejected" and shown_plans:
        print(shown_plans[-1])
        return 0
    if outcome.ending == "interrupted":
        view.error("interrupted")
        return 130
    view.error(outcome.error or f"the turn ended without an answer ({outcome.ending})")
    return 1
