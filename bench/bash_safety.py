"""The Bash classifier's time per command, and the sandbox's added start-up cost.

Classifier: median over the whole corpus (mutating and read-only commands).
Sandbox: the Bash tool running `true` while planning, for each set of layers
this machine offers (full: bubblewrap + seccomp + Landlock + limits; without
bubblewrap: Landlock + seccomp + limits), and in build mode, where `true` runs
without a question and so in the sandbox found here (sandbox/unasked.py),
each minus the same approved by the user
(yolo mode: no bound at all), and `subprocess.run(['true'])`, the floor. The
variants take turns, call by call, so a change in the machine's load falls on
all of them alike; the load average is printed before and after, since the
machine is shared and a busy one doubles every figure. Each call comes PAUSE
after the one before, as a session's calls come a model's reply apart: what a
call leaves warm in the kernel (the grace period a reader of /proc/locks waits
for has just passed) must not speed up the next. Beside the wall time,
the CPU time each call costs (stepagent's own and its children's), which a busy
machine hardly changes. Targets, as ratios to the floor call by call: approved
≤ 2.5×, the full sandbox ≤ 8×; a miss exits non-zero.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from common import Targets, conditions, paired

from state import AppState
from tests.bash_corpus import MUTATING, READ_ONLY
from tools.bash.classifier.classify import classify
from tools.bash.sandbox.status import Layers, detect_layers
from tools.bash.tool import make_bash_tool
from tools.base import Tool
from ui.modes import select

RUNS = 41
PAUSE = 0.05
PLAIN = "subprocess.run(['true'])"
TARGETS = {"approved (yolo)": 2.5, "full sandbox": 8.0}


def main() -> int:
    print(conditions())
    targets = Targets()
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
        time_the_sandbox(Path(workspace), targets)
    return targets.exit_code()


def time_the_sandbox(workspace: Path, targets: Targets) -> None:
    """Bash 'true' approved, unasked, and under each set of layers this machine has, in turns
    with `subprocess.run(['true'])`, the floor each is a ratio of."""
    detected = detect_layers()
    tools = {"approved (yolo)": _bash(workspace, None, "yolo"),
             "unasked (build)": _bash(workspace, None, "build")}
    if detected.contains_code:
        tools["full sandbox"] = _bash(workspace, detected)
    else:
        print("full sandbox: not available here")
    if detected.landlock_abi:
        tools["without bubblewrap"] = _bash(workspace, replace(detected, bwrap=None))
    print(f"load average before: {_load()}")
    calls: dict[str, Callable[[], object]] = {PLAIN: lambda: subprocess.run(["true"])}
    calls.update({name: lambda bash=bash: bash.handler({"command": "true"}) for name, bash in tools.items()})
    times: dict[str, list[float]] = {name: [] for name in calls}
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(RUNS):
        for name, call in calls.items():
            time.sleep(PAUSE)
            start, cpu_start = time.perf_counter(), _cpu_seconds()
            call()
            times[name].append(time.perf_counter() - start)
            cpu[name].append(_cpu_seconds() - cpu_start)
    print(f"load average after:  {_load()}")
    print(f"{PLAIN}: {_shown(times[PLAIN])}; CPU {statistics.median(cpu[PLAIN]) * 1000:.2f} ms "
          "per call (median)")
    for name in tools:
        against = paired(times[name], times[PLAIN])
        line = (f"{name}: {_shown(times[name])}; CPU {statistics.median(cpu[name]) * 1000:.2f} ms "
                f"per call (median); {against} the floor")
        if name in TARGETS:
            line += " " + targets.check(name, against.median, TARGETS[name], f"{TARGETS[name]}×")
        print(line)


def _bash(workspace: Path, layers: Layers | None, mode: str = "build") -> Tool:
    """The Bash tool, planning under `layers`, or in `mode` when None."""
    state = AppState()
    select(state, mode, "bench")
    if layers:
        state.enter_plan_mode("bench")
    return make_bash_tool(workspace, state, classify, layers=lambda: layers or detect_layers())


def _cpu_seconds() -> float:
    """CPU time used so far by this process and the children it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg()) + f" on {os.cpu_count()} cores"


def _shown(times: list[float]) -> str:
    return f"median {statistics.median(times) * 1000:.2f} ms, fastest {min(times) * 1000:.2f} ms of {RUNS}"


if __name__ == "__main__":
    sys.exit(main())
