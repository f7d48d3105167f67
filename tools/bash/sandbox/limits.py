"""Resource limits for a plan-mode Bash call: memory, file size, processes.

One layer of the plan-mode sandbox. rlimits are the oldest, most portable
bound the kernel offers: set in the child before exec, inherited by everything
it starts, and not raisable without privilege. RLIMIT_NPROC does not bind root
(the kernel exempts uid 0 even inside a user namespace), so for root the
process count is bounded by a cgroup instead (cgroups.py). The memory bound
(RLIMIT_AS) is Linux's: macOS refuses `ulimit -v`, so elsewhere it is left out.
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass

from tools import linux_only

MEMORY_BYTES = 4 << 30
FILE_BYTES = 64 << 20
PROCESS_BUDGET = 256


@dataclass(frozen=True)
class Limits:
    """The values, computed in the parent; `apply` runs in the child."""

    memory: int = MEMORY_BYTES
    file_size: int = FILE_BYTES
    processes: int | None = None

    def apply(self) -> None:
        """Lower this process's limits (call between fork and exec)."""
        if linux_only.available():
            _lower(resource.RLIMIT_AS, self.memory)
        _lower(resource.RLIMIT_FSIZE, self.file_size)
        _lower(resource.RLIMIT_CORE, 0)
        if self.processes is not None:
            _lower(resource.RLIMIT_NPROC, self.processes)

    def shell_commands(self) -> list[str]:
        """The same limits as bash `ulimit` commands, soft and hard.

        For a launch that sets them without running Python in the child."""
        limits = [("c", resource.RLIMIT_CORE, 0), ("f", resource.RLIMIT_FSIZE, self.file_size // 1024)]
        if linux_only.available():
            limits.insert(0, ("v", resource.RLIMIT_AS, self.memory // 1024))
        if self.processes is not None:
            limits.append(("u", resource.RLIMIT_NPROC, self.processes))
        return [f"ulimit -{option} {_within_hard(which, value, unit=1 if option in 'cu' else 1024)}"
                for option, which, value in limits]


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
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))
