"""TodoWrite and TodoRead: the task-level progress list, a layer's state kept beside AppState.

The list lives in the state's `layer_state` (`todos_of` reads it, `replace_todos`
replaces it and emits TodosChanged, which the journal stores); the core knows
nothing of it. Each TodoWrite replaces the whole list. At most one item may be in
progress: that item is the agent's anchor, and two anchors leave it unsure which
to go on with. Both tools only touch session state, so they run while planning and
never ask. The result carries the old list, the new one and counts by status.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.events import Event
from state import AppState
from tools.base import Tool, ToolResult, error, object_schema

if TYPE_CHECKING:
    from agent.loop import Agent

STATUSES = ("pending", "in_progress", "completed")
KEY = "todos"  # the list's place in AppState.layer_state
PRIORITIES = ("high", "medium", "low")
ITEM = {"type": "object",
        "properties": {"content": {"type": "string", "minLength": 1},
                       "status": {"type": "string", "enum": list(STATUSES)},
                       "priority": {"type": "string", "enum": list(PRIORITIES)},
                       "activeForm": {"type": "string",
                                      "description": "The same step in the present continuous, "
                                                     "shown while it is in progress: 'Running tests'."}},
        "required": ["content", "status"], "additionalProperties": False}


@dataclass(frozen=True)
class Todo:
    """One todo: `content` ("Run tests"), shown as `active_form` ("Running tests") in progress."""

    content: str
    status: str = "pending"
    priority: str = "medium"
    active_form: str = ""

    @property
    def shown(self) -> str:
        """The wording a user sees: the active form while in progress."""
        return (self.active_form or self.content) if self.status == "in_progress" else self.content

    def as_dict(self) -> dict[str, str]:
        """The one serialisation of a todo, in the model's field names: results, journal, store."""
        return {"content": self.content, "status": self.status, "priority": self.priority,
                "activeForm": self.active_form}

    @classmethod
    def from_dict(cls, item: dict[str, Any]) -> "Todo":
        """A todo from as_dict's fields; sessions stored before activeForm said active_form."""
        return cls(str(item["content"]).strip(), item["status"], item.get("priority") or "medium",
                   str(item.get("activeForm", item.get("active_form")) or "").strip())


@dataclass(frozen=True)
class TodosChanged(Event):
    """TodoWrite replaced the whole list."""

    old: tuple[Todo, ...]
    new: tuple[Todo, ...]


def todos_of(state: AppState) -> tuple[Todo, ...]:
    """The session's todo list (empty until the first TodoWrite)."""
    return state.layer_state.get(KEY, ())


def replace_todos(state: AppState, todos: tuple[Todo, ...]) -> tuple[Todo, ...]:
    """Replace the whole list and say so (TodosChanged); returns the old one."""
    old = todos_of(state)
    state.layer_state[KEY] = tuple(todos)
    state.events.emit(TodosChanged(old, todos_of(state)))
    return old


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
        old = replace_todos(state, todos)
        counts = Counter(todo.status for todo in todos)
        return ToolResult(json.dumps({"oldTodos": as_dicts(old), "todos": as_dicts(todos),
                                      "summary": {status: counts[status] for status in STATUSES}},
                                     indent=1))

    def read(args: dict[str, Any]) -> ToolResult:
        return ToolResult(json.dumps({"todos": as_dicts(todos_of(state))}, indent=1))

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
