"""The agent loop: ask the model, run the tool calls it makes, repeat until it answers.

This loop does not change for features, and it names no plan-mode concept. Features
hang on its seams: the system prompt is rebuilt for every request (agent/prompt.py);
`preparers` run before each request (due reminders, automatic compaction, in
session/); every tool call goes through the executor and its hooks (agent/executor.py,
hooks/); every message added is emitted as an event (the journal stores it).

What plan mode needed from the loop is generic: a tool result may end the turn
(`end_turn`, used by a rejected plan) or add a real user message after the results
(`follow_up`, used by plan feedback). Control flow that leaves a turn early is a
small exception, TurnEnded, caught in one place.

Every tool call gets exactly one result, even when the user presses Ctrl-C or a
tool ends the turn half-way through a reply's calls, so the history is always a
valid next request (failure mode 8, step42_plan_mode/failure_modes.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

from agent.events import MessageAdded
from agent.executor import Executor
from agent.prompt import PromptContext, build_system_prompt
from models.base import Model, ModelError, Reply, ToolCall
from state import AppState
from tools.base import ToolResult

Ending = Literal["answered", "ended_by_tool", "interrupted", "step_limit", "model_error"]
INTERRUPTED = "Not run: the user interrupted the turn (Ctrl-C)."
SKIPPED = "Not run: the turn ended before this call."


class TurnEnded(Exception):
    """Leaves the turn early; `ending` says why and `tool` names the tool that ended it."""

    def __init__(self, ending: Ending, tool: str = ""):
        super().__init__(ending)
        self.ending = ending
        self.tool = tool


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
    home: Path | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    requests: int = 0

    def add(self, message: dict[str, Any]) -> None:
        """Append a message to the history and emit it."""
        self.messages.append(message)
        self.state.events.emit(MessageAdded(message))

    def run_turn(self, user_text: str) -> TurnOutcome:
        """Send the user's text and run steps until the model answers or the turn ends."""
        self.add({"role": "user", "content": user_text})
        try:
            for _ in range(self.max_steps):
                reply = self._step()
                if not reply.tool_calls:
                    return TurnOutcome("answered", reply.text)
            return TurnOutcome("step_limit", error=f"stopped after {self.max_steps} model requests "
                               "in one turn; say 'continue' to go on.")
        except TurnEnded as ended:
            return TurnOutcome(ended.ending, tool=ended.tool)
        except KeyboardInterrupt:
            return TurnOutcome("interrupted")
        except ModelError as failure:
            return TurnOutcome("model_error", error=str(failure))

    def system_prompt(self) -> str:
        """The system prompt for the next request, built fresh from its sections."""
        return build_system_prompt(PromptContext(self.state, self.workspace,
                                                 tuple(self.executor.tools), self.home))

    def request(self) -> list[dict[str, Any]]:
        """What the next model request carries: the fresh system prompt, then the history."""
        return [{"role": "system", "content": self.system_prompt()}, *self.messages]

    def _step(self) -> Reply:
        """One model request and the tool calls of its reply."""
        for prepare in self.preparers:
            prepare(self)
        reply = self._ask_model()
        self.add(reply.as_message())
        self._run_tools(reply.tool_calls)
        return reply

    def _ask_model(self) -> Reply:
        """Stream one reply; on Ctrl-C keep what was already said."""
        self.requests += 1
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
        """Run each call and add exactly one result per call, whatever stops the batch."""
        results: dict[str, ToolResult] = {}
        ended_by = ""
        try:
            for call in calls:
                results[call.id] = self.executor.run(call)
                if results[call.id].end_turn:
                    ended_by = call.name
                    break
        finally:
            missing = ToolResult(SKIPPED if ended_by else INTERRUPTED, is_error=True)
            for call in calls:
                result = results.get(call.id, missing)
                self.add({"role": "tool", "tool_call_id": call.id, "content": result.content})
        for result in results.values():
            if result.follow_up:
                self.add({"role": "user", "content": result.follow_up})
        if ended_by:
            raise TurnEnded("ended_by_tool", ended_by)
