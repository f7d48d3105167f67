"""Judgement: whether a call can change anything, and if so, what to tell the model.

Denials teach: they name the rule that refused the call, the token that made it
unsafe, and a read-only alternative where one exists.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Judgement:
    """Whether a call can change anything, and if so the rule, token and alternative.

    A read-only judgement may carry in `rule` why it passed (the Bash quiz explains with it).
    """

    read_only: bool
    rule: str = ""
    token: str = ""
    alternative: str = ""

    def explain(self) -> str:
        """One paragraph for a denial: rule, token, alternative."""
        parts = [f"rule: {self.rule}"]
        if self.token:
            parts.append(f"unsafe token: {self.token!r}")
        text = "; ".join(parts) + "."
        if self.alternative:
            text += f" Read-only alternative: {self.alternative}"
        return text


READ_ONLY = Judgement(True)


def unsafe(rule: str, token: str = "", alternative: str = "") -> Judgement:
    """A judgement that the call could change something, saying why."""
    return Judgement(False, rule, token, alternative)
