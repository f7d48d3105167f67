"""Streamed markdown against rich printing the same answer once, at 150 and at 1,500 lines.

    .venv/bin/python bench/render.py

The headline is stepagent's block-at-a-time stream (ui/markdown_stream.py) from
its first chunk to the finished screen (every chunk fed, then `finish`), over
printing the same answer at once as markdown, timed in turn on a 100×40
terminal (the output goes to a buffer, with terminal codes on). The chunks come
as fast as the stream can take them, so what is measured is the drawing alone.
Target: ≤ 1.5× at both lengths, so the stream is linear in length as printing
is. Also shown: the time from the last chunk to the finished screen, plain text
at once, and the old way (one live area redrawn whole) for the record.
"""

from __future__ import annotations

import io
import re
import statistics
import sys
import time

from common import Targets, conditions, paired
from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown

from ui.markdown_stream import MarkdownStream

RUNS = 7
LENGTHS = (150, 1_500)
TARGET = 1.5


def long_answer(lines: int = 150) -> str:
    """A markdown answer of about `lines` lines: headings, prose, lists, code and a table."""
    parts = ["# Review of the parser", ""]
    section = 0
    while len(parts) < lines - 20:
        section += 1
        parts += [f"## Part {section}", "",
                  f"The parser in part {section} reads **tokens** one by one and keeps `state` small.",
                  "It stops at the first error and says where it happened.", "",
                  "- checks the input", "- builds the tree", "- reports errors", "",
                  "```python", f"def part_{section}(tokens):", "    for token in tokens:",
                  "        yield token", "```", "",
                  "| step | cost |", "|---|---|", f"| read | {section} ms |", "", "---", ""]
    parts.append("END-OF-ANSWER")
    return "\n".join(parts) + "\n"


def pieces(text: str) -> list[str]:
    """The answer cut as a server streams it: a word or so per chunk."""
    return re.findall(r"\S+\s*|\s+", text)


def terminal() -> Console:
    return Console(file=io.StringIO(), width=100, height=40, force_terminal=True,
                   color_system="truecolor")


def streamed(text: str) -> tuple[float, float]:
    """(seconds feeding the chunks, seconds from the last chunk to the finished screen)."""
    stream = MarkdownStream(terminal())
    start = time.perf_counter()
    for piece in pieces(text):
        stream.feed(piece)
    last_chunk = time.perf_counter()
    stream.finish()
    return last_chunk - start, time.perf_counter() - last_chunk


def redrawn_whole(text: str) -> tuple[float, float]:
    """The old way: one live area, the whole answer re-rendered as it grows."""
    console = terminal()
    live = Live(console=console, refresh_per_second=12, vertical_overflow="visible")
    live.start()
    so_far = ""
    start = time.perf_counter()
    for piece in pieces(text):
        so_far += piece
        live.update(Markdown(so_far))
    last_chunk = time.perf_counter()
    live.stop()
    return last_chunk - start, time.perf_counter() - last_chunk


def at_once(text: str) -> float:
    console = terminal()
    start = time.perf_counter()
    console.print(Markdown(text))
    return time.perf_counter() - start


def plain(text: str) -> float:
    console = terminal()
    start = time.perf_counter()
    console.print(text, markup=False, highlight=False)
    return time.perf_counter() - start


def main() -> int:
    print(conditions())
    targets = Targets()
    for lines in LENGTHS:
        answer = long_answer(lines)
        streams, wholes = [], []
        for _ in range(RUNS):
            streams.append(streamed(answer))
            wholes.append(at_once(answer))
        against = paired([feeding + finishing for feeding, finishing in streams], wholes)
        print(f"answer: {len(answer.splitlines())} lines, {len(pieces(answer))} chunks; "
              f"median of {RUNS} runs in turn")
        print(f"  streamed by block, first chunk → finished screen: {against.measured * 1000:7.1f} ms "
              f"(last chunk → finished screen {statistics.median(f for _, f in streams) * 1000:.1f} ms)")
        print(f"  printed at once as markdown:                      {against.reference * 1000:7.1f} ms")
        print(f"  streamed / at once: {against} "
              f"{targets.check(f'stream at {lines} lines', against.median, TARGET, f'{TARGET}×')}")
        print(f"  printed at once as plain text:                    "
              f"{statistics.median(plain(answer) for _ in range(RUNS)) * 1000:7.1f} ms")
        if lines == LENGTHS[0]:
            old_feed, old_finish = redrawn_whole(answer)
            print(f"  old way, whole answer redrawn: feeding {old_feed * 1000:.0f} ms, "
                  f"last chunk → end {old_finish * 1000:.1f} ms")
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
