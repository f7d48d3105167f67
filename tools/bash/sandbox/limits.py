"""Resource limits for a plan-mode Bash call: memory, file size, processes.

One layer of the plan-mode sandbox. rlimits are the oldest, most portable
bound the kernel offers: inherited by everything a process starts (and kept
across exec), and not raisable without privilege. They are set in the child
before exec, or, under bubblewrap, by stepagent on the started process with
prlimit(2) before that process has started anything (launch.py). RLIMIT_NPROC does not bind root
(the kernel exempts uid 0 even inside a user namespace), so for root the
process count is bounded by a cgroup instead (cgroups.py). The memory bound
(RLIMIT_AS) is Linux's: macOS refuses `ulimit -v`, so elsewhere it is left out.
"""

from __future__ import annotations

import os
import resource
import shutil
from dataclasses import dataclass
from functools import lru_cache

from tools import linux_only

MEMORY_BYTES = 4 << 30
FILE_BYTES = 64 << 20
PROCESS_BUDGET = 256


@dataclass(frozen=True)
class Limits:
    """The values, computed in the parent; `apply` runs in the child, `apply_to` in the parent."""

    memory: int = MEMORY_BYTES
    file_size: int = FILE_BYTES
    processes: int | None = None

    def apply(self) -> None:
        """Lower this process's limits (call between fork and exec)."""
        for which, value in self._values():
            _lower(which, value)

    def apply_to(self, pid: int) -> None:
        """Lower the limits of process `pid` (Linux), soft and hard, as `apply` lowers its own."""
        for which, value in self._values():
            value = _lowered(value, resource.prlimit(pid, which)[1])
            resource.prlimit(pid, which, (value, value))

    def _values(self) -> list[tuple[int, int]]:
        values = [(resource.RLIMIT_FSIZE, self.file_size), (resource.RLIMIT_CORE, 0)]
        if linux_only.available():
            values.insert(0, (resource.RLIMIT_AS, self.memory))
        if self.processes is not None:
            values.append((resource.RLIMIT_NPROC, self.processes))
        return values

    def trampoline(self, name: str = "stepagent") -> list[str]:
        """A command prefix that sets these limits, then execs what follows.

        For a program started without Python in the child (ripgrep.py); the shell runs
        outside any sandbox. dash where there is one: it starts in about half bash's time, imports no functions
        and reads no startup file when not interactive; else `bash -p`, which does neither either
        (an exported `echo` function could replace its own)."""
        dash = _dash()
        commands = [*self._shell_commands(dash is not None), 'exec "$@"']
        return [*([dash] if dash else ["bash", "-p"]), "-c", " && ".join(commands), name]

    def _shell_commands(self, dash: bool) -> list[str]:
        """The same limits as `ulimit` commands, soft and hard, in the units of dash or of bash.

        dash counts file and core sizes in 512-byte blocks (bash in 1024) and names the
        process count -p (bash -u)."""
        block = 512 if dash else 1024
        limits = [("c", resource.RLIMIT_CORE, 0, block), ("f", resource.RLIMIT_FSIZE, self.file_size, block)]
        if linux_only.available():
            limits.insert(0, ("v", resource.RLIMIT_AS, self.memory, 1024))
        if self.processes is not None:
            limits.append(("p" if dash else "u", resource.RLIMIT_NPROC, self.processes, 1))
        return [f"ulimit -{option} {_within_hard(which, value // unit, unit)}"
                for option, which, value, unit in limits]


@lru_cache(maxsize=1)
def _dash() -> str | None:
    return shutil.which("dash")


def call_limits() -> Limits:
    """Limits for one call: memory, file size and processes.

    RLIMIT_NPROC counts every process of the user, so the cap is what runs now
    (an upper bound read from /proc/loadavg) plus a budget.
    """
    if os.geteuid() == 0:
        return Limits()
    return Limits(processes=_tasks_running() + PROCESS_BUDGET)


def _tasks_running() -> int:
    try:
        with open("/proc/loadavg", encoding="ascii") as loadavg:
            return int(loadavg.read().split()[3].split("/")[1])
    except (OSError, IndexError, ValueError):
        return 4096


def _within_hard(which: int, value: int, unit: int) -> int:
    """`value` (in `unit`s, as ulimit counts), lowered to the hard limit in force."""
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard // unit)


def _lower(which: int, value: int) -> None:
    value = _lowered(value, resource.getrlimit(which)[1])
    resource.setrlimit(which, (value, value))


def _lowered(value: int, hard: int) -> int:
    """`value`, or the hard limit in force where that is lower: a limit is never raised."""
    return value if hard == resource.RLIM_INFINITY else min(value, hard)
