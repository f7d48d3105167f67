"""Run one tool call, in the order the design fixes:

  arguments parsed and validated → deny hooks → ask hooks (a session rule, or the user) → handler

Every call ends in exactly one ToolResult, whatever happens: unknown tool, bad JSON, invalid
arguments, a denial, a "no", or an exception in the handler. The call is emitted as it arrives
(ToolRequested), so the screen names it before any question; each decision as a ToolDecision (the
console prints it, the journal keeps it in the audit trail). Just before the handler runs, a
ToolStarted event marks the call as started, so a resume after a crash can tell a call that never
ran from one whose result was lost; the handler's result is emitted as a ToolFinished, cut to
MAX_RESULT_CHARS (tools/base.py): the one cap every tool's result passes. When an ask hook asks,
`ask` puts a PermissionRequest, with a preview of what will run, to the user (`ask_user`); the
session-rules layer (hooks/session_rules.py) answers there first from the user's "don't ask again"
rules, so a rule is consulted only after the deny hooks and can never lift a plan-mode denial. A
question the user leaves by a command (QuestionLeft: /exit, /mode, Shift+Tab) runs nothing and ends
the turn. Ctrl-C at that question emits the call's ToolFinished ("Not run") before the interrupt
goes on to the loop, so the screen shows one result for it, as it does for a "no". Ctrl-C while the
handler runs is another matter: the call started, so its result says it was "interrupted while
running", with its output so far, and that its effects may stand (a tool that only asks the user,
like ExitPlanMode, is "Not run" as at the question); the interrupt carries that result to the loop
(CallInterrupted). `after_call` may add to a handler's result (the user's PostToolUse hooks do).

A call is judged once (`ToolCallEvent.judgement`): the hooks read that
judgement, and a tool with `run_decided` (the hardened Bash) gets it with the
plan flag as decided, so it acts on the decision the guard made.

`run_batch` runs a reply's calls one after another, through `batch`, a seam:
the sub-agent layer (agent/batch.py) puts there a runner that lets the calls
of a `concurrent` tool run side by side. The caller's `guard` wraps each step,
so whatever it does with an unexpected exception it does for every call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Iterator

from agent.approval import Approve, PermissionAnswer, PermissionRequest, as_answer
from agent.events import ToolDecision, ToolFinished, ToolRequested, ToolStarted
from hooks.registry import HookRegistry, ToolCallEvent, Verdict
from models.base import ToolCall
from state import AppState
from tools.base import CallDecision, CallInterrupted, Preview, QuestionLeft, Tool, ToolResult, capped, error
from tools.validate import schema_errors

DECLINED = ("The user declined this call. Do not retry it as is; ask what they would prefer, "
            "or take another approach.")
UNANSWERED = "no one to ask"
NOBODY_TO_ASK = "denied: nobody here can answer"  # how such a denial is shown (by no one is no one)
LEFT_QUESTION = "not run: you left the question with {}"  # how a question left unanswered is shown
NOT_RUN = "Not run:"  # how every result of a call that never ran begins
INTERRUPTED = f"{NOT_RUN} the user interrupted the turn (Ctrl-C)."
RAN_INTERRUPTED = ("Interrupted while running (Ctrl-C): its effects may stand. It had started and may "
                   "have done some or all of its work; check before running it again.")
Guard = Callable[[ToolCall, Callable[[], Any]], Any]
Results = Iterator[tuple[ToolCall, ToolResult]]
Ask = Callable[["Executor", Tool, dict[str, Any], Verdict], tuple[Verdict, bool]]


@dataclass(frozen=True)
class Allowed:
    """A call that passed validation and the hooks, ready for its handler."""

    call: ToolCall
    tool: Tool
    args: dict[str, Any]
    decision: CallDecision


def in_order(executor: "Executor", calls: list[ToolCall], guard: Guard) -> Results:
    """The core's batch: each call decided and run before the next."""
    for call in calls:
        yield call, guard(call, partial(executor.run, call))


def ask_user(executor: "Executor", tool: Tool, args: dict[str, Any], verdict: Verdict) -> tuple[Verdict, bool]:
    """The core's `ask`: the ask hook's question put to the user; True when a person answered."""
    return answered(as_answer(executor.approve(question(tool, args, verdict))), verdict)


def question(tool: Tool, args: dict[str, Any], verdict: Verdict) -> PermissionRequest:
    """What the user is asked: the call, the hook's reason, and what the call will do."""
    return PermissionRequest(tool.name, args, verdict.reason, _preview(tool, args))


def answered(answer: PermissionAnswer, verdict: Verdict) -> tuple[Verdict, bool]:
    """What the user's answer makes of the ask hook's verdict; True when a person answered."""
    if answer.unanswered:
        return Verdict("deny", UNANSWERED, answer.unanswered), False
    if answer.allow:
        return Verdict("allow", verdict.hook, verdict.reason), True
    said = f" The user said: {answer.feedback}" if answer.feedback else ""
    return Verdict("deny", verdict.hook, DECLINED + said), True


@dataclass
class Executor:
    """Runs tool calls through validation, the hooks and the user's answer, to one result each."""

    tools: dict[str, Tool]
    hooks: HookRegistry
    state: AppState
    approve: Approve
    calls: int = 0
    ask: Ask = ask_user
    batch: Callable[["Executor", list[ToolCall], Guard], Results] = in_order
    after_call: list[Callable[[ToolCallEvent, ToolResult], ToolResult]] = field(default_factory=list)

    def run(self, call: ToolCall) -> ToolResult:
        """Exactly one ToolResult for this call, whatever happens."""
        decided = self.decide(call)
        return decided if isinstance(decided, ToolResult) else self.invoke(decided)

    def run_batch(self, calls: list[ToolCall], guard: Guard) -> Results:
        """Each call with its result, in call order, run as `batch` says."""
        return self.batch(self, calls, guard)

    def decide(self, call: ToolCall) -> Allowed | ToolResult:
        """Validation, deny hooks, ask hooks: the call made ready, or the result that refuses it."""
        self.calls += 1
        tool, args, problem = self._validated(call)
        self.state.events.emit(ToolRequested(call.name, args))
        if problem:
            self.state.events.emit(ToolDecision(call.name, {}, "deny", "validation", problem))
            return error(problem)
        event = ToolCallEvent(tool, args, self.state.view())
        verdict = self.hooks.check(event)
        asked, left_with = False, ""
        if verdict.decision == "ask":
            try:
                verdict, asked = self.ask(self, tool, args, verdict)
            except KeyboardInterrupt:  # Ctrl-C at the question: the call shows its result, as a "no" does
                self._finished(call.name, args, error(INTERRUPTED))
                raise
            except QuestionLeft as left:  # /exit, /mode, Shift+Tab at the question: no answer
                asked, left_with = True, str(left)
                said = left.TOLD.format(left, "saying whether this call may run", self.state.mode_label)
                verdict = Verdict("deny", verdict.hook, f"{NOT_RUN} the user {said}")
        self.state.events.emit(ToolDecision(call.name, args, verdict.decision, verdict.hook,
                                            verdict.reason, asked, left_with))
        if verdict.decision == "deny":
            return ToolResult(verdict.reason, is_error=True, end_turn=bool(left_with))
        decision = CallDecision(event.judgement, event.state.plan_mode)
        self.state.events.emit(ToolStarted(call.id, call.name, args))
        return Allowed(call, tool, args, decision)

    def invoke(self, allowed: Allowed) -> ToolResult:
        """The handler's result; an exception in it becomes an error result."""
        call, tool, args = allowed.call, allowed.tool, allowed.args
        result = error(INTERRUPTED)
        try:
            if tool.run_decided is not None:
                result = capped(tool.run_decided(args, allowed.decision))
            else:
                result = capped(tool.handler(args))
        except Exception as exc:  # a broken tool must not break the session
            result = error(f"{call.name} failed: {type(exc).__name__}: {exc}")
        except KeyboardInterrupt as stop:  # it started: its effects may stand, unless it only asked
            interrupted = stop if isinstance(stop, CallInterrupted) else CallInterrupted()
            so_far = f"\nOutput so far:\n{interrupted.output}" if interrupted.output else ""
            result = error(INTERRUPTED if tool.requires_user else RAN_INTERRUPTED + so_far)
            interrupted.call_id, interrupted.result = call.id, result
            raise interrupted from None
        else:
            for after in self.after_call:
                result = capped(after(ToolCallEvent(tool, args, self.state.view()), result))
        finally:
            self._finished(call.name, args, result)
        return result

    def _finished(self, name: str, args: dict[str, Any], result: ToolResult) -> None:
        self.state.events.emit(ToolFinished(name, args, result.summary, result.content, result.is_error,
                                            result.change))

    def _validated(self, call: ToolCall) -> tuple[Tool | None, dict[str, Any], str]:
        """The tool and parsed arguments, or a message saying what is wrong with the call."""
        tool = self.tools.get(call.name)
        if tool is None:
            return None, {}, f"There is no tool named {call.name!r}. Tools: {', '.join(self.tools)}."
        try:
            args = json.loads(call.arguments or "{}")
        except json.JSONDecodeError as exc:
            return tool, {}, f"The arguments of {call.name} are not valid JSON ({exc.msg})."
        problems = schema_errors(args, tool.parameters)
        if problems:
            return tool, {}, f"Invalid arguments for {call.name}: " + "; ".join(problems) + "."
        return tool, args, ""


def _preview(tool: Tool, args: dict[str, Any]) -> Preview | None:
    """What the call will do, for the question; None when the tool has no preview or it fails."""
    if tool.preview is None:
        return None
    try:
        return tool.preview(args)
    except Exception:  # a preview is a courtesy: the question is still asked without it
        return None
