"""The records of a session's story, as the HTML page tells it: turns, calls, decisions, plan spans.

Part of the session store, for the export: session/story.py fills them in one
pass over the stored entries, ui/page.py draws them. They hold the session's
own text, unescaped. `review_answer` is the one reading of how a plan review
ended: its kind from the answer the journal stored (approve, feedback, reject,
save, …), or from the line the user saw in a session stored before answers
were kept, and that line as its words.
"""

from __future__ import annotations

import re
from ast import literal_eval
from dataclasses import dataclass, field
from typing import Any

from agent.executor import LEFT_QUESTION

RULE = re.compile(r"\brule:? ([^;:.)]+)")
TOKEN = re.compile(r"unsafe token: ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
KINDS = {"approve": "approved", "cleared": "approved", "feedback": "feedback", "reject": "rejected",
         "save": "saved", "left": "left", "pending": "pending", "error": "failed", "interrupted": "failed"}
FAILED = {"error": "the review failed: not approved", "interrupted": "the review was interrupted: not approved"}
SUMMARY_KINDS = (("plan approved", "approved"), ("not approved", "feedback"), ("plan rejected", "rejected"),
                 ("plan awaits approval", "pending"))


def review_answer(outcome: str, answer: str = "") -> tuple[str, str]:
    """How a review ended, (kind, words): approved, feedback, rejected, saved, left, pending or failed.

    `outcome` is the line the user saw, `answer` the review's own word (sessions stored before
    reviews kept it have only the line).
    """
    kind = KINDS.get(answer) or next((kind for start, kind in SUMMARY_KINDS if outcome.startswith(start)), "")
    return kind, FAILED.get(outcome, outcome)


@dataclass
class Decision:
    """One hook decision: the verdict, who gave it, why, and the rules and token it names."""

    tool: str
    decision: str
    hook: str
    reason: str
    asked: bool
    subject: str
    agent: str = ""
    left_with: str = ""  # the command the user left the question with: nobody decided

    @property
    def by(self) -> str:
        """Who decided: `by you` when the user was asked, else `by` the hook, '' for none."""
        if self.left_with:
            return LEFT_QUESTION.format(self.left_with).removeprefix("not run: ")
        return "by you" if self.asked else f"by {self.hook}" if self.hook else ""

    @property
    def rules(self) -> list[str]:
        """The rules the reason names (the hook's, then the judge's), in order."""
        return [rule.strip() for rule in RULE.findall(self.reason)]

    @property
    def token(self) -> str:
        """The token that made the call unsafe, when the reason names one."""
        found = TOKEN.search(self.reason)
        try:
            return str(literal_eval(found.group(1))) if found else ""
        except (ValueError, SyntaxError):
            return found.group(1)[1:-1] if found else ""


@dataclass
class Call:
    """One tool call: its arguments, decision, diff and result, numbered in the session."""

    number: int
    id: str
    name: str
    arguments: Any
    decision: Decision | None = None
    started: bool = False
    change: str = ""
    result: str | None = None

    @property
    def argument_dict(self) -> dict[str, Any]:
        """The arguments when they are a JSON object, else empty."""
        return self.arguments if isinstance(self.arguments, dict) else {}


@dataclass
class Revision:
    """A plan put to the user: the text shown, its SHA-256, the answer, the feedback and edits with it.

    The answer has a kind and the words the user saw. What led to revision N is revision
    N-1's answer and feedback.
    """

    number: int
    turn: int
    call: int
    plan: str
    kind: str = ""
    outcome: str = ""
    feedback: str = ""
    edits: str = ""
    digest: str = ""


@dataclass
class PlanSpan:
    """A stretch of plan mode: the turns it covers, what began it, how it ended."""

    first_turn: int
    entered_by: str
    last_turn: int = 0
    ended: str = ""
    reviews: list[Revision] = field(default_factory=list)


@dataclass
class Turn:
    """A user prompt and everything that followed it until the next prompt."""

    number: int
    prompt: str
    items: list[tuple[str, Any]] = field(default_factory=list)
    reported: tuple[int, int] = (0, 0)
    estimated: tuple[int, int] = (0, 0)
    ending: str = ""

    def tokens(self, reported: bool) -> tuple[int, int]:
        """(input, output) tokens: what the server reported, or the estimate."""
        return self.reported if reported else self.estimated


@dataclass
class Story:
    """The whole session as the page tells it."""

    session_id: str
    opened_in: str
    turns: list[Turn]
    calls: list[Call]
    decisions: list[Decision]
    spans: list[PlanSpan]
    revisions: list[Revision]
    todo_lists: list[tuple[int, list[dict[str, Any]]]]
    tokens_reported: bool
    messages: int
