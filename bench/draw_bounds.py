"""Drawing is linear: a deeply nested list and a flat answer, streamed at two sizes.

    .venv/bin/python bench/draw_bounds.py

Each answer is streamed through the REPL's view (ui/console.py) on a 100×40
terminal (output to a buffer, terminal codes on), at n and at 2n characters;
beside it, rich's markdown drawing the same text at once, as every block was
drawn before ui/drawable.py. Exits 1 when doubling an answer more than triples
its streamed drawing time, or when the largest takes more than 5 s.
"""

from __future__ import annotations

import io
import sys
import time

from common import ROOT  # noqa: F401  (puts the project root on sys.path)
from rich.console import Console
from rich.markdown import Markdown

from ui.console import ConsoleView

CHUNK = 40


def nested_list(depth: int) -> str:
    return "".join("  " * level + f"- item {level}\n" for level in range(depth))


def terminal() -> Console:
    return Console(file=io.StringIO(), width=100, height=40, force_terminal=True)


def streamed(text: str) -> float:
    view = ConsoleView(terminal())
    start = time.perf_counter()
    for offset in range(0, len(text), CHUNK):
        view.on_text(text[offset:offset + CHUNK])
    view.on_reply_end()
    return time.perf_counter() - start


def markdown_at_once(text: str) -> float:
    start = time.perf_counter()
    terminal().print(Markdown(text))
    return time.perf_counter() - start


if __name__ == "__main__":
    missed = False
    cases = {"nested list": (nested_list(800), nested_list(1131)),  # 1131 levels: twice the characters
             "flat answer": ("word " * 200_000, "word " * 400_000)}
    for name, (small, large) in cases.items():
        streamed(small[:1000])  # imports and first draw out of the measurement
        short, long = streamed(small), streamed(large)
        ratio = (long / short) / (len(large) / len(small))
        old = markdown_at_once(large)
        print(f"{name}: {len(small):,} → {len(large):,} chars streamed in {short:.2f} s → {long:.2f} s "
              f"(time per char ×{ratio:.2f}); rich markdown at once: {old:.2f} s ({old / long:.1f}× slower)")
        missed |= ratio > 1.5 or long > 5.0
    sys.exit(1 if missed else 0)
