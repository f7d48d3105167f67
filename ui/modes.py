"""The modes as the user names them, in Shift+Tab's order: the step from one to the next, and
the switch to one by its name.

--mode, /mode and Shift+Tab read them. This module imports nothing at its top, so the command
line lists the modes without loading the agent (tests/test_launch.py); a mode changes only
through the state's own functions (state.py), which the plan flag's rules live in.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag, as in ui/command_line.py: importing typing costs --help
if TYPE_CHECKING:
    from state import AppState

MODE_CYCLE = ("plan", "build", "edit", "yolo")


def cycle(state: AppState, cause: str) -> None:
    """Shift+Tab: plan → build → edit → yolo → plan."""
    following = MODE_CYCLE[(MODE_CYCLE.index(state.mode_label) + 1) % len(MODE_CYCLE)]
    select(state, following, cause)


def select(state: AppState, label: str, cause: str) -> None:
    """Switch to a mode by its name as the user types it (plan, build, edit, yolo)."""
    from state import PermissionMode

    if label == "plan":
        state.enter_plan_mode(cause)
        return
    mode = PermissionMode(label)
    if state.leave_plan_mode(cause, then=mode):
        return
    if mode is not state.permission_mode:
        state.set_permission_mode(mode, cause)
