"""Streamed markdown, drawn once: finished blocks are printed for good, only the tail is live.

Redrawing the whole answer on every chunk is slow, and once it is taller than
the screen the terminal cannot erase what scrolled off, so partial copies pile
up in the scrollback. Here a block (heading, paragraph, list, code fence,
table) is printed once, as soon as the next block has begun; only the block
still arriving sits in a transient live area, cut to the screen's height (with
the REPL's status line under it, so mode and context use stay in sight), and
it is printed once more, for good, when the reply ends. The text came from the
model, so it is drawn through safe_markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.segment import Segment
from rich.text import Text

from ui.safe_text import safe_markdown
from ui.uninterrupted import uninterrupted

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
LIST_ITEM = re.compile(r"^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)")
# rich starts these with their own blank line; other blocks get one unless a rule came before.
OWN_GAP = {"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"}


def split_finished(text: str) -> tuple[list[str], str]:
    """The blocks of `text` that can no longer change, and the tail that still may.

    A block ends at a blank line outside a code fence, once the next line has
    begun at the margin (an indented line may continue a list item) and does not
    continue a list with another item.
    """
    lines = text.split("\n")
    blocks: list[str] = []
    start, fence, blank_before = 0, "", False
    for index, line in enumerate(lines[:-1]):
        opener = FENCE.match(line)
        if fence:
            fence = "" if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence) else fence
            blank_before = False
            continue
        if blank_before and line and not line[0].isspace():
            block = "\n".join(lines[start:index]).strip("\n")
            if not (LIST_ITEM.match(line) and _is_list(block)):
                if block:
                    blocks.append(block)
                start = index
        blank_before = not line.strip()
        if opener:
            fence = opener.group(1)
    return blocks, "\n".join(lines[start:])


def _is_list(block: str) -> bool:
    return bool(LIST_ITEM.match(block.lstrip("\n")))


@dataclass
class LastLines:
    """The tail as markdown, keeping only the lines that fit on the screen."""

    text: str = ""
    status: str = ""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        status = self.status
        room = max((options.height or console.height) - 1 - bool(status), 1)
        lines = console.render_lines(safe_markdown(self.text), options.update(height=None), pad=False)
        for line in lines[-room:]:
            yield from line
            yield Segment.line()
        if status:
            yield Text(status, style="dim", no_wrap=True, overflow="ellipsis")


@dataclass
class MarkdownStream:
    """One reply's text as it streams in: `feed` each piece, `finish` at the end."""

    console: Console
    status: Callable[[], str] = lambda: ""
    _text: str = ""
    _printed: int = 0
    _gap_after_last: bool = False
    _tail: LastLines = field(default_factory=LastLines)
    _live: Live | None = None

    def feed(self, piece: str) -> None:
        """Add a piece; print the blocks it finished; show the rest live (with the status line)."""
        self._text += piece
        blocks, tail = split_finished(self._text[self._printed:])
        for block in blocks:
            self._print_block(block)
        self._printed = len(self._text) - len(tail)
        self._tail.text = tail
        if self._live is None and self.console.is_terminal and tail.strip():
            self._tail.status = self.status()
            with uninterrupted():
                live = Live(self._tail, console=self.console, refresh_per_second=10,
                            transient=True, vertical_overflow="crop")
                live.start()
                self._live = live

    def finish(self) -> None:
        """The reply ended: print what was live, once, for good."""
        with uninterrupted():
            live, self._live = self._live, None
            if live is not None:
                live.stop()
        rest = self._text[self._printed:].strip("\n")
        if rest:
            self._print_block(rest)
        self._text, self._printed, self._gap_after_last = "", 0, False

    def _print_block(self, block: str) -> None:
        """Print a block with the blank line rich would put before it in the whole answer."""
        markdown = safe_markdown(block)
        tokens = markdown.parsed
        if self._gap_after_last and tokens and tokens[0].type not in OWN_GAP:
            self.console.print()
        self.console.print(markdown)
        self._gap_after_last = bool(tokens) and tokens[-1].type != "hr"
