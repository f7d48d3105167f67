"""The modes as the user names them, in Shift+Tab's order, and the step from one to the next.

--mode, /mode and Shift+Tab read them. This module imports nothing, so the command line lists
the modes without loading the agent (tests/test_launch.py); a mode changes only through the
state's own functions (state.py: `AppState.select`), which the plan flag's rules live in.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's flag, as in ui/command_line.py: importing typing costs --help
if TYPE_CHECKING:
    from state import AppState

MODE_CYCLE = ("plan", "build", "edit", "yolo")


def cycle(state: AppState, cause: str) -> None:
    """Shift+Tab: plan → build → edit → yolo → plan."""
    following = MODE_CYCLE[(MODE_CYCLE.index(state.mode_label) + 1) % len(MODE_CYCLE)]
    state.select(following, cause)
