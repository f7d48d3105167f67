"""Streamed markdown: time from the last chunk to the finished screen, for a 150-line answer.

    .venv/bin/python bench/render.py

Compares stepagent's block-at-a-time stream (ui/markdown_stream.py) with
printing the same answer at once as markdown, and as plain text, on a 100×40
terminal (the output goes to a buffer, with terminal codes on). Also shows the
old way, one live area redrawn whole, for the record.
"""

from __future__ import annotations

import io
import re
import time

from common import ROOT  # noqa: F401  (puts the project root on sys.path)
from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown

from ui.markdown_stream import MarkdownStream

RUNS = 5


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


def median_of(action, runs: int = RUNS) -> tuple[float, ...]:
    results = sorted(action() for _ in range(runs))
    return results[len(results) // 2]


if __name__ == "__main__":
    answer = long_answer()
    count = len(answer.splitlines())
    feeding, finishing = median_of(lambda: streamed(answer))
    whole = median_of(lambda: (at_once(answer),))[0]
    text_only = median_of(lambda: (plain(answer),))[0]
    old_feed, old_finish = median_of(lambda: redrawn_whole(answer), runs=1)
    print(f"answer: {count} lines, {len(pieces(answer))} chunks; median of {RUNS} runs")
    print(f"  streamed by block:   last chunk → finished screen {finishing * 1000:7.1f} ms "
          f"(feeding all chunks {feeding * 1000:.0f} ms)")
    print(f"  printed at once as markdown:                     {whole * 1000:7.1f} ms "
          f"(streamed/at once = {finishing / whole:.2f}×)")
    print(f"  printed at once as plain text:                   {text_only * 1000:7.1f} ms")
    print(f"  old way, whole answer redrawn: last chunk → end  {old_finish * 1000:7.1f} ms "
          f"(feeding all chunks {old_feed * 1000:.0f} ms)")
