"""Cgroups that cap how many processes, and how much memory, plan-mode Bash may use.

A layer of the plan-mode sandbox, for root. The kernel exempts uid 0 from
RLIMIT_NPROC, so a fork bomb run as root would fill the process table until
the timeout; and rlimits bound memory per process, not in total. A cgroup's
pids.max and memory limit bind root too and count every process of the call.
It needs writable cgroup hierarchies (v1 `pids` and `memory`, or v2 offering
both controllers); where there are none, the status table says so.

One cgroup serves all the calls of a Bash tool (they run one at a time): it is
made on first use and removed when stepagent exits, and at the end of each
call whatever is still in it is killed (a process that left the call's process
group is still here). Making and removing one per call would cost a wait for
the kernel to reap each call's processes.
"""

from __future__ import annotations

import os
import signal
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

MAX_PROCESSES = 256
MAX_MEMORY = 2 << 30
V1 = {"pids": (Path("/sys/fs/cgroup/pids"), "pids.max", MAX_PROCESSES),
      "memory": (Path("/sys/fs/cgroup/memory"), "memory.limit_in_bytes", MAX_MEMORY)}
V2 = (Path("/sys/fs/cgroup"), {"pids.max": MAX_PROCESSES, "memory.max": MAX_MEMORY})


@dataclass
class CallCgroup:
    """The cgroup folders (one per v1 hierarchy, or one in v2) a call's processes join."""

    paths: list[Path]

    def join(self, pid: int = 0) -> None:
        """Move single-threaded process `pid` into the cgroup: this one, between fork and exec, by default.

        Moving another process waits for an RCU grace period (milliseconds); in a v1 hierarchy
        moving oneself does not (joining_ends)."""
        for path in self.paths:
            with open(path / _joined_by(path), "w", encoding="ascii") as procs:
                procs.write(str(pid))

    def joining_ends(self) -> list[int]:
        """Descriptors, opened here for writing, through which a process that writes "0" joins the cgroup.

        For a process inside bubblewrap, where the cgroup files are read-only; the kernel
        checks the permission of whoever opened them. The caller closes them."""
        ends: list[int] = []
        try:
            for path in self.paths:
                ends.append(os.open(path / _joined_by(path), os.O_WRONLY | os.O_CLOEXEC))
        except OSError:
            for end in ends:
                os.close(end)
            raise
        return ends

    def kill_members(self) -> None:
        """Kill whatever is still in the cgroup."""
        for path in self.paths:
            try:
                members = (path / "cgroup.procs").read_text(encoding="ascii").split()
            except OSError:
                continue
            for pid in members:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    def remove(self) -> None:
        """Kill what is left, then remove the folders once the kernel has reaped it."""
        for _ in range(100):
            self.kill_members()
            remaining = [path for path in self.paths if _rmdir(path)]
            if not remaining:
                return
            self.paths = remaining
            time.sleep(0.01)


@dataclass
class SharedCgroup:
    """One CallCgroup for all of a tool's calls, made on first use."""

    made: list[CallCgroup | None] = field(default_factory=list)

    def get(self) -> CallCgroup | None:
        """The tool's cgroup, created on first use; None where cgroups cannot be used."""
        if not self.made:
            remove_left_behind()
            cgroup = make_call_cgroup(f"stepagent-{os.getpid()}-{time.monotonic_ns()}")
            if cgroup:
                weakref.finalize(self, cgroup.remove)
            self.made.append(cgroup)
        return self.made[0]


def remove_left_behind() -> None:
    """Remove the cgroups of stepagent processes that died without cleaning up (kill -9, a closed terminal).

    Their names carry the pid that made them.
    """
    for hierarchy in [path for path, _, _ in V1.values()] + [V2[0]]:
        try:
            names = [name for name in os.listdir(hierarchy) if name.startswith("stepagent-")]
        except OSError:
            continue
        stale = [hierarchy / name for name in names if not _alive(name.split("-")[1])]
        if stale:
            CallCgroup(stale).remove()


def _alive(pid: str) -> bool:
    return not pid.isdigit() or os.path.exists(f"/proc/{pid}")


def make_call_cgroup(name: str) -> CallCgroup | None:
    """A fresh cgroup with its limits set, or None where no hierarchy is writable."""
    paths = []
    for hierarchy, limit, value in V1.values():
        path = _made(hierarchy / name, {limit: value})
        if path is None:
            break
        paths.append(path)
    else:
        return CallCgroup(paths)
    CallCgroup(paths).remove()
    path = _made(V2[0] / name, V2[1])
    return CallCgroup([path]) if path else None


def _made(path: Path, limits: dict[str, int]) -> Path | None:
    if not (path.parent / "cgroup.procs").exists():
        return None
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        for limit, value in limits.items():
            (path / limit).write_text(str(value), encoding="ascii")
        return path
    except OSError:
        path.rmdir()
        return None


def _joined_by(path: Path) -> str:
    """The file that moves a single-threaded process into the cgroup, given its pid (0: the writer).

    A v1 hierarchy has `tasks`, which moves one thread without locking every
    thread group on the machine, as cgroup.procs does (an RCU grace period:
    milliseconds a call, per hierarchy). The forked child and bubblewrap, which
    are moved, are single-threaded, so the thread is the whole process. v2 has
    cgroup.procs only."""
    return "tasks" if (path / "tasks").exists() else "cgroup.procs"


def _rmdir(path: Path) -> bool:
    """True while the folder is still there."""
    try:
        path.rmdir()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return False
