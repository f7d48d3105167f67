"""The model's markdown, drawn in time that grows with its length and no faster.

Part of the screen's defences, beside safe_text.py: a model (or a file it
quotes) can send an answer no layout engine draws in reasonable time. rich's
markdown parser is quadratic in nesting depth (a list 1,600 levels deep took
18 s) and its wrapping slow on a single huge block (2 MB took 42 s). So a block
is drawn as markdown only while it is modest; one longer than MARKDOWN_CHARS,
or nested deeper than DEEPEST (a line's lead of spaces, `>` and list markers),
is drawn as plain text the terminal wraps itself, with such leads cut to
DEEPEST characters. Either way the text goes through `safe` first.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.text import Text

from ui.safe_text import safe, safe_markdown

if TYPE_CHECKING:
    from rich.markdown import Markdown

MARKDOWN_CHARS = 64_000
DEEPEST = 80
LEAD = r"(?:[ \t>]|[-*+][ \t]|\d{1,9}[.)][ \t])"
TOO_DEEP = re.compile(rf"^{LEAD}{{{DEEPEST + 1},}}", re.MULTILINE)


def drawable(text: str) -> Markdown | Text:
    """The block as markdown, or as plain text when it is too long or too deep for markdown.

    Print the plain text with soft_wrap=True: the terminal wraps it, in linear time.
    """
    if len(text) <= MARKDOWN_CHARS and not TOO_DEEP.search(text):
        return safe_markdown(text)
    return Text(safe(TOO_DEEP.sub(lambda lead: lead.group()[:DEEPEST], text)))
