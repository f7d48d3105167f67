"""Shared by the benchmarks: the project on sys.path, timers, side-by-side ratios, and targets.

A figure on a shared machine means little alone, so the targets are ratios:
`ratio` times two actions in turn, pair by pair in one run, and reports the
median of the per-pair ratios with its spread (the middle half, as one pair
that another helper's burst hit says little). `Targets` collects each verdict
so that a bench exits non-zero when any target was missed (bench/run_all.py
then does too). `conditions` says what the figures were measured under.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def median_seconds(action: Callable[[], object], runs: int) -> float:
    """The median wall-clock time of `runs` calls of `action`."""
    return statistics.median(samples(action, runs))


def samples(action: Callable[[], object], runs: int,
            clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """`runs` timings of `action` on `clock` (wall-clock unless told)."""
    times = []
    for _ in range(runs):
        start = clock()
        action()
        times.append(clock() - start)
    return times


@dataclass(frozen=True)
class Ratio:
    """The median of per-pair ratios, its spread (the middle half of them), and the two medians."""

    median: float
    low: float
    high: float
    measured: float
    reference: float

    def __str__(self) -> str:
        return f"{self.median:.2f}× (spread {self.low:.2f}–{self.high:.2f})"


def ratio(measured: Callable[[], object], reference: Callable[[], object], runs: int,
          clock: Callable[[], float] = time.perf_counter) -> Ratio:
    """`measured` over `reference`, timed in turn `runs` times so that both see the same load."""
    pairs = [(samples(measured, 1, clock)[0], samples(reference, 1, clock)[0]) for _ in range(runs)]
    return paired([a for a, _ in pairs], [b for _, b in pairs])


def paired(measured: list[float], reference: list[float]) -> Ratio:
    """The ratio of timings taken in turn: `measured[i]` beside `reference[i]`."""
    ratios = sorted(a / b for a, b in zip(measured, reference))
    low, _, high = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    return Ratio(statistics.median(ratios), low, high, statistics.median(measured),
                 statistics.median(reference))


def spread(values: list[float], scale: float = 1000.0, unit: str = "ms") -> str:
    """`12.3 ms (spread 11.9–13.0)`: a median with its lowest and highest."""
    return (f"{statistics.median(values) * scale:.1f} {unit} "
            f"(spread {min(values) * scale:.1f}–{max(values) * scale:.1f})")


def verdict(value: float, limit: float, shown_limit: str) -> str:
    """'(target ≤ X: met)' or '(target ≤ X: MISSED)', so a miss cannot be read past."""
    return f"(target ≤ {shown_limit}: {'met' if value <= limit else 'MISSED'})"


@dataclass
class Targets:
    """The targets a bench checked; `exit_code` is 1 when any was missed."""

    missed: list[str] = field(default_factory=list)

    def check(self, name: str, value: float, limit: float, shown_limit: str) -> str:
        """The verdict for one figure, remembered."""
        if value > limit:
            self.missed.append(name)
        return verdict(value, limit, shown_limit)

    def exit_code(self) -> int:
        """0 when every target was met; else the misses are named and it is 1."""
        if self.missed:
            print(f"MISSED: {', '.join(self.missed)}")
        return 1 if self.missed else 0


def conditions() -> str:
    """The load and the bytecode setting the figures were measured under, for the first line."""
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    bytecode = ("set: every start recompiles" if os.environ.get("PYTHONDONTWRITEBYTECODE")
                else "unset")
    return f"load average {load} on {os.cpu_count()} cores; PYTHONDONTWRITEBYTECODE {bytecode}"
