"""A quiz question: a prompt, its choices, the index of the right one, and why.

`dealt` draws a run's questions with their choices shuffled so that the right
answers are spread evenly over the letters: answering the same letter every
time scores at most one question in each len(choices), never a pattern to learn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Question:
    """One multiple-choice question with its explanation."""

    prompt: str
    choices: tuple[str, ...]
    answer: int
    why: str

    def with_answer_at(self, place: int, rng: random.Random) -> "Question":
        """The same question, its choices shuffled so the right one stands at `place`."""
        others = [choice for index, choice in enumerate(self.choices) if index != self.answer]
        rng.shuffle(others)
        others.insert(place, self.choices[self.answer])
        return replace(self, choices=tuple(others), answer=place)


def dealt(pool: list[Question], count: int, rng: random.Random) -> list[Question]:
    """`count` questions of the pool, their right answers spread evenly over the letters."""
    drawn = rng.sample(pool, min(count, len(pool)))
    width = min(len(question.choices) for question in drawn) if drawn else 1
    places = [index % width for index in range(len(drawn))]
    rng.shuffle(places)
    return [question.with_answer_at(place, rng) for question, place in zip(drawn, places)]
