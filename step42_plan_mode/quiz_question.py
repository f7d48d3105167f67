"""A quiz question: a prompt, its choices, the index of the right one, and why."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
    """One multiple-choice question with its explanation."""

    prompt: str
    choices: tuple[str, ...]
    answer: int
    why: str
