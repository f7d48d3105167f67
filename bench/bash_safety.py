"""The Bash classifier's time per command, and the sandbox's added start-up cost.

Classifier: median over the whole corpus (mutating and read-only commands).
Sandbox: median time of the Bash tool running `true` while planning, for each
set of layers this machine offers (full: bubblewrap + seccomp + limits;
without bubblewrap: Landlock + seccomp + limits), minus the same outside plan
mode (no sandbox).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from common import ROOT  # noqa: F401

from state import AppState
from tests.bash_corpus import MUTATING, READ_ONLY
from tools.bash.classifier.classify import classify
from tools.bash.sandbox.status import Layers, detect_layers
from tools.bash.tool import make_bash_tool

RUNS = 41


def main() -> None:
    commands = MUTATING + READ_ONLY
    classify("ls")
    times = []
    for command in commands:
        start = time.perf_counter()
        classify(command)
        times.append(time.perf_counter() - start)
    print(f"classifier: median {statistics.median(times) * 1e6:.0f} µs per command, "
          f"max {max(times) * 1e6:.0f} µs ({len(commands)} commands)")
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-bash-") as workspace:
        time_the_sandbox(Path(workspace))


def time_the_sandbox(workspace: Path) -> None:
    """Bash 'true' outside plan mode, then under each set of layers this machine has."""
    detected = detect_layers()
    state = AppState()
    plain = _timed(workspace, state, None)
    print(f"Bash 'true' outside plan mode: {_shown(plain)}")
    state.enter_plan_mode("bench")
    choices = {"full sandbox": detected, "without bubblewrap": replace(detected, bwrap=None)}
    for name, layers in choices.items():
        if name == "full sandbox" and not layers.contains_code:
            print(f"{name}: not available here")
            continue
        sandboxed = _timed(workspace, state, layers)
        print(f"{name}: {_shown(sandboxed)}; added {(sandboxed[0] - plain[0]) * 1000:.2f} ms "
              f"(median), {(sandboxed[1] - plain[1]) * 1000:.2f} ms (fastest) per call")


def _timed(workspace: Path, state: AppState, layers: Layers | None) -> tuple[float, float]:
    """Median and fastest of RUNS calls (the fastest shows the cost on an idle machine)."""
    bash = make_bash_tool(workspace, state, classify, layers=lambda: layers or detect_layers())
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        bash.handler({"command": "true"})
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def _shown(times: tuple[float, float]) -> str:
    return f"median {times[0] * 1000:.2f} ms, fastest {times[1] * 1000:.2f} ms of {RUNS}"


if __name__ == "__main__":
    main()
