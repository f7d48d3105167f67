"""`-p PROMPT`: one turn without a person, for scripts and CI.

The final answer goes to stdout, everything else to stderr. On a terminal the
answer is drawn through `safe` like everything else; piped or redirected it is
written byte for byte, since a script reading it wants the model's exact text.
`-p -` reads the prompt from standard input.

--output-format text         the answer (or the plan awaiting approval)
--output-format json         one object at the end: ending (answered, plan_pending, cut,
                             interrupted…), text, plan, session id, tokens
--output-format stream-json  one JSON object per line as things happen (messages, tool
                             decisions, tool results), then the same final object

Exit codes (all of them are listed in ui/command_line.py's EXIT_CODES): 0 answered (or a
plan approved with --approve-plan, and the work done); 1 the model or a limit
failed, the answer was cut off or filtered (`ending` "cut" in JSON; what came is
still printed), or the turn stopped on an internal error; 4 the model made a plan and
nobody approved it: the plan is printed (as the answer, or as `plan` in JSON),
not saved, nothing was changed, and the command to review it in the REPL is
printed (unless the session store could not be used, so there is none); 5 the turn answered, but calls that needed an answer nobody could give
were denied (listed as `unanswered` in JSON, and on stderr); 130 interrupted; 141
the reader of stdout went away (`| head -1`): the run ends there, quietly, as Unix
tools end on SIGPIPE. With stdout closed (`>&-`) the run goes on and writes
nothing there.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, NoReturn, TextIO

from agent.events import Event, MessageAdded, ToolDecision, ToolFinished
from agent.executor import UNANSWERED
from agent.loop import Agent, TurnOutcome
from session.journal import subject_of
from session.usage import UsageMeter
from tools.bash.left_running import left_by, this_stepagent
from tools.plan_mode import EXIT_PLAN_MODE
from ui.console import ConsoleView
from ui.safe_text import safe
from ui.startup import resume_command

PLAN_NOT_APPROVED = 4
PLAN_PENDING = "plan_pending"
UNANSWERED_DENIALS = 5
READER_GONE = 141


def run_headless(agent: Agent, prompt: str, view: ConsoleView, output_format: str = "text",
                 saved: Callable[[], bool] = lambda: True) -> int:
    """Run one turn and report it in the chosen format; the exit code says how it ended.

    `saved` tells, at the end, whether the session is in the store (so it can be resumed).
    """
    usage, unanswered = UsageMeter(), Unanswered()
    agent.state.events.subscribe(usage.on_event)
    agent.state.events.subscribe(unanswered.on_event)
    if output_format == "stream-json":
        agent.state.events.subscribe(stream_events(sys.stdout))
    outcome = agent.run_turn(prompt)
    view.show_left_running_at_exit(left_by(this_stepagent(agent.workspace)))
    plan = last_plan(agent.messages) if _plan_unapproved(outcome) else ""
    code = exit_code(outcome, plan, bool(unanswered.denials))
    if output_format == "text":
        if outcome.ending in ("answered", "cut") or plan:
            write_answer(plan or outcome.text, sys.stdout)
    else:
        _write_json(final_record(outcome, plan, code, agent.state.session_id, usage,
                                 unanswered.denials), sys.stdout)
    if unanswered.denials:
        view.error(f"not run, for want of an answer nobody can give in -p: "
                   f"{', '.join(d['tool'] for d in unanswered.denials)} (--mode edit or yolo "
                   "allows them)")
    if code == PLAN_NOT_APPROVED and saved():
        view.notice("The plan awaits your approval; nobody can review it in a -p run, so nothing "
                    "was changed (exit code 4). To approve a plan in -p, run again with "
                    "--approve-plan; to review this one, resume the session interactively:",
                    style="yellow")
        view.command("", resume_command(agent.state.session_id))
    elif code == PLAN_NOT_APPROVED:
        view.notice("The plan awaits your approval; nobody can review it in a -p run, so nothing "
                    "was changed (exit code 4). This session was not saved, so it cannot be "
                    "resumed; to approve a plan in -p, run again with --approve-plan.",
                    style="yellow")
    elif outcome.ending == "interrupted":
        view.error("interrupted")
    elif code == 1:
        view.error(outcome.error or f"the turn ended without an answer ({outcome.ending})")
    return code


def _plan_unapproved(outcome: TurnOutcome) -> bool:
    return outcome.ending == "ended_by_tool" and outcome.tool == EXIT_PLAN_MODE


class Unanswered:
    """The calls denied in this run because they needed an answer and nobody could give one."""

    def __init__(self) -> None:
        self.denials: list[dict[str, str]] = []

    def on_event(self, event: Event) -> None:
        """Keep a denial made because nobody could answer."""
        if isinstance(event, ToolDecision) and event.hook == UNANSWERED:
            self.denials.append({"tool": event.tool, "subject": subject_of(event.args),
                                 "reason": event.reason})


def exit_code(outcome: TurnOutcome, plan: str, denied_unanswered: bool = False) -> int:
    """The exit code: 0 answered, 4 a plan nobody approved, 5 answered with calls denied.

    5 means calls were denied for want of an answer; 130 interrupted, 1 anything else."""
    if outcome.ending == "answered":
        return UNANSWERED_DENIALS if denied_unanswered else 0
    if plan:
        return PLAN_NOT_APPROVED
    return 130 if outcome.ending == "interrupted" else 1


def final_record(outcome: TurnOutcome, plan: str, code: int, session_id: str,
                 usage: UsageMeter, unanswered: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """The one object `--output-format json` prints (and stream-json ends with)."""
    tally = usage.session
    return {"type": "result", "ending": PLAN_PENDING if plan else outcome.ending, "exit_code": code,
            "text": outcome.text,
            "plan": plan, "error": outcome.error, "session_id": session_id,
            "unanswered": unanswered or [],
            "usage": {"input_tokens": tally.input_tokens, "output_tokens": tally.output_tokens,
                      "cached_tokens": tally.cached_tokens} if tally.reported else None}


def stream_events(out: TextIO | None) -> Callable[[Event], None]:
    """A listener that writes each message, decision and tool result as one JSON line."""
    def listen(event: Event) -> None:
        if isinstance(event, MessageAdded):
            _write_json({"type": "message", "message": event.message}, out)
        elif isinstance(event, ToolDecision):
            _write_json({"type": "decision", "tool": event.tool, "decision": event.decision,
                         "hook": event.hook, "reason": event.reason, "asked": event.asked}, out)
        elif isinstance(event, ToolFinished):
            _write_json({"type": "tool_result", "tool": event.tool, "summary": event.summary,
                         "is_error": event.is_error}, out)
    return listen


def _write_json(record: dict[str, Any], out: TextIO | None) -> None:
    _write(json.dumps(record, ensure_ascii=True) + "\n", out)


def _write(text: str, out: TextIO | None) -> None:
    """Write all of `text` to stdout: nothing when it is closed, the end of the run when its reader left.

    The bytes go out here, until every one is written: unbuffered (PYTHONUNBUFFERED, python -u),
    a text stream writes a long text to a pipe with one system call, which may write part of it
    (its reader left, a signal came) and the rest is dropped without a word.
    """
    if out is None:
        return
    try:
        raw = getattr(out, "buffer", None)
        if raw is None:
            out.write(text)
        else:
            out.flush()
            data = memoryview(text.encode(out.encoding or "utf-8", "backslashreplace"))
            while data:
                data = data[raw.write(data):]
        out.flush()
    except BrokenPipeError:
        _reader_gone(out)


def _reader_gone(out: TextIO) -> NoReturn:
    """End the run at once and quietly; what was buffered for the pipe goes nowhere."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
    raise SystemExit(READER_GONE)


def write_answer(text: str, out: TextIO | None) -> None:
    """The answer as the model wrote it for a pipe or a file; made safe for a terminal.

    A character the output cannot encode (a lone surrogate a model sent as JSON)
    is written as a backslash escape, so the answer is never lost to a crash.
    """
    if out is None:
        return
    encoding = out.encoding or "utf-8"
    shown = (safe(text) if out.isatty() else text) + "\n"
    _write(shown.encode(encoding, "backslashreplace").decode(encoding), out)


def last_plan(messages: list[dict[str, Any]]) -> str:
    """The plan of the latest ExitPlanMode call in the history, '' if none."""
    for message in reversed(messages):
        for call in reversed(message.get("tool_calls") or []):
            if call["function"]["name"] == EXIT_PLAN_MODE:
                try:
                    return str(json.loads(call["function"]["arguments"]).get("plan", ""))
                except (ValueError, AttributeError):
                    return ""
    return ""
