"""Run one tool call, in the order the design fixes:

  arguments parsed and validated → deny hooks → ask hooks (the user answers) → handler

Every call ends in exactly one ToolResult, whatever happens: unknown tool, bad
JSON, invalid arguments, a denial, a "no", or an exception in the handler.
Each decision is emitted as a ToolDecision event: the console prints it as one
line, the journal keeps it in the audit trail. Just before the handler runs, a
ToolStarted event marks the call as started, so a resume after a crash can tell
a call that never ran from one whose result was lost.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from agent.events import ToolDecision, ToolStarted
from hooks.registry import HookRegistry, ToolCallEvent, Verdict
from models.base import ToolCall
from state import AppState
from tools.base import Tool, ToolResult, error
from tools.validate import schema_errors


@dataclass
class Executor:
    """Runs tool calls through validation, the hooks and the user's answer, to one result each."""

    tools: dict[str, Tool]
    hooks: HookRegistry
    state: AppState
    approve: Callable[[str], bool]
    calls: int = 0

    def run(self, call: ToolCall) -> ToolResult:
        """Exactly one ToolResult for this call, whatever happens."""
        self.calls += 1
        tool, args, problem = self._validated(call)
        if problem:
            self.state.events.emit(ToolDecision(call.name, {}, "deny", "validation", problem))
            return error(problem)
        verdict = self.hooks.check(ToolCallEvent(tool, args, self.state.view()))
        asked = verdict.decision == "ask"
        if asked:
            verdict = (Verdict("allow", verdict.hook, verdict.reason) if self.approve(verdict.reason)
                       else Verdict("deny", verdict.hook, "The user declined this call. Do not retry "
                                    "it as is; ask what they would prefer, or take another approach."))
        self.state.events.emit(ToolDecision(call.name, args, verdict.decision, verdict.hook,
                                            verdict.reason, asked))
        if verdict.decision == "deny":
            return error(verdict.reason)
        self.state.events.emit(ToolStarted(call.id, call.name))
        try:
            return tool.handler(args)
        except Exception as exc:  # a broken tool must not break the session
            return error(f"{call.name} failed: {type(exc).__name__}: {exc}")

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
