"""A pids cgroup that caps how many processes one plan-mode Bash call may have.

One layer of the plan-mode sandbox, for root: the kernel exempts uid 0 from
RLIMIT_NPROC, so a fork bomb run as root would fill the machine's process
table until the timeout. A cgroup's pids.max binds root too. It needs a
writable pids hierarchy (cgroup v1 `pids`, or a v2 hierarchy offering the
pids controller); where there is none, the status table says so.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

MAX_PROCESSES = 256
HIERARCHIES = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


@dataclass
class PidsCgroup:
    """A cgroup made for one call: the child joins it, the parent removes it."""

    path: Path

    def join(self) -> None:
        """Move this process into the cgroup (call between fork and exec)."""
        with open(self.path / "cgroup.procs", "w", encoding="ascii") as procs:
            procs.write(str(os.getpid()))

    def remove(self) -> None:
        """Kill what is still in the cgroup (a process that left the call's group is
        still here), then remove it once the kernel has reaped them."""
        for _ in range(100):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                self._kill_members()
                time.sleep(0.01)

    def _kill_members(self) -> None:
        try:
            members = (self.path / "cgroup.procs").read_text(encoding="ascii").split()
        except OSError:
            return
        for pid in members:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def make_pids_cgroup(name: str, maximum: int = MAX_PROCESSES) -> PidsCgroup | None:
    """A fresh cgroup with pids.max set, or None where no pids hierarchy is writable."""
    for hierarchy in HIERARCHIES:
        if not (hierarchy / "cgroup.procs").exists():
            continue
        path = hierarchy / name
        try:
            path.mkdir()
        except OSError:
            continue
        try:
            (path / "pids.max").write_text(str(maximum), encoding="ascii")
            return PidsCgroup(path)
        except OSError:
            path.rmdir()
    return None
