"""The permission-mode hook: asks the user before risky calls, outside plan mode.

  build → ask before Write, Edit and any Bash command that is not read-only
  edit  → Write and Edit run; ask before Bash that is not read-only
  yolo  → ask nothing

Tools that only change session state never ask; tools that require the user
(ExitPlanMode) reach the user through their own callback, in every mode. This
hook runs after the deny hooks, so a "yes" here never meets a plan-mode denial.
"""

from __future__ import annotations

from hooks.registry import ToolCallEvent
from state import PermissionMode

NAME = "permission-mode"
WORKSPACE_EDITS = {"Write", "Edit"}


def permission_ask(event: ToolCallEvent) -> str | None:
    """A question for the user when the permission mode wants one for this call."""
    tool, mode = event.tool, event.state.permission_mode
    if mode is PermissionMode.YOLO or tool.allowed_in_plan_mode or tool.requires_user:
        return None
    if mode is PermissionMode.EDIT and tool.name in WORKSPACE_EDITS:
        return None
    judgement = event.judgement
    if judgement.read_only:
        return None
    return f"{tool.name} can change the system ({judgement.rule}). Allow it in {mode.value} mode?"
