"""How one tool call is drawn: `● Tool(args)`, who allowed or denied it, what it did.

Part of the console (ui/console.py), which draws these lines as the executor's
events arrive and keeps the spinner around them. A call's line shows its main
argument (a Bash command in full); the decision line says who decided, or that
the user left the question unanswered; the result line says what the call did,
with a command's last output lines, an error's first lines, or the diff a Write
or Edit made without a question. Everything from the model, a file or a command
goes through ui/safe_text.py.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from agent.events import ToolDecision, ToolFinished
from agent.executor import LEFT_QUESTION, NOBODY_TO_ASK, UNANSWERED
from agent.subagents import SubAgentDecision, SubAgentFinished, SubAgentStarted
from hooks.session_rules import SESSION_RULE
from tools.base import counted
from tools.plan_mode import EXIT_PLAN_MODE
from ui.preview import change_lines
from ui.safe_text import reveal, safe

ARGUMENT_WIDTH = 60
TAIL_LINES = 5
ERROR_LINES = 3
MAIN_ARGUMENT = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "Bash": "command",
                 "Glob": "pattern", "Grep": "pattern"}
RESULT = "  ⎿ "
MORE = "    "


def call_line(tool: str, args: dict[str, Any], reviewed_here: bool = True) -> Text:
    """`● Tool(args)`: the call as it arrived, its main argument in full for Bash.

    A plan waits for the user's review only where someone can review it (not in -p).
    """
    line = Text("● ", style="bold cyan")
    line.append(safe(tool), style="bold")
    key = MAIN_ARGUMENT.get(tool)
    if key and isinstance(args.get(key), str):
        shown = reveal(args[key])
    else:
        shown = _summarise(args)
    line.append(f"({shown})", style="dim" if tool != "Bash" else "")
    if tool == EXIT_PLAN_MODE and reviewed_here:
        line.append("  waiting for your review", style="magenta")
    return line


def output_tail(content: str, lines: int = TAIL_LINES) -> tuple[list[str], int]:
    """A command's last output lines (without the exit-code line), and how many came before."""
    body = content.splitlines()
    if body and body[-1].startswith("[") and body[-1].endswith("]"):
        body = body[:-1]
    if body == ["(no output)"]:
        body = []
    return body[-lines:], max(len(body) - lines, 0)


def draw_decision(console: Console, decision: ToolDecision) -> None:
    """Who allowed or denied the call, and for a denial the reason the model is told."""
    if decision.decision == "deny":
        who = "you" if decision.asked else decision.hook
        said = NOBODY_TO_ASK if decision.hook == UNANSWERED else f"denied by {safe(who)}"
        if decision.left_with:  # not a no: the user left the question
            said = LEFT_QUESTION.format(safe(decision.left_with))
        console.print(Text(f"{RESULT}{said}", style="bold red"))
        reason = Text(safe(decision.reason), style="red")
        # -p's console does not wrap (a log line per line); Padding would pad each line with spaces
        console.print(Text(MORE) + reason if console.soft_wrap else Padding(reason, (0, 0, 0, len(MORE))))
    elif decision.asked:
        remembered = f", and by {safe(decision.reason)} from now on" if decision.hook == SESSION_RULE else ""
        console.print(Text(f"{RESULT}allowed by you{remembered}", style="green"))
    elif decision.hook == SESSION_RULE:
        console.print(Text(f"{RESULT}allowed by {safe(decision.reason)}", style="green"))


def draw_result(console: Console, finished: ToolFinished, repl: bool) -> None:
    """One line for what the call did; a command's last lines; an error in red."""
    style = "red" if finished.is_error else "dim"
    if finished.tool == "Bash":
        tail, before = output_tail(finished.content)
        if before:
            more = " (/last shows all)" if repl else ""
            console.print(Text(f"{MORE}… {counted(before, 'earlier line')}{more}", style="dim"))
        for line in tail:
            console.print(Text(MORE + safe(line), style="dim"), overflow="ellipsis", no_wrap=True)
    if finished.is_error and finished.tool != "Bash":
        lines = safe(finished.content).splitlines() or [""]
        text = "\n".join(lines[:ERROR_LINES]) + ("\n…" if len(lines) > ERROR_LINES else "")
        console.print(Text(RESULT + text.replace("\n", "\n" + MORE), style="red"))
    elif finished.summary:
        console.print(Text(RESULT + safe(finished.summary), style=style))


def draw_change(console: Console, diff: str, repl: bool) -> None:
    """The diff a Write or Edit made without a question (which would have shown it), cut short."""
    lines, cut = change_lines(diff)
    for line in lines:
        indented = Text(MORE) + line
        indented.rstrip()  # a blank context line would end in spaces
        console.print(indented, overflow="ellipsis", no_wrap=True)
    if cut:
        more = " (/diff shows all)" if repl else ""
        console.print(Text(f"{MORE}… {counted(cut, 'more line')}{more}", style="dim"))


def subagent_line(event: SubAgentStarted | SubAgentDecision | SubAgentFinished) -> Text:
    """A sub-agent's progress in one line, indented under the Agent call that started it."""
    line = Text(f"{RESULT}[{safe(event.agent)}] ", style="dim")
    if isinstance(event, SubAgentStarted):
        line.append(f"started{' in plan mode' if event.plan_mode else ''} · {safe(event.model)}", style="dim")
    elif isinstance(event, SubAgentFinished):
        line.append(f"{event.ending} · {counted(event.tool_calls, 'tool call')} · "
                    f"{counted(event.requests, 'request')} · {event.seconds:.1f} s",
                    style="bold" if event.ending == "answered" else "bold red")
    else:
        decision = event.decision
        line.append_text(call_line(decision.tool, decision.args))
        denied = decision.decision == "deny"
        who = "you" if decision.asked else decision.hook or "the hooks"
        said = f"  {'denied' if denied else 'allowed'}" + (f" by {who}" if denied or decision.asked else "")
        if decision.left_with:
            said = "  " + LEFT_QUESTION.format(safe(decision.left_with))
        line.append(said, style="red" if denied else "green")
    return line


def _summarise(args: dict[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        shown = reveal(value if isinstance(value, str) else json.dumps(value)).replace("\n", "⏎")
        parts.append(f"{key}={shown[:ARGUMENT_WIDTH]}{'…' if len(shown) > ARGUMENT_WIDTH else ''}")
    return ", ".join(parts)
