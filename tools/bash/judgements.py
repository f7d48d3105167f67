"""The two answers the Bash judges give: READ_ONLY, and `unsafe` with the reason.

The classifier (classifier/) and the sandbox's narrowing of a call (sandbox/) speak
in these; the core knows only the Judgement record itself (tools/base.py).
"""

from __future__ import annotations

from tools.base import Judgement

READ_ONLY = Judgement(True)


def unsafe(rule: str, token: str = "", alternative: str = "") -> Judgement:
    """A judgement that the call could change something, saying why."""
    return Judgement(False, rule, token, alternative)
