"""The session's event stream: what happened, for whoever listens.

The state, the agent's history and the executor emit events; the session
journal (journal.py) stores them and the console shows them. Emitters do not
know their listeners, which is what keeps the loop and the UI apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Union


@dataclass(frozen=True)
class Todo:
    content: str
    status: str = "pending"
    priority: str = "medium"
    active_form: str = ""

    @property
    def shown(self) -> str:
        """The wording a user sees: the active form while in progress."""
        return (self.active_form or self.content) if self.status == "in_progress" else self.content


@dataclass(frozen=True)
class ModeChanged:
    plan_mode: bool
    permission_mode: str
    cause: str


@dataclass(frozen=True)
class TodosChanged:
    old: tuple[Todo, ...]
    new: tuple[Todo, ...]


@dataclass(frozen=True)
class MessageAdded:
    message: dict[str, Any]


@dataclass(frozen=True)
class ToolDecision:
    """What the hooks (and the user, if asked) decided for one call."""

    tool: str
    args: dict[str, Any]
    decision: str
    hook: str = ""
    reason: str = ""
    asked: bool = False


@dataclass(frozen=True)
class Compacted:
    """The history was replaced by `messages` (the summary and what must survive)."""

    messages: tuple[dict[str, Any], ...]


Event = Union[ModeChanged, TodosChanged, MessageAdded, ToolDecision, Compacted]


@dataclass
class EventBus:
    listeners: list[Callable[[Event], None]] = field(default_factory=list)

    def subscribe(self, listener: Callable[[Event], None]) -> None:
        self.listeners.append(listener)

    def emit(self, event: Event) -> None:
        for listener in self.listeners:
            listener(event)
