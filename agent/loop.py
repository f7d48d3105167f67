"""The agent loop: ask the model, run the tool calls it makes, repeat until it answers.

This loop does not change for features, and it names no plan-mode concept. Features
hang on its seams: the system prompt is rebuilt for every request from `sections`
(agent/prompt.py; a layer may add one); `preparers` run before each request (due
reminders, automatic compaction, in session/); `recover_overflow` answers a
context overflow once (compaction); every tool call goes through the executor
and its hooks (agent/executor.py, hooks/); every message added is emitted as an
event (the journal stores it).

What plan mode needed from the loop is generic: a tool result may end the turn
(`end_turn`, used by a rejected plan) or add a real user message after the results
(`follow_up`, used by plan feedback). Control flow that leaves a turn early is a
small exception, TurnEnded, caught in one place. `admit` may change or refuse the user's
text (TurnEnded "refused"); `before_stop` may keep a turn going.

Every tool call gets exactly one result, even when the user presses Ctrl-C or a
tool ends the turn half-way through a reply's calls, so the history is always a
valid next request (a call Ctrl-C stopped while it ran keeps the executor's
"interrupted while running" result; only calls that never started are "Not run") (failure mode 8, step42_plan_mode/failure_modes.md). Each
result joins the history (and so the journal) the moment its call ends, so a
killed process loses none that was ready.

Two guards sit at the loop's edge, so no input ends the process: an unexpected
exception in one call (validation, a hook, a judge, a handler, a listener)
becomes that call's error result; one anywhere else in a turn ends the turn with
one line for the user ("failed"), open calls answered, the history still valid.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from agent.events import MessageAdded, TokensUsed
from agent.executor import INTERRUPTED, NOT_RUN, Executor
from agent.history import ids_in, open_calls, with_distinct_ids
from agent.prompt import SECTIONS, PromptContext, Section, build_system_prompt
from models.base import ContextOverflow, Model, ModelError, Reply, ToolCall
from state import AppState
from tools.base import CallInterrupted, ToolResult

Ending = Literal["answered", "cut", "ended_by_tool", "interrupted", "step_limit", "model_error",
                 "failed", "refused"]
SKIPPED = f"{NOT_RUN} the turn ended before this call."
FAILED = f"{NOT_RUN} an internal error ended the turn before this call."
DETAIL_LIMIT = 500


def unexpected(exc: Exception) -> str:
    """An unexpected exception in one line: its type and the start of its message."""
    return f"{type(exc).__name__}: {str(exc)[:DETAIL_LIMIT]}"


class TurnEnded(Exception):
    """Leaves the turn early; `ending` says why, `tool` names the tool that ended it, `error` the problem."""

    def __init__(self, ending: Ending, tool: str = "", error: str = ""):
        super().__init__(ending)
        self.ending, self.tool, self.error = ending, tool, error


@dataclass
class TurnOutcome:
    """How a turn ended: the answer's text, or the error, or the tool that ended it."""

    ending: Ending
    text: str = ""
    error: str = ""
    tool: str = ""


@dataclass
class Agent:
    """The loop and the history; the model, the executor and the state come in from outside."""

    model: Model
    executor: Executor
    state: AppState
    workspace: Path
    on_text: Callable[[str], None] = lambda text: None
    on_reply_end: Callable[[], None] = lambda: None
    max_steps: int = 50
    preparers: list[Callable[["Agent"], None]] = field(default_factory=list)
    recover_overflow: Callable[["Agent", ContextOverflow], None] | None = None
    sections: list[Section] = field(default_factory=lambda: list(SECTIONS))
    admit: list[Callable[[str], str]] = field(default_factory=list)
    before_stop: list[Callable[[str], str]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    requests: int = 0

    def add(self, message: dict[str, Any]) -> None:
        """Append a message to the history and emit it."""
        self.messages.append(message)
        self.state.events.emit(MessageAdded(message))

    def run_turn(self, user_text: str) -> TurnOutcome:
        """Send the user's text and run steps until the model answers or the turn ends."""
        try:
            for admit in self.admit:
                user_text = admit(user_text)
            self.add({"role": "user", "content": user_text})
            for _ in range(self.max_steps):
                reply = self._step()
                if reply.tool_calls:
                    continue
                if reply.cut:  # an answer the server cut or filtered is not taken for whole
                    return TurnOutcome("cut", reply.text, error=reply.cut)
                if not (more := next(filter(None, (go_on(reply.text) for go_on in self.before_stop)), "")):
                    return TurnOutcome("answered", reply.text)
                self.add({"role": "user", "content": more})
            return TurnOutcome("step_limit", error=f"stopped after {self.max_steps} model requests "
                               "in one turn; say 'continue' to go on.")
        except TurnEnded as ended:
            return TurnOutcome(ended.ending, tool=ended.tool, error=ended.error)
        except KeyboardInterrupt:
            self._answer_open_calls(INTERRUPTED)
            return TurnOutcome("interrupted")
        except ModelError as failure:
            return TurnOutcome("model_error", error=str(failure))
        except Exception as failure:  # the turn's guard: a bug or odd input must not end the process
            self._answer_open_calls(FAILED)
            return TurnOutcome("failed", error=f"internal error, the turn was stopped "
                               f"({unexpected(failure)}).")

    def system_prompt(self) -> str:
        """The system prompt for the next request, built fresh from its sections."""
        return build_system_prompt(PromptContext(self.state, self.workspace, tuple(self.executor.tools)),
                                   self.sections)

    def request(self) -> list[dict[str, Any]]:
        """What the next model request carries: the fresh system prompt, then the history."""
        return [{"role": "system", "content": self.system_prompt()}, *self.messages]

    def _step(self) -> Reply:
        """One model request and the tool calls of its reply."""
        for prepare in self.preparers:
            prepare(self)
        reply = self._ask_model()
        if reply.usage is not None:
            self.state.events.emit(TokensUsed(reply.usage.input_tokens, reply.usage.output_tokens,
                                              reply.usage.cached_tokens))
        self.add(reply.as_message())
        self._run_tools(reply.tool_calls)
        return reply

    def _ask_model(self) -> Reply:
        """Stream one reply; on Ctrl-C keep what was already said."""
        self.requests += 1
        schemas = [tool.schema() for tool in self.executor.tools.values()]
        streamed: list[str] = []

        def on_text(piece: str) -> None:
            streamed.append(piece)
            self.on_text(piece)

        try:
            return with_distinct_ids(self._complete(schemas, on_text), ids_in(self.messages))
        except KeyboardInterrupt:
            if streamed:
                self.add({"role": "assistant", "content": "".join(streamed) + "\n[interrupted by the user]"})
            raise
        finally:
            self.on_reply_end()

    def _complete(self, schemas: list[dict[str, Any]], on_text: Callable[[str], None]) -> Reply:
        """One model call; a context overflow is answered once by `recover_overflow` (compaction)."""
        try:
            return self.model.complete(self.request(), schemas, on_text)
        except ContextOverflow as overflow:
            if self.recover_overflow is None:
                raise
            self.recover_overflow(self, overflow)
            return self.model.complete(self.request(), schemas, on_text)

    def _run_tools(self, calls: list[ToolCall]) -> None:
        """Run each call and add exactly one result per call, as it ends, whatever stops the batch."""
        results: dict[str, ToolResult] = {}
        answered: set[str] = set()
        ended_by = ""
        try:
            for call, result in self.executor.run_batch(calls, self._guarded):
                results[call.id] = result
                answered.add(call.id)
                self.add({"role": "tool", "tool_call_id": call.id, "content": result.content})
                if result.end_turn:
                    ended_by = call.name
                    break
        except CallInterrupted as stop:  # the call that was running says so, with its output
            if stop.result is not None:
                results[stop.call_id] = stop.result
            raise
        finally:
            missing = ToolResult(SKIPPED if ended_by else INTERRUPTED, is_error=True)
            for call in calls:
                if call.id not in answered:
                    answered.add(call.id)
                    self.add({"role": "tool", "tool_call_id": call.id,
                              "content": results.get(call.id, missing).content})
        for result in results.values():
            if result.follow_up:
                self.add({"role": "user", "content": result.follow_up})
        if ended_by:
            raise TurnEnded("ended_by_tool", ended_by)

    def _guarded(self, call: ToolCall, work: Callable[[], Any]) -> Any:
        """The executor's work on one call; the call's guard turns an unexpected exception
        into its error result."""
        try:
            return work()
        except Exception as failure:
            return ToolResult(f"{call.name} failed inside stepagent ({unexpected(failure)}). "
                              "It may not have run; check before retrying.", is_error=True)

    def _answer_open_calls(self, content: str) -> None:
        """Give every call of the last reply that has no result this one (an error)."""
        for call_id in open_calls(self.messages):
            with suppress(Exception):  # added before a listener can fail: the call is answered
                self.add({"role": "tool", "tool_call_id": call_id, "content": content})
