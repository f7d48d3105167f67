"""Streamed markdown, drawn once: finished blocks are printed for good, only the tail is live.

Redrawing the whole answer on every chunk is slow, and once it is taller than
the screen the terminal cannot erase what scrolled off, so partial copies pile
up in the scrollback. Here a block (heading, paragraph, list, code fence,
table) is finished once the next block has begun, and finished blocks are
printed for good; only the block still arriving sits in a transient live area,
cut to the screen's height (with the REPL's status line under it, so mode and
context use stay in sight, and the keys typed meanwhile under that), and it is printed once more, for good, when the
reply ends. The text came from the model, so it is drawn through ui/drawable.py:
safe, and in time linear in its length (a block too long or too deep for rich's
markdown is plain text); the live area draws only as much of the end as fits on
the screen, however long the tail.

Drawing keeps pace with the stream (bench/render.py: at most 1.5× printing the
whole answer once): each line is looked at once, as it completes; finished
blocks wait in the live area and are printed together, one print a tenth of a
second or a screenful (rich redraws the live area after every print, so a print
per block drew the tail once per block too); and the live area is redrawn by
`feed`, at most ten times a second, not by a thread of rich's, which drew it as
often while the stream was fast and fought the stream for the interpreter.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.live import Live
from rich.segment import Segment
from rich.text import Text

from ui.drawable import drawable
from ui.ticker import held_line
from ui.uninterrupted import uninterrupted

if TYPE_CHECKING:
    from rich.markdown import Markdown

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
LIST_ITEM = re.compile(r"^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)")
# rich starts these with their own blank line; other blocks get one unless a rule came before.
OWN_GAP = {"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"}
PRINT_EVERY = 0.1


@dataclass
class BlockSplitter:
    """Cuts streamed text into blocks that can no longer change, and the tail that still may.

    A block ends at a blank line outside a code fence, once the next line has
    begun at the margin (an indented line may continue a list item) and does not
    continue a list with another item. Each line is looked at once, when it ends.
    """

    _lines: list[str] = field(default_factory=list)
    _partial: list[str] = field(default_factory=list)
    _fence: str = ""
    _blank_before: bool = False

    def feed(self, piece: str) -> list[str]:
        """Take a piece of the text; the blocks it finished."""
        if "\n" not in piece:
            self._partial.append(piece)
            return []
        *complete, rest = ("".join(self._partial) + piece).split("\n")
        self._partial = [rest]
        finished = []
        for line in complete:
            block = self._line(line)
            if block:
                finished.append(block)
        return finished

    def tail(self) -> str:
        """The text after the last finished block."""
        return "\n".join([*self._lines, "".join(self._partial)])

    def last(self, lines: int, chars: int) -> str:
        """The end of the tail: at most its last `lines` lines and `chars` characters."""
        return "\n".join([*self._lines[-lines:], last_chars(self._partial, chars)])[-chars:]

    def _line(self, line: str) -> str:
        """Take one whole line; the block it finished, or ''."""
        opener = FENCE.match(line)
        finished = ""
        if self._fence:
            if opener and opener.group(1)[0] == self._fence[0] and len(opener.group(1)) >= len(self._fence):
                self._fence = ""
            self._blank_before = False
            self._lines.append(line)
            return ""
        if self._blank_before and line and not line[0].isspace():
            if not (LIST_ITEM.match(line) and self._in_list()):
                finished = "\n".join(self._lines).strip("\n")
                self._lines = []
        self._blank_before = not line.strip()
        if opener:
            self._fence = opener.group(1)
        self._lines.append(line)
        return finished

    def _in_list(self) -> bool:
        first = next((line for line in self._lines if line), "")
        return bool(LIST_ITEM.match(first))


def last_chars(pieces: list[str], chars: int) -> str:
    """The last `chars` characters of the pieces joined, joining no more than needed."""
    kept: list[str] = []
    size = 0
    for piece in reversed(pieces):
        kept.append(piece)
        size += len(piece)
        if size >= chars:
            break
    return "".join(reversed(kept))[-chars:]


@dataclass
class LastLines:
    """What is not printed yet (finished blocks waiting, then the tail), cut to the screen."""

    waiting: list[str] = field(default_factory=list)
    tail: Callable[[int, int], str] = lambda lines, chars: ""
    status: str = ""
    draft: Callable[[], str] = lambda: ""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        status, held = self.status, held_line(self.draft())
        room = max((options.height or console.height) - 1 - bool(status) - bool(held), 1)
        chars = room * options.max_width
        text = last_chars([*(block + "\n\n" for block in self.waiting[-room:]), self.tail(room, chars)],
                          chars)
        lines = console.render_lines(drawable(text), options.update(height=None), pad=False)
        for line in lines[-room:]:
            yield from line
            yield Segment.line()
        if status:
            yield Text(status, style="dim", no_wrap=True, overflow="ellipsis")
        if held:
            yield held


@dataclass
class MarkdownStream:
    """One reply's text as it streams in: `feed` each piece, `finish` at the end."""

    console: Console
    status: Callable[[], str] = lambda: ""
    draft: Callable[[], str] = lambda: ""
    clock: Callable[[], float] = time.monotonic
    print_every: float = PRINT_EVERY
    _splitter: BlockSplitter = field(default_factory=BlockSplitter)
    _waiting_lines: int = 0
    _drawn_at: float = 0.0
    _gap_after_last: bool = False
    _started: bool = False
    _tail: LastLines = field(default_factory=LastLines)
    _live: Live | None = None

    def __post_init__(self) -> None:
        self._tail.tail, self._tail.draft = self._splitter.last, self.draft

    def restatus(self) -> None:
        """Show the status as it is now under the live tail (the mode changed)."""
        if self._live is not None:
            self._tail.status = self.status()
            self._live.refresh()

    def feed(self, piece: str) -> None:
        """Add a piece; print the blocks finished by now; show the rest live (with the status line)."""
        for block in self._splitter.feed(piece):
            self._tail.waiting.append(block)
            self._waiting_lines += block.count("\n") + 2
        due = self.clock() - self._drawn_at >= self.print_every
        if self._tail.waiting and (due or self._waiting_lines >= self.console.height):
            self._print_waiting()
        elif due and self._live is not None:
            self._live.refresh()
            self._drawn_at = self.clock()
        if self._live is None and not self._started and self.console.is_terminal and piece.strip():
            self._started = True
            self._tail.status = self.status()
            with uninterrupted():
                live = Live(self._tail, console=self.console, auto_refresh=False,
                            transient=True, vertical_overflow="crop")
                live.start(refresh=True)
                self._live = live
            self._drawn_at = self.clock()

    def finish(self) -> None:
        """The reply ended: print what was live, once, for good."""
        with uninterrupted():
            live, self._live = self._live, None
            if live is not None:
                live.update(Group(), refresh=False)  # stop() draws the area once more, only to erase it
                live.stop()
        rest = self._splitter.tail().strip("\n")
        if rest:
            self._tail.waiting.append(rest)
        if self._tail.waiting:
            self._print_waiting()
        self._splitter = BlockSplitter()
        self._tail.tail = self._splitter.last
        self._gap_after_last = self._started = False

    def show(self, text: str) -> None:
        """Print a whole text the way a reply streaming it would end up (no live area)."""
        self._tail.waiting.extend(self._splitter.feed(text))
        self.finish()

    def _print_waiting(self) -> None:
        """Print the finished blocks as one markdown, with the blank line rich would put before it;
        when together they are too long or deep for markdown, each block on its own."""
        waiting = self._tail.waiting[:]
        self._tail.waiting.clear()  # before printing: rich redraws the live area under the print
        self._waiting_lines = 0
        together = drawable("\n\n".join(waiting))
        for shown in map(drawable, waiting) if isinstance(together, Text) else [together]:
            self._print(shown)
        self._drawn_at = self.clock()  # rich redrew the live area under what it printed

    def _print(self, shown: Markdown | Text) -> None:
        if isinstance(shown, Text):  # too long or deep for markdown: a paragraph the terminal wraps
            self.console.print(Group(Text(), shown) if self._gap_after_last else shown, soft_wrap=True)
            self._gap_after_last = True
            return
        tokens = shown.parsed
        gap = self._gap_after_last and tokens and tokens[0].type not in OWN_GAP
        self.console.print(Group(Text(), shown) if gap else shown)
        self._gap_after_last = bool(tokens) and tokens[-1].type != "hr"
