"""What finding and stopping left-running processes costs (tools/bash/left_running.py).

After every Bash call outside plan mode, /proc is read once to find processes
that carry the call's marker: its median time, with the number of processes
on the machine (it grows with them). Then the time entering plan mode takes to
stop five `setsid sleep` processes a call left running (SIGSTOP, a rescan,
then SIGKILL), and a Bash call in yolo mode with and without the scan.
"""

from __future__ import annotations

import os
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
    scan = median_seconds(lambda: left_by(new_call_marker(this_stepagent(ROOT))), RUNS)
    print(f"scan of /proc for a call's marker: median {scan * 1000:.2f} ms ({processes} processes, "
          f"{os.getloadavg()[0]:.1f} load)")
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-left-") as workspace:
        state = AppState(permission_mode=PermissionMode.YOLO)
        bash = make_bash_tool(Path(workspace), state, lambda command: Judgement(False))
        call = median_seconds(lambda: bash.handler({"command": "true"}), RUNS)
        print(f"Bash `true` in yolo, scan included: median {call * 1000:.1f} ms "
              f"(the scan is {scan / call:.0%} of it)")
        result = bash.handler({"command": f"for i in $(seq {LEFT}); do setsid sleep 300 & done; sleep 0.5"})
        print(f"left {LEFT}: {result.summary}")
        start = time.perf_counter()
        sweep = stop_left_running(lambda: left_in(Path(workspace)))
        print(f"stopping {len(sweep.stopped)} of them: {(time.perf_counter() - start) * 1000:.1f} ms, "
              f"{len(sweep.still_running)} still running")


if __name__ == "__main__":
    main()
