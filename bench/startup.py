"""Time from launch to the interactive prompt, median of several runs, in a pseudo-terminal.

Target: ≤ 0.4 s. Measured with the offline lesson model and with a real-model
configuration (where openai is imported in the background, after the prompt).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect
from common import ROOT, median_seconds, verdict

RUNS = 7
TARGET = 0.4


def time_to_prompt(env: dict[str, str], workspace: str) -> float:
    """Seconds from spawning index.py to its prompt on a 30×100 pseudo-terminal."""
    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, [str(ROOT / "index.py")], env=env, encoding="utf-8",
                          timeout=30, cwd=workspace, dimensions=(30, 100))
    while child.expect(["›", "\x1b\\[6n"]) == 1:
        child.send("\x1b[1;1R")
    elapsed = time.perf_counter() - start
    child.terminate(force=True)
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-startup-") as folder:
        measure(Path(folder))


def measure(folder: Path) -> None:
    """Each configuration RUNS times, in a fresh workspace with its own STEPAGENT_HOME."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    base.update(TERM="xterm", STEPAGENT_HOME=str(folder / "home"))
    for label, env in [("offline lesson model", base),
                       ("real model configured", {**base, "OPENAI_API_KEY": "x",
                                                  "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})]:
        times = []
        for run in range(RUNS):
            workspace = folder / f"{label.split()[0]}-{run}"
            workspace.mkdir()
            times.append(time_to_prompt(env, str(workspace)))
        times.sort()
        median = times[RUNS // 2]
        print(f"startup to prompt ({label}): median {median:.3f} s (min {times[0]:.3f}, "
              f"max {times[-1]:.3f}, {RUNS} runs) {verdict(median, TARGET, f'{TARGET:.3f} s')}")
    bare = median_seconds(lambda: subprocess.run([sys.executable, "-c", "pass"]), RUNS)
    with_openai = median_seconds(lambda: subprocess.run([sys.executable, "-c", "import openai"]), RUNS)
    print(f"for comparison (median of {RUNS}): python itself {bare:.3f} s, python importing "
          f"openai {with_openai:.3f} s")


if __name__ == "__main__":
    main()
