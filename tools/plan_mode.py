"""EnterPlanMode and ExitPlanMode: the ways into plan mode and the one way out, and the words
plan mode says to the model.

The words are written once. The system prompt's plan section (agent/prompt.py) carries the
instructions (RULES, WORKFLOW, EXIT), at every request and only there; EnterPlanMode's result
and the plan-mode reminder (session/reminders.py) point at them, so each reaches the model
once per request. (A sub-agent started while planning gets its own words instead,
agent/subagents.py: it has no way out of plan mode.)

ExitPlanMode is line 3 of the defence. It holds no UI: `present(plan)` is injected
by ui/product.py (a fake in tests) and answers with a PlanReview carrying the exact text
the user saw last, their own edits included. That text is what is approved, saved
byte for byte and named by its SHA-256 in the trace (PlanReviewed). It runs only
while planning. RESULTS is the table of how a review can end and what the model is
told; Ctrl-C at the review goes on to the loop (the turn is cancelled) and a failing
review ends the turn: neither is an answer, so neither approves. A rejection is a
state the model is told about, never an error to retry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from agent.events import PlanReviewed
from state import AppState, PermissionMode
from tools.base import QuestionLeft, Tool, ToolResult, error, object_schema
from tools.workspace import plan_digest, plan_text, save_plan

ENTER_PLAN_MODE = "EnterPlanMode"
EXIT_PLAN_MODE = "ExitPlanMode"

RULES = ("Plan mode is active. The user wants a plan before any change: do not edit files, run "
         "commands that change anything, commit, or change configuration. Calls that could change "
         "the system are denied.")
WORKFLOW = """Work in four phases:
1. Understand: read the code that matters with Read, Glob, Grep and read-only Bash (ls, cat, git status/log/diff/show…). For a wide search you may send up to 3 explore sub-agents at once (several Agent calls in one reply, subagent_type explore), each with its own question.
2. Design: choose an approach; note the files to change, in what order, and how to verify the result.
3. Review: if a decision is genuinely the user's, ask it with AskUserQuestion; otherwise choose sensible defaults.
4. Present: call ExitPlanMode with the plan as concise, step-by-step markdown, and wait for the user's review."""
EXIT = ("ExitPlanMode is how the user sees and approves a plan: never ask \"is this plan OK?\" in "
        "prose. If the user rejects the plan, wait for them to speak before presenting again. The "
        "user can also leave plan mode themselves (/mode or Shift+Tab); you will be told when that "
        "happens.")
ENTERED = ("Its instructions lead the system prompt from the next request on. Research first; "
           "do not write or edit any file yet.")

WORKING_MODES = {
    PermissionMode.BUILD: "the user is asked before each file change or command that changes things",
    PermissionMode.EDIT: "Write and Edit run without asking; commands that change things are still asked",
    PermissionMode.YOLO: "nothing is asked",
}
APPROVED = "The user approved your plan."
BUILD = ("Plan mode is off: you can now make changes. You are in {mode} mode: {working}. {where} "
         "Start with updating your todo list if you keep one.{edits}\n\n## Approved Plan:\n{plan}")
NOT_APPROVED = ("The user did not approve the plan. You are still in plan mode: read the user's "
                "message that follows, revise the plan, and call ExitPlanMode again.")
REJECTED = ("The user rejected the plan and wants to talk it over. You are still in plan mode. "
            "Do not call ExitPlanMode again until the user has spoken.")
NOT_PLANNING = ("ExitPlanMode refused (rule: exit-only-in-plan-mode): plan mode is not active, so "
                "there is nothing to exit. Carry on with the task.")
PENDING = ("Nobody could review the plan in this run, so it awaits the user's approval: it is "
           "neither approved nor rejected, and nothing was saved. You are still in plan mode. Stop "
           "here; when the user speaks next, call ExitPlanMode again so they can review the plan.")
RESULTS = {
    # outcome: (what the model is told, whether the turn ends, the line the user sees)
    "approve": (f"{APPROVED} {BUILD}", False, "plan approved ({mode} mode)"),
    "cleared": (f"{APPROVED} {BUILD}", True, "plan approved: the build starts in a fresh conversation"),
    "feedback": (NOT_APPROVED + "{edits}", False, "not approved: your feedback goes to the model"),
    "reject": (REJECTED, True, "plan rejected"),
    "save": ("The user saved your plan for later. {where} It is not approved yet: you are still "
             "in plan mode. Stop here; the user approves it later (/plan approve) or speaks next.",
             True, "plan saved for later: /plan show prints it, /plan approve reviews it again"),
    "left": ("The user " + QuestionLeft.TOLD.format("{left_by}", "approving your plan; nothing was "
                                                    "saved", "{mode_label}"), True,
             "plan not approved: you left with {left_by}"),
    "pending": (PENDING, True, "plan awaits approval: nobody can review it in this run"),
}
REVIEW_FAILED = ("The review of your plan could not be shown ({failure}), so the plan is not "
                 "approved and you are still in plan mode. Stop here and tell the user.")


def full_instructions() -> str:
    """Rules, workflow and the way out: the whole of what plan mode asks."""
    return f"{RULES}\n{WORKFLOW}\n{EXIT}"


@dataclass(frozen=True)
class PlanReview:
    """The user's review of a plan, with the exact text they saw last.

    `plan` is that text ('' = as presented), `edits` the diff of their own changes; an
    approval may name the mode to build in, and `clear` a fresh conversation (c)."""

    outcome: Literal["approve", "feedback", "reject", "save", "left", "pending"]
    feedback: str = ""
    mode: PermissionMode | None = None
    clear: bool = False
    plan: str = ""
    edits: str = ""
    left_by: str = ""


def make_plan_mode_tools(workspace: Path, state: AppState,
                         present: Callable[[str], PlanReview]) -> list[Tool]:
    """EnterPlanMode and ExitPlanMode, with ExitPlanMode's review injected as `present`."""
    def enter(args: dict[str, Any]) -> ToolResult:
        entered = state.enter_plan_mode(ENTER_PLAN_MODE)
        return ToolResult(("Plan mode is on. " if entered else "Plan mode was already on. ") +
                          ENTERED)

    def exit_plan(args: dict[str, Any]) -> ToolResult:
        if not state.plan_mode:
            return error(NOT_PLANNING)
        plan = plan_text(args["plan"])
        if not plan.strip():
            return error("The plan is empty; write the plan as markdown in the plan argument.")
        try:
            review = present(plan)
        except BaseException as failure:  # Ctrl-C or a broken review: recorded, never an answer
            broken = isinstance(failure, Exception)
            state.events.emit(PlanReviewed(plan, plan_digest(plan), "error" if broken else "interrupted"))
            if not broken:
                raise
            return ToolResult(REVIEW_FAILED.format(failure=f"{type(failure).__name__}: {failure}"),
                              is_error=True, end_turn=True, summary="the review failed: not approved")
        shown = review.plan or plan
        outcome = "cleared" if review.outcome == "approve" and review.clear else review.outcome
        where = ""
        if outcome in {"approve", "cleared", "save"}:
            try:
                where = f"The plan is saved at {save_plan(workspace, state.session_id, shown)}."
            except OSError as exc:
                where = f"The plan could not be saved ({exc.strerror}); it is quoted below."
        if outcome in {"approve", "cleared"}:
            state.leave_plan_mode("ExitPlanMode approval", then=review.mode)
        text, end_turn, summary = RESULTS[outcome]
        edits = (f"\n\nThe user edited the plan before answering; this diff of their edits is part "
                 f"of their answer:\n```diff\n{review.edits}```" if review.edits else "")
        facts = {"mode": state.permission_mode.value, "working": WORKING_MODES[state.permission_mode],
                 "where": where, "plan": shown, "edits": edits, "left_by": review.left_by,
                 "mode_label": state.mode_label}
        state.events.emit(PlanReviewed(shown, plan_digest(shown), outcome, review.feedback,
                                       review.edits, state.mode_label, summary.format(**facts)))
        return ToolResult(text.format(**facts), end_turn=end_turn,
                          follow_up=review.feedback if outcome == "feedback" else None,
                          summary=summary.format(**facts))

    return [
        Tool(ENTER_PLAN_MODE, "Switch to plan mode before a non-trivial change: research with "
             "read-only tools, then present a plan with ExitPlanMode. No approval needed to enter.",
             object_schema({}), enter, allowed_in_plan_mode=True),
        Tool(EXIT_PLAN_MODE, "Present your implementation plan (markdown) to the user for approval. "
             "This is the only way to leave plan mode; never ask 'is this plan OK?' in prose.",
             object_schema({"plan": {"type": "string", "description": "The plan, in markdown."}}),
             exit_plan, allowed_in_plan_mode=True, requires_user=True),
    ]

