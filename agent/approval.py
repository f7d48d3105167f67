"""A permission question and its answer: what the core hands the injected `approve` callback.

The executor builds a PermissionRequest when an ask hook wants the user: the
tool, its arguments, the hook's reason and the preview of what will run or change
(tools/base.py: Preview). The UI shows it and answers with a PermissionAnswer. The core stays
UI-free: these are data. A "don't ask again" rule is a layer's (hooks/session_rules.py):
it names the rule it offers in the request, and keeps it when a yes says `remember`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal, Union

from tools.base import Preview

Keeper = Literal["session", "project", "user"]  # where a remembered rule is kept


@dataclass(frozen=True)
class PermissionRequest:
    """One call waiting for the user: what it is, why they are asked, what it will do.

    `rule` is the rule a "don't ask again" yes would add, as the user reads it ('' when none).
    """

    tool: str
    args: dict[str, Any]
    reason: str
    preview: Preview | None = None
    rule: str = ""


@dataclass(frozen=True)
class PermissionAnswer:
    """Yes or no; a yes may remember its rule (`kept` says where), a no may carry feedback.

    `unanswered` is set when no person could answer (a -p run): it says why, and the
    denial is that reason's, not the user's.
    """

    allow: bool
    remember: bool = False
    feedback: str = ""
    unanswered: str = ""
    kept: Keeper = "session"


Approve = Callable[[PermissionRequest], Union[PermissionAnswer, bool]]


def as_answer(answer: PermissionAnswer | bool) -> PermissionAnswer:
    """A plain True or False (what simple callers return) as an answer."""
    return answer if isinstance(answer, PermissionAnswer) else PermissionAnswer(bool(answer))
