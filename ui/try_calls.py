"""`--try-calls FILE`: tool calls through the hooks and rules, without a model and without running them.

For writing and testing hooks. FILE is one call (`{"name": "Bash", "arguments": {...}}`),
a list of calls, or a scenario (`--script` / `--record`: its turns' `tool_calls`). Each call
goes through the executor's decision exactly as in a session (schema, deny rules and the
plan-mode guard, the user's PreToolUse hooks, the permission mode and rules), so the hooks
really run; then the handler is not called. A question is not put to anyone: it is shown
as the question it would be. Each decision is printed with who made it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent.approval import PermissionAnswer, PermissionRequest
from agent.events import Event, ToolDecision
from agent.loop import Agent
from models.base import ModelError, ToolCall
from models.scripted import read_json, script_turns
from tools.base import ToolResult
from ui.console import ConsoleView

WOULD_ASK = "would ask you"


class NotCalls(ValueError):
    """The file holds no tool calls in a shape this reads; the message says why."""


def read_calls(path: Path) -> list[dict[str, Any]]:
    """The calls in FILE, each {"name", "arguments"}; NotCalls, naming --try-calls FILE, if it holds none."""
    label = f"--try-calls {path}"
    try:
        data = read_json(path, label)
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            return [data]
        if isinstance(data, list) and data and all(isinstance(c, dict) and isinstance(c.get("name"), str)
                                                   for c in data):
            return data
        turns = script_turns(data, label)
    except ModelError as failure:
        raise NotCalls(str(failure)) from failure
    calls = [call for turn in turns for call in turn.get("tool_calls", [])]
    if not calls:
        raise NotCalls(f"{label}: holds no tool calls: write {{\"name\": \"Bash\", \"arguments\": "
                       "{\"command\": \"…\"}}, a list of them, or a --record recording")
    return calls


def would_ask(request: PermissionRequest) -> PermissionAnswer:
    """The `approve` of a try: the question is shown, never put."""
    return PermissionAnswer(False, unanswered=f"{WOULD_ASK}: {request.reason}")


def try_calls(agent: Agent, calls: list[dict[str, Any]], view: ConsoleView) -> int:
    """Decide each call and print the decision; nothing runs. Exit code 0."""
    decisions: list[ToolDecision] = []

    def listen(event: Event) -> None:
        if isinstance(event, ToolDecision):
            decisions.append(event)

    agent.state.events.subscribe(listen)
    view.notice(f"Trying {len(calls)} tool call{'s' * (len(calls) != 1)} in {agent.state.mode_label} "
                "mode; the hooks run, the tools do not.", style="dim")
    for number, call in enumerate(calls, 1):
        arguments = call.get("arguments", {})
        encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)
        decided = agent.executor.decide(ToolCall(f"try_{number}", call["name"], encoded))
        decision = decisions[-1] if decisions else None
        said = f"{number}. {call['name']} {encoded}"
        if isinstance(decided, ToolResult) and decided.content.startswith(WOULD_ASK):
            view.notice(f"{said}\n   ? {decided.content} (nobody is asked here)", style="yellow")
        elif isinstance(decided, ToolResult):
            who = decision.hook if decision else "validation"
            view.notice(f"{said}\n   ✗ denied by {who}\n     {decided.content}", style="red")
        else:
            who = f" by {decision.hook}" if decision and decision.hook else ""
            view.notice(f"{said}\n   ✓ would run{who} (it was not run)", style="green")
    agent.state.events.unsubscribe(listen)
    return 0
