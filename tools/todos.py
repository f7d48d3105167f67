"""TodoWrite and TodoRead: the task-level progress list, kept in AppState.todos.

Each TodoWrite replaces the whole list. At most one item may be in progress:
that item is the agent's anchor, and two anchors leave it unsure which to go
on with. Both tools only touch session state, so they run while planning and
never ask. The result carries the old list, the new one and counts by status.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from agent.events import Todo
from state import AppState
from tools.base import Tool, ToolResult, error, object_schema

if TYPE_CHECKING:
    from agent.loop import Agent

STATUSES = ("pending", "in_progress", "completed")
PRIORITIES = ("high", "medium", "low")
ITEM = {"type": "object",
        "properties": {"content": {"type": "string", "minLength": 1},
                       "status": {"type": "string", "enum": list(STATUSES)},
                       "priority": {"type": "string", "enum": list(PRIORITIES)},
                       "activeForm": {"type": "string",
                                      "description": "The same step in the present continuous, "
                                                     "shown while it is in progress: 'Running tests'."}},
        "required": ["content", "status"], "additionalProperties": False}


def as_dicts(todos: tuple[Todo, ...]) -> list[dict[str, str]]:
    """The list as the model reads it."""
    return [todo.as_dict() for todo in todos]


def make_todo_tools(state: AppState) -> list[Tool]:
    """TodoWrite and TodoRead over the state's todo list."""
    def write(args: dict[str, Any]) -> ToolResult:
        todos = tuple(Todo.from_dict(item) for item in args["todos"])
        if any(not todo.content for todo in todos):
            return error("Every todo needs non-empty content.")
        if sum(todo.status == "in_progress" for todo in todos) > 1:
            return error("At most one todo may be in_progress at a time; mark the others pending "
                         "or completed. The list was not changed.")
        old = state.replace_todos(todos)
        counts = Counter(todo.status for todo in todos)
        return ToolResult(json.dumps({"oldTodos": as_dicts(old), "todos": as_dicts(todos),
                                      "summary": {status: counts[status] for status in STATUSES}},
                                     indent=1))

    def read(args: dict[str, Any]) -> ToolResult:
        return ToolResult(json.dumps({"todos": as_dicts(state.todos)}, indent=1))

    return [
        Tool("TodoWrite", "Replace the whole todo list for a task of several steps. Give each item "
             "both forms: content, the step as an order ('Run tests'), and activeForm, the same "
             "step in the present continuous ('Running tests'), which the user sees while it is in "
             "progress. Send every item each time; keep exactly one item in_progress while "
             "working; mark items completed as soon as they are done, and never when work failed "
             "or is partial.",
             object_schema({"todos": {"type": "array", "items": ITEM}}), write,
             allowed_in_plan_mode=True),
        Tool("TodoRead", "Read the current todo list.", object_schema({}), read, read_only=True),
    ]


def todo_layer(agent: "Agent") -> None:
    """The layer: TodoWrite and TodoRead, on the agent's state."""
    agent.executor.tools.update({tool.name: tool for tool in make_todo_tools(agent.state)})


def todo_lines(todos: tuple[Todo, ...]) -> str:
    """The todo list as numbered lines for the model, each with both forms.

    After a compaction the model sends the list again from these lines.
    """
    def line(number: int, todo: Todo) -> str:
        both = f"{todo.content} (activeForm: {todo.active_form})" if todo.active_form else todo.content
        return f"{number}. [{todo.status}] {both}"

    return "\n".join(line(number, todo) for number, todo in enumerate(todos, 1)) or "(empty)"
