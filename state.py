"""AppState: what the session is doing right now.

The plan flag lives here, beside (not inside) the permission mode: plan mode is
a switch laid over build, edit or yolo, so leaving it returns to the mode in
force before. `leave_plan_mode` is the one function that turns the flag off:
the flag is a read-only property, so assigning it from anywhere else fails.
ExitPlanMode's approval, the user's own commands and a resume all go through it.
Every change is emitted as an event with its cause (the audit trail). Hooks get
a `StateView`, a frozen snapshot, so a hook cannot change the state it judges.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from agent.events import EventBus, ModeChanged, mode_label


class PermissionMode(str, Enum):
    """How much the agent may do without asking, outside plan mode."""

    BUILD = "build"
    EDIT = "edit"
    YOLO = "yolo"


SESSION_ID_PREFIX = "sess_"


def new_session_id() -> str:
    """A fresh session id: `sess_` and 16 hex digits."""
    return SESSION_ID_PREFIX + secrets.token_hex(8)


@dataclass(frozen=True)
class StateView:
    """What a hook may read of the state; frozen, so a hook cannot change it."""

    plan_mode: bool
    permission_mode: PermissionMode
    session_id: str


@dataclass
class AppState:
    """The session's modes and id; every change is emitted as an event."""

    permission_mode: PermissionMode = PermissionMode.BUILD
    session_id: str = field(default_factory=new_session_id)
    events: EventBus = field(default_factory=EventBus)
    layer_state: dict[str, Any] = field(default_factory=dict)  # a seam: what layers keep (todos)
    _plan_mode: bool = field(default=False, repr=False)

    @property
    def plan_mode(self) -> bool:
        """Read-only: only enter_plan_mode and leave_plan_mode change it."""
        return self._plan_mode

    @property
    def mode_label(self) -> str:
        """The mode as the user names it: plan, build, edit or yolo."""
        return mode_label(self._plan_mode, self.permission_mode.value)

    def view(self) -> StateView:
        """A frozen snapshot for hooks."""
        return StateView(self._plan_mode, self.permission_mode, self.session_id)

    def enter_plan_mode(self, cause: str) -> bool:
        """Turn plan mode on; False when it already was."""
        if self._plan_mode:
            return False
        self._plan_mode = True
        self._record(cause)
        return True

    def leave_plan_mode(self, cause: str, then: PermissionMode | None = None) -> bool:
        """The one place the plan flag goes off (into `then`, else the mode before); False if off."""
        if not self._plan_mode:
            return False
        self._plan_mode = False
        self.permission_mode = then or self.permission_mode
        self._record(cause)
        return True

    def set_permission_mode(self, mode: PermissionMode, cause: str) -> None:
        """Switch build, edit or yolo; plan mode, if on, stays on."""
        self.permission_mode = mode
        self._record(cause)

    def _record(self, cause: str) -> None:
        self.events.emit(ModeChanged(self._plan_mode, self.permission_mode.value, cause))
