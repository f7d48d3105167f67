"""The session list: one line per stored session (/resume, --resume without an id).

Part of the session store (store.py, which fills these records with one query):
the SQL that finds each session's first prompt and last mode, and how a
session reads on one line. A prompt the user did not type, the approval that
`c` hands a fresh conversation, reads as the approved plan's title.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agent.events import mode_label
from tools.plan_mode import APPROVED, BUILD

PLAN_HEADING = BUILD.removesuffix("{plan}").rsplit("\n\n", 1)[-1]  # what the approved plan follows


@dataclass(frozen=True)
class SessionInfo:
    """One line of the session list: id, workspace, age, size, its first prompt and last mode."""

    id: str
    workspace: str
    updated: float
    entries: int
    first_prompt: str = ""
    mode: str = "build"

    def line(self, now: float, current: str = "") -> str:
        """The session as one line for the user; `current` (this session's id) is marked."""
        mark = "●" if self.id == current else " "
        prompt = " ".join(as_spoken(self.first_prompt).split())
        prompt = prompt if len(prompt) <= PROMPT_WIDTH else prompt[:PROMPT_WIDTH - 1] + "…"
        this = "  (this session)" if self.id == current else ""
        return (f"{mark} {self.id}  {age(now - self.updated):>{AGE_WIDTH}}  {self.mode:5}  "
                f"{prompt or '(no prompt yet)'}{this}")


def as_spoken(prompt: str) -> str:
    """A user message as lists show it: the user's words, or the title of a plan handed over.

    The approval a fresh conversation starts with (`c` at the review) reads as
    "(plan approved: TITLE)".
    """
    if not prompt.startswith(APPROVED):
        return prompt
    plan = prompt.rpartition(PLAN_HEADING)[2]
    title = next((line.strip("# ") for line in plan.splitlines() if line.strip("# ")), "")
    return f"(plan approved: {title})" if title else "(plan approved)"


def age(seconds: float) -> str:
    """How long ago, the way people say it: `just now`, `5 min ago`, `3 h ago`, `2 d ago`."""
    minutes = int(max(seconds, 0) // 60)
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{minutes} min ago"
    if minutes < 24 * 60:
        return f"{minutes // 60} h ago"
    return f"{minutes // (24 * 60)} d ago"


PROMPT_WIDTH = 60
AGE_WIDTH = len("59 min ago")
FIRST_PROMPT = ("SELECT json_extract(f.payload, '$.content') FROM entries f WHERE f.session_id = s.id "
                "AND f.kind = 'message' AND json_extract(f.payload, '$.role') = 'user' "
                "AND json_type(f.payload, '$.content') = 'text' "
                "AND json_extract(f.payload, '$.content') NOT LIKE '<system-reminder%' "
                "ORDER BY f.seq LIMIT 1")
LAST_MODE = ("SELECT f.payload FROM entries f WHERE f.session_id = s.id AND f.kind = 'mode' "
             "ORDER BY f.seq DESC LIMIT 1")


def mode_name(payload: str | None) -> str:
    """plan, build, edit or yolo from a stored mode change; build when there is none."""
    try:
        change = json.loads(payload) if payload else {}
        return mode_label(bool(change.get("plan_mode")), str(change.get("permission_mode") or "build"))
    except (TypeError, ValueError, AttributeError):
        return "build"
