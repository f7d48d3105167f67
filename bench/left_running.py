"""What finding and stopping left-running processes costs (tools/bash/left_running.py).

After every Bash call outside plan mode, the processes that carry the call's
marker are looked for among the pids handed out since the call's first process
(none, after most calls): its median time. Entering plan mode reads every
process in /proc instead (it grows with the processes on the machine): that
scan's median too. Then a Bash call in yolo mode, its own look included, and
the time entering plan mode takes to stop five `setsid sleep` processes a call
left running (SIGSTOP, a rescan, then SIGKILL).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path

from common import ROOT, median_seconds

from state import AppState, PermissionMode
from tools.bash.left_running import left_by, left_in, new_call_marker, this_stepagent
from tools.bash.stop_left_running import stop_left_running
from tools.bash.tool import make_bash_tool
from tools.base import Judgement

RUNS = 41
LEFT = 5


def main() -> None:
    processes = sum(name.isdigit() for name in os.listdir("/proc"))
    marker = new_call_marker(this_stepagent(ROOT))
    first = subprocess.Popen(["true"])  # as a call's first process, whose group the call leads
    first.wait()
    look = median_seconds(lambda: left_by(marker, outside_group=first.pid), RUNS)
    scan = median_seconds(lambda: left_by(marker), RUNS)
    print(f"a call's look for its marker, among the pids since its first: median {look * 1000:.3f} ms")
    print(f"scan of all of /proc for a marker (plan mode's sweep): median {scan * 1000:.2f} ms "
          f"({processes} processes, {os.getloadavg()[0]:.1f} load)")
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-left-") as workspace:
        state = AppState(permission_mode=PermissionMode.YOLO)
        bash = make_bash_tool(Path(workspace), state, lambda command: Judgement(False))
        call = median_seconds(lambda: bash.handler({"command": "true"}), RUNS)
        print(f"Bash `true` in yolo, its look included: median {call * 1000:.1f} ms "
              f"(the look is {look / call:.0%} of it)")
        result = bash.handler({"command": f"for i in $(seq {LEFT}); do setsid sleep 300 & done; sleep 0.5"})
        print(f"left {LEFT}: {result.summary}")
        start = time.perf_counter()
        sweep = stop_left_running(lambda: left_in(Path(workspace)))
        print(f"stopping {len(sweep.stopped)} of them: {(time.perf_counter() - start) * 1000:.1f} ms, "
              f"{len(sweep.still_running)} still running")


if __name__ == "__main__":
    main()
