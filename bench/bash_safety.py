"""The Bash classifier's time per command, and the sandbox's added start-up cost.

Classifier: median over the whole corpus (mutating and read-only commands).
Sandbox: median time of the Bash tool running `true` while planning (Landlock)
minus the same outside plan mode (no sandbox).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from common import ROOT, median_seconds  # noqa: F401

from state import AppState
from tests.bash_corpus import MUTATING, READ_ONLY
from tools.bash.classifier.classify import classify
from tools.bash.sandbox.landlock import abi_version
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
    if not abi_version():
        print("sandbox: Landlock not available on this machine")
        return
    workspace = Path(tempfile.mkdtemp())
    state = AppState()
    bash = make_bash_tool(workspace, state, classify)
    plain = median_seconds(lambda: bash.handler({"command": "true"}), RUNS)
    state.enter_plan_mode("bench")
    sandboxed = median_seconds(lambda: bash.handler({"command": "true"}), RUNS)
    print(f"sandbox (Landlock ABI {abi_version()}): Bash 'true' {sandboxed * 1000:.2f} ms sandboxed vs "
          f"{plain * 1000:.2f} ms plain; added {(sandboxed - plain) * 1000:.2f} ms per command "
          f"(median of {RUNS})")


if __name__ == "__main__":
    main()
