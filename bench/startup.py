"""Time from launch to the interactive prompt, median of several runs, in a pseudo-terminal.

Target: ≤ 0.4 s. Measured with the offline lesson model and with a real-model
configuration (where openai is imported in the background, after the prompt).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import pexpect
from common import ROOT

RUNS = 7


def time_to_prompt(env: dict[str, str]) -> float:
    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, [str(ROOT / "index.py")], env=env, encoding="utf-8",
                          timeout=30, cwd=tempfile.mkdtemp(), dimensions=(30, 100))
    while child.expect(["›", "\x1b\\[6n"]) == 1:
        child.send("\x1b[1;1R")
    elapsed = time.perf_counter() - start
    child.terminate(force=True)
    return elapsed


def main() -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    base.update(TERM="xterm", STEPAGENT_HOME=tempfile.mkdtemp())
    for label, env in [("offline lesson model", base),
                       ("real model configured", {**base, "OPENAI_API_KEY": "x",
                                                  "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})]:
        times = sorted(time_to_prompt(env) for _ in range(RUNS))
        print(f"startup to prompt ({label}): median {times[RUNS // 2]:.3f} s "
              f"(min {times[0]:.3f}, max {times[-1]:.3f}, {RUNS} runs; target ≤ 0.400 s)")
    start = time.perf_counter()
    os.system(f"{sys.executable} -c 'import openai'")
    print(f"for comparison, python -c 'import openai': {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
