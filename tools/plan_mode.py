"""EnterPlanMode and ExitPlanMode: the ways into plan mode and the one way out.

ExitPlanMode is line 3 of the defence. It holds no UI: `present(plan)` is
injected by index.py (a fake in tests) and answers with a PlanReview (the UI
reads the user's y/e/n into one: ui/callbacks.py `plan_review`). It runs only
while planning; outside plan mode it refuses and nobody is asked. The four
outcomes:
  approve  → plan saved, plan mode left through state.leave_plan_mode, model told to start
             (in the mode in force before, or in the one the user chose: edit accepts edits)
  feedback → "not approved" as the result, the feedback as a real user message
  reject   → the turn ends after this result; plan mode stays on
  pending  → nobody can review it now (-p): the turn ends as for reject, and the model is
             told the plan awaits the user's approval, not that it was turned down
A rejection is a state the model is told about, never an error to retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from state import AppState, PermissionMode
from tools import plan_mode_text
from tools.base import Tool, ToolResult, error, object_schema
from tools.plan_file import save_plan

ENTER_PLAN_MODE = "EnterPlanMode"
EXIT_PLAN_MODE = "ExitPlanMode"
APPROVED = "The user approved your plan."
WORKING_MODES = {
    PermissionMode.BUILD: "the user is asked before each file change or command that changes things",
    PermissionMode.EDIT: "Write and Edit run without asking; commands that change things are still asked",
    PermissionMode.YOLO: "nothing is asked",
}
NOT_APPROVED = ("The user did not approve the plan. You are still in plan mode: read the user's "
                "message that follows, revise the plan, and call ExitPlanMode again.")
REJECTED = ("The user rejected the plan and wants to talk it over. You are still in plan mode. "
            "Do not call ExitPlanMode again until the user has spoken.")
NOT_PLANNING = ("ExitPlanMode refused (rule: exit-only-in-plan-mode): plan mode is not active, so "
                "there is nothing to exit. Carry on with the task.")
PENDING = ("Nobody could review the plan in this run, so it awaits the user's approval: it is "
           "neither approved nor rejected, and nothing was saved. You are still in plan mode. Stop "
           "here; when the user speaks next, call ExitPlanMode again so they can review the plan.")


@dataclass(frozen=True)
class PlanReview:
    """The user's review of a plan; an approval may name the mode to carry on in."""

    outcome: Literal["approve", "feedback", "reject", "pending"]
    feedback: str = ""
    mode: PermissionMode | None = None


def make_plan_mode_tools(workspace: Path, state: AppState,
                         present: Callable[[str], PlanReview]) -> list[Tool]:
    """EnterPlanMode and ExitPlanMode, with ExitPlanMode's review injected as `present`."""
    def enter(args: dict[str, Any]) -> ToolResult:
        entered = state.enter_plan_mode(ENTER_PLAN_MODE)
        return ToolResult(("" if entered else "Plan mode was already on.\n") +
                          plan_mode_text.full_instructions())

    def exit_plan(args: dict[str, Any]) -> ToolResult:
        if not state.plan_mode:
            return error(NOT_PLANNING)
        plan = args["plan"].strip()
        if not plan:
            return error("The plan is empty; write the plan as markdown in the plan argument.")
        review = present(plan)
        if review.outcome == "feedback":
            return ToolResult(NOT_APPROVED, follow_up=review.feedback,
                              summary="not approved: your feedback goes to the model")
        if review.outcome == "reject":
            return ToolResult(REJECTED, end_turn=True, summary="plan rejected")
        if review.outcome == "pending":
            return ToolResult(PENDING, end_turn=True,
                              summary="plan awaits approval: nobody can review it in this run")
        try:
            where = f"The plan is saved at {save_plan(workspace, state.session_id, plan)}."
        except OSError as exc:
            where = f"The plan could not be saved ({exc.strerror}); it is quoted below."
        state.leave_plan_mode("ExitPlanMode approval", then=review.mode)
        mode = state.permission_mode
        return ToolResult(f"{APPROVED} Plan mode is off: you can now make changes. You are in "
                          f"{mode.value} mode: {WORKING_MODES[mode]}. {where} Start with updating your todo list if you keep one.\n\n"
                          f"## Approved Plan:\n{plan}", summary=f"plan approved ({state.mode_label} mode)")

    return [
        Tool(ENTER_PLAN_MODE, "Switch to plan mode before a non-trivial change: research with "
             "read-only tools, then present a plan with ExitPlanMode. No approval needed to enter.",
             object_schema({}), enter, allowed_in_plan_mode=True),
        Tool(EXIT_PLAN_MODE, "Present your implementation plan (markdown) to the user for approval. "
             "This is the only way to leave plan mode; never ask 'is this plan OK?' in prose.",
             object_schema({"plan": {"type": "string", "description": "The plan, in markdown."}}),
             exit_plan, allowed_in_plan_mode=True, requires_user=True),
    ]
