"""The agent loop: ask the model, run the tool calls it makes, repeat until it answers.

This loop does not change for features. They hang on its seams: the system
prompt is rebuilt for every request (prompt.py); `preparers` run before each
request (due reminders, reminders.py; automatic compaction, compaction.py);
every tool call goes through the executor and its hooks (executor.py, hooks/);
every message added is emitted as an event (the journal stores it). Control flow
that leaves a turn early is a small exception, TurnEnded, caught in one place.

Every tool call gets exactly one result, even when the user presses Ctrl-C or a
plan rejection ends the turn half-way through a reply's calls, so the history
is always a valid next request (failure mode 8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from events import MessageAdded
from executor import Executor
from models.base import Model, ModelError, Reply, ToolCall
from prompt import PromptContext, build_system_prompt
from state import AppState
from tools.base import ToolResult

Ending = Literal["answered", "plan_rejected", "interrupted", "step_limit", "model_error"]
INTERRUPTED = "Not run: the user interrupted the turn (Ctrl-C)."
SKIPPED = "Not run: the turn ended before this call."


class TurnEnded(Exception):
    def __init__(self, ending: Ending):
        super().__init__(ending)
        self.ending = ending


@dataclass
class TurnOutcome:
    ending: Ending
    text: str = ""
    error: str = ""


@dataclass
class Agent:
    model: Model
    executor: Executor
    state: AppState
    workspace: Path
    on_text: Callable[[str], None] = lambda text: None
    on_reply_end: Callable[[], None] = lambda: None
    max_steps: int = 50
    preparers: list[Callable[["Agent"], None]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)

    def add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.state.events.emit(MessageAdded(message))

    def run_turn(self, user_text: str) -> TurnOutcome:
        self.add({"role": "user", "content": user_text})
        try:
            for _ in range(self.max_steps):
                reply = self._step()
                if not reply.tool_calls:
                    return TurnOutcome("answered", reply.text)
            return TurnOutcome("step_limit", error=f"stopped after {self.max_steps} model requests "
                               "in one turn; say 'continue' to go on.")
        except TurnEnded as ended:
            return TurnOutcome(ended.ending)
        except KeyboardInterrupt:
            return TurnOutcome("interrupted")
        except ModelError as failure:
            return TurnOutcome("model_error", error=str(failure))

    def system_prompt(self) -> str:
        return build_system_prompt(PromptContext(self.state, self.workspace,
                                                 tuple(self.executor.tools)))

    def request(self) -> list[dict[str, Any]]:
        """What the next model request carries: the fresh system prompt, then the history."""
        return [{"role": "system", "content": self.system_prompt()}, *self.messages]

    def _step(self) -> Reply:
        for prepare in self.preparers:
            prepare(self)
        reply = self._ask_model()
        self.add(reply.as_message())
        self._run_tools(reply.tool_calls)
        return reply

    def _ask_model(self) -> Reply:
        self.state.model_requests += 1
        request = self.request()
        schemas = [tool.schema() for tool in self.executor.tools.values()]
        streamed: list[str] = []

        def on_text(piece: str) -> None:
            streamed.append(piece)
            self.on_text(piece)

        try:
            return self.model.complete(request, schemas, on_text)
        except KeyboardInterrupt:
            if streamed:
                self.add({"role": "assistant", "content": "".join(streamed) + "\n[interrupted by the user]"})
            raise
        finally:
            self.on_reply_end()

    def _run_tools(self, calls: list[ToolCall]) -> None:
        results: dict[str, ToolResult] = {}
        ending: Ending | None = None
        try:
            for call in calls:
                results[call.id] = self.executor.run(call)
                if results[call.id].end_turn:
                    ending = "plan_rejected"
                    break
        finally:
            missing = ToolResult(SKIPPED if ending else INTERRUPTED, is_error=True)
            for call in calls:
                result = results.get(call.id, missing)
                self.add({"role": "tool", "tool_call_id": call.id, "content": result.content})
        for result in results.values():
            if result.follow_up:
                self.add({"role": "user", "content": result.follow_up})
        if ending:
            raise TurnEnded(ending)
