"""Shared by the benchmarks: the project root on sys.path, a median timer, and a target verdict."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def median_seconds(action: Callable[[], object], runs: int) -> float:
    """The median wall-clock time of `runs` calls of `action`."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def verdict(value: float, limit: float, shown_limit: str) -> str:
    """'(target ≤ X: met)' or '(target ≤ X: MISSED)', so a miss cannot be read past."""
    return f"(target ≤ {shown_limit}: {'met' if value <= limit else 'MISSED'})"
