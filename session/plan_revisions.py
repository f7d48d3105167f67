"""Plan revisions: every plan the user reviewed, kept in the session store with how its review ended.

Part of the session store's layer (line 3's record). Each ExitPlanMode review
(a PlanReviewed event) is one revision: the exact text the user saw (their own
edits included), its SHA-256 digest, the outcome, the feedback given, the diff
of the user's edits and the mode after it. The journal numbers them, writes
them to the `plan_revisions` table and puts the digest in the audit trail, so
/trace names the revision an approval approved. The review of the next
revision shows what changed since this one, and the feedback that led to it;
the last one saved for later is the pending plan (/plan show, /plan approve).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from agent.events import PlanReviewed


@dataclass(frozen=True)
class Revision(PlanReviewed):
    """A reviewed plan (the PlanReviewed event: the text shown, how it ended), numbered in its session."""

    number: int = 0


def plan_diff(before: str, after: str, old_name: str, new_name: str) -> str:
    """A unified diff of two plans ('' when they are the same)."""
    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True), old_name, new_name))


def pending_plan(revisions: list[Revision]) -> Revision | None:
    """The plan saved for later (s) and not reviewed since, if the last review saved one."""
    return revisions[-1] if revisions and revisions[-1].outcome == "save" else None
