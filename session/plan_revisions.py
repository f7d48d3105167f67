"""Plan revisions: every plan the user reviewed, kept in the session store with how its review ended.

Part of the session store's layer (line 3's record). Each ExitPlanMode review
(a PlanReviewed event) is one revision: the exact text the user saw (their own
edits included), its SHA-256 digest, the outcome, the feedback given, the diff
of the user's edits and the mode after it. The journal numbers them, writes
them to the `plan_revisions` table and puts the digest in the audit trail, so
/trace names the revision an approval approved. The review of the next
revision shows what changed since this one, and the feedback that led to it;
the last one saved for later (s) or left by -p is the pending plan (/plan show,
/plan approve). Presenting that same text again reviews the same revision: its
number stays and its outcome is the new review's (unless the review was no
answer: Ctrl-C or a broken review leave it pending), so waiting adds no
revision. A pending plan's file goes when its review ends without approving or
saving it, so no file in .stepagent/plans/ looks pending that is not.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from agent.events import PlanReviewed
from tools.workspace import OutsideWorkspace, inside, plan_path


@dataclass(frozen=True)
class Revision(PlanReviewed):
    """A reviewed plan (the PlanReviewed event: the text shown, how it ended), numbered in its session."""

    number: int = 0


def saved_plan(workspace: Path, session_id: str) -> Path | None:
    """The plan ExitPlanMode saved for this session, if it exists inside the workspace, else None.

    What reads it again: /plan, the plan-mode reminder, compaction's continuity, /rewind.
    """
    try:
        path = inside(workspace, plan_path(session_id))
    except OutsideWorkspace:
        return None
    return path if path.is_file() else None


def plan_diff(before: str, after: str, old_name: str, new_name: str) -> str:
    """A unified diff of two plans ('' when they are the same)."""
    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True), old_name, new_name))


PENDING = {"save", "pending"}
UNANSWERED = {"interrupted", "error"}
DROPPED = {"reject", "feedback", "left"}


def pending_plan(revisions: list[Revision]) -> Revision | None:
    """The plan awaiting approval: saved for later (s) or left by -p, and not reviewed since."""
    return revisions[-1] if revisions and revisions[-1].outcome in PENDING else None


def reviewed_again(revisions: list[Revision], plan: str) -> Revision | None:
    """The pending revision when `plan` is its very text (its review again), else None."""
    pending = pending_plan(revisions)
    return pending if pending is not None and pending.plan == plan else None


def record_review(revisions: list[Revision], review: PlanReviewed) -> Revision:
    """Add the review to `revisions`; returns its revision, the next one or the pending one again."""
    again = reviewed_again(revisions, review.plan)
    if again is not None and review.outcome in UNANSWERED:
        return again
    if again is not None:
        revisions.pop()
    revisions.append(Revision(**vars(review), number=len(revisions) + 1))
    return revisions[-1]


def drop_pending_file(workspace: Path, session_id: str, revisions: list[Revision],
                      review: PlanReviewed) -> None:
    """Remove the pending plan's file when this review rejects it, sends feedback or leaves.

    Only a file that still holds the pending text goes (OSError is left to the caller).
    """
    pending = pending_plan(revisions)
    path = saved_plan(workspace, session_id)
    if (pending is not None and review.outcome in DROPPED and path is not None
            and path.read_text(encoding="utf-8", errors="replace") == pending.plan):
        path.unlink()
