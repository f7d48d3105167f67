"""Streamed markdown, drawn once: finished blocks are printed for good, only the tail is live.

Redrawing the whole answer on every chunk is slow, and once it is taller than
the screen the terminal cannot erase what scrolled off, so partial copies pile
up in the scrollback. Here a block (heading, paragraph, list, code fence,
table) is finished once the next block has begun, and finished blocks are
printed for good; only the block still arriving sits in a transient live area,
cut to the screen's height (with the REPL's status line under it, so mode and
context use stay in sight), and it is printed once more, for good, when the
reply ends. The text came from the model, so it is drawn through safe_markdown.

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
from typing import Callable

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.live import Live
from rich.segment import Segment
from rich.text import Text

from ui.safe_text import safe_markdown
from ui.uninterrupted import uninterrupted

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
    _partial: str = ""
    _fence: str = ""
    _blank_before: bool = False

    def feed(self, piece: str) -> list[str]:
        """Take a piece of the text; the blocks it finished."""
        if "\n" not in piece:
            self._partial += piece
            return []
        *complete, self._partial = (self._partial + piece).split("\n")
        finished = []
        for line in complete:
            block = self._line(line)
            if block:
                finished.append(block)
        return finished

    def tail(self) -> str:
        """The text after the last finished block."""
        return "\n".join([*self._lines, self._partial])

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


@dataclass
class LastLines:
    """What is not printed yet (finished blocks waiting, then the tail), cut to the screen."""

    waiting: list[str] = field(default_factory=list)
    tail: Callable[[], str] = lambda: ""
    status: str = ""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        status = self.status
        room = max((options.height or console.height) - 1 - bool(status), 1)
        text = "\n\n".join([*self.waiting, self.tail()])
        lines = console.render_lines(safe_markdown(text), options.update(height=None), pad=False)
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
        self._tail.tail = self._splitter.tail

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
                live.stop()
        rest = self._splitter.tail().strip("\n")
        if rest:
            self._tail.waiting.append(rest)
        if self._tail.waiting:
            self._print_waiting()
        self._splitter = BlockSplitter()
        self._tail.tail = self._splitter.tail
        self._gap_after_last = self._started = False

    def _print_waiting(self) -> None:
        """Print the finished blocks as one markdown, with the blank line rich would put before it."""
        markdown = safe_markdown("\n\n".join(self._tail.waiting))
        self._tail.waiting.clear()
        self._waiting_lines = 0
        tokens = markdown.parsed
        gap = self._gap_after_last and tokens and tokens[0].type not in OWN_GAP
        self.console.print(Group(Text(), markdown) if gap else markdown)
        self._gap_after_last = bool(tokens) and tokens[-1].type != "hr"
        self._drawn_at = self.clock()  # rich redrew the live area under what it printed
