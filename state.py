"""AppState: what the session is doing right now.

The plan flag lives here, beside (not inside) the permission mode: plan mode is
a switch laid over build, edit or yolo, so leaving it returns to the mode in
force before. `leave_plan_mode` is the one function that turns the flag off;
ExitPlanMode's approval, the user's own commands and a resume all go through it.
Every change is emitted as an event with its cause (the audit trail).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from enum import Enum

from events import EventBus, ModeChanged, Todo, TodosChanged


class PermissionMode(str, Enum):
    """How much the agent may do without asking, outside plan mode."""

    BUILD = "build"
    EDIT = "edit"
    YOLO = "yolo"


MODE_CYCLE = ("plan", "build", "edit", "yolo")


def new_session_id() -> str:
    return "sess_" + secrets.token_hex(8)


@dataclass
class AppState:
    permission_mode: PermissionMode = PermissionMode.BUILD
    plan_mode: bool = False
    session_id: str = field(default_factory=new_session_id)
    plan_exit_unannounced: bool = False
    plan_reminders: int = 0
    todos: tuple[Todo, ...] = ()
    events: EventBus = field(default_factory=EventBus)
    tool_calls: int = 0
    model_requests: int = 0

    @property
    def mode_label(self) -> str:
        return "plan" if self.plan_mode else self.permission_mode.value

    def enter_plan_mode(self, cause: str) -> bool:
        """Turn plan mode on; False when it already was."""
        if self.plan_mode:
            return False
        self.plan_mode = True
        self.plan_exit_unannounced = False
        self.plan_reminders = 0
        self._record(cause)
        return True

    def leave_plan_mode(self, cause: str) -> bool:
        """The only place the plan flag goes off. False when it was not on.

        The model is told on its next request (see reminders.py), whoever left.
        """
        if not self.plan_mode:
            return False
        self.plan_mode = False
        self.plan_exit_unannounced = True
        self._record(cause)
        return True

    def set_permission_mode(self, mode: PermissionMode, cause: str) -> None:
        self.permission_mode = mode
        self._record(cause)

    def select(self, label: str, cause: str) -> None:
        """Switch to a mode by its name as the user types it (plan, build, edit, yolo)."""
        if label == "plan":
            self.enter_plan_mode(cause)
            return
        mode = PermissionMode(label)
        self.leave_plan_mode(cause)
        if mode is not self.permission_mode:
            self.set_permission_mode(mode, cause)

    def cycle(self, cause: str) -> None:
        """Shift+Tab: plan → build → edit → yolo → plan."""
        following = MODE_CYCLE[(MODE_CYCLE.index(self.mode_label) + 1) % len(MODE_CYCLE)]
        self.select(following, cause)

    def replace_todos(self, todos: tuple[Todo, ...]) -> tuple[Todo, ...]:
        """Replace the whole list; returns the old one."""
        old, self.todos = self.todos, tuple(todos)
        self.events.emit(TodosChanged(old, self.todos))
        return old

    def _record(self, cause: str) -> None:
        self.events.emit(ModeChanged(self.plan_mode, self.permission_mode.value, cause))
