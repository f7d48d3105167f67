"""The plan-mode guard: line 2 of the defence, a PreToolUse hook that denies.

An allowlist with default deny. While planning, a call passes only if it cannot
change anything: its tool is read-only, or only touches session state
(`allowed_in_plan_mode`, like TodoWrite and ExitPlanMode), or its own judge says
this call is read-only (Bash with a read-only command). Everything else is
denied, never asked, so no permission answer and no mode (yolo included) can
let it through. A new write tool is denied until someone marks it safe, and so
is a tool whose safety depends on its arguments but has no judge (the core's
plain Bash). A tool may carry a `plan_mode_hint`, added to its denial to say
what to do instead. Outside plan mode the guard lets everything through.
"""

from __future__ import annotations

from hooks.registry import ToolCallEvent

NAME = "plan-mode-guard"


def plan_mode_guard(event: ToolCallEvent) -> str | None:
    """Deny, with a reason that teaches, any call that could change the system while planning."""
    tool, state = event.tool, event.state
    if not state.plan_mode or tool.allowed_in_plan_mode:
        return None
    judgement = event.judgement
    if judgement.read_only:
        return None
    return (f"Denied by {NAME} (rule: plan-mode-allowlist): plan mode is active, and {tool.name} "
            f"could change the system ({judgement.explain()}) Nothing was run. Keep researching "
            "with read-only tools, then present your plan with ExitPlanMode; changes can be made "
            "after the user approves it." + (f" {tool.plan_mode_hint}" if tool.plan_mode_hint else ""))
