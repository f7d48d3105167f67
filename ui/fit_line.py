"""One line of facts laid out to the terminal's width: the least important gives way first.

The REPL's bottom toolbar is such a line (ui/prompt.py: `toolbar`). Each fact has its
forms, richest first; a form with no text drops it. While the line is wider than
the terminal, the next step of the giving-way order moves one fact to its next form:
shorter labels first, then the least important fact dropped. If even the barest line
is too wide, its end is cut with an ellipsis, so a long model name (the last fact) is
what a very narrow terminal loses, never the mode.
"""

from __future__ import annotations

from collections.abc import Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples, fragment_list_width
from prompt_toolkit.utils import get_cwidth

Fragments = StyleAndTextTuples
SEPARATOR = "  ·  "


def fitted(facts: Sequence[Sequence[Fragments]], giving_way: Sequence[int], columns: int) -> Fragments:
    """The facts in order, each in the richest form that lets the line fit `columns`.

    `facts[i]` lists fact i's forms, richest first; `giving_way` is the order of the steps
    (a fact's index, once per step it may take toward its barest form).
    """
    widths = [[fragment_list_width(form) for form in forms] for forms in facts]
    chosen = [0] * len(facts)
    steps = iter(giving_way)
    while _width(widths, chosen) > columns and (index := next(steps, None)) is not None:
        chosen[index] = min(chosen[index] + 1, len(facts[index]) - 1)
    line: Fragments = []
    for index, form in enumerate(chosen):
        if widths[index][form]:
            line += ([("", SEPARATOR)] if line else []) + list(facts[index][form])
    return line if _width(widths, chosen) <= columns else _cut(line, columns)


def _width(widths: list[list[int]], chosen: list[int]) -> int:
    """The line's width with these forms: theirs, and a separator between each two shown."""
    shown = [widths[index][form] for index, form in enumerate(chosen) if widths[index][form]]
    return sum(shown) + len(SEPARATOR) * max(len(shown) - 1, 0)


def _cut(line: Fragments, columns: int) -> Fragments:
    """The line's first `columns` cells, the last one an ellipsis."""
    kept: Fragments = []
    room = columns - 1
    for style, text, *_ in line:
        taken = ""
        for character in text:
            if get_cwidth(character) > room:
                return kept + [(style, taken), ("", "…")]
            taken += character
            room -= get_cwidth(character)
        kept.append((style, taken))
    return kept
