"""What a Bash call left running: the processes that escaped its process group.

Beside process.py, in every mode. A call's process group is killed when the
call ends, but a process that called setsid (a daemon, `setsid cmd &`) or
took a group of its own (`set -m` in bash) is not in it, and goes on. To find
those, every call's environment carries a marker, STEPAGENT_BASH_CALL, whose
value names the workspace (a hash of its path), this stepagent process (its
pid and start time, so a reused pid is not mistaken for it) and the call.
Children inherit their environment, so once the call's group is killed, any
live process outside that group whose /proc/PID/environ carries the marker
was left behind by the call; carrying this stepagent's part of the marker, by
any of its calls. `left_in` adds what stepagent processes that have since
ended left in the same workspace (a session resumed in plan mode must stop
them too), but never what another stepagent still running there started.
Nothing is waited for or reaped: subprocess keeps sole charge of its own
children.

Why not the alternatives. PR_SET_CHILD_SUBREAPER makes orphans stepagent's
children, but they must then be reaped, and waiting for "any child"
(waitpid(-1)) steals exit codes that subprocess waits for; it also changes
the whole process, and does not say which call a process came from. A cgroup
per call sees every process whatever its environment, but needs root (or a
delegated cgroup tree); tools/bash/sandbox/cgroups.py uses one for plan-mode
calls as root. The marker needs no privilege, and finding it reads /proc once
(bench/left_running.py measures it).

A call's own scan looks only at the pids handed out since the call began
(`left_by`): the counter wrapping all the way around to the call's first pid
within one call (pid_max processes started) would hide a process from that
report, as dropping the variable does more simply; the sweeps when plan mode
begins (`left_in`, stop_left_running.py) look at every process.

What it cannot see: a process that drops the variable (`env -i setsid …`,
programs that clean their environment) or rewrites its own environment
block; a process whose environ cannot be read (another user's, or a setuid
program's, unless stepagent runs as root); a process in another PID namespace;
and one that a daemon already running starts on a call's request (`tmux
new -d` with a tmux server up, `systemd-run --user`, `at`): the daemon's
children carry the daemon's environment, not the call's.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tools import linux_only
from tools.base import counted

VARIABLE = "STEPAGENT_BASH_CALL"
SHOWN = 5
PROBED = 64  # new pids looked up one by one; beyond, listing /proc is cheaper


@dataclass(frozen=True)
class LeftProcess:
    """A live process that carries a call's marker: who it is and where it sits."""

    pid: int
    name: str
    parent: int
    group: int
    started: int

    @property
    def shown(self) -> str:
        """`1234 sh`, its name made printable (a process names itself)."""
        return f"{self.pid} {''.join(c if c.isprintable() else '?' for c in self.name)}"


def this_stepagent(workspace: Path) -> str:
    """This stepagent's part of the marker: the workspace, then its pid and start time."""
    key = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:12]
    return f"{key}.{os.getpid()}.{_stat(os.getpid())[19]}"


def new_call_marker(stepagent: str) -> str:
    """The marker for one call: this stepagent's part (`this_stepagent`), then a token of its own."""
    return f"{stepagent}.{secrets.token_hex(4)}"


def left_by(marker: str, outside_group: int = 0) -> list[LeftProcess]:
    """Live processes carrying `marker` (a call's, or this_stepagent()'s for all its calls).

    Processes in `outside_group` (the call's own group, killed but perhaps not yet
    gone) are not counted. Its leader is the call's first process, so only processes
    created after it are looked at (`_pids`).
    """
    return [process for value, process in _marked(since=outside_group)
            if (value == marker or value.startswith(marker + ".")) and process.group != outside_group]


def left_in(workspace: Path) -> list[LeftProcess]:
    """What this stepagent's calls, and those of stepagent processes that have ended, left in `workspace`."""
    own = this_stepagent(workspace)
    key = own.split(".")[0]
    found = []
    for value, process in _marked():
        parts = value.split(".")
        if len(parts) == 4 and parts[0] == key and (
                value.startswith(own + ".") or not _alive(parts[1], parts[2])):
            found.append(process)
    return found


def still_running(process: LeftProcess) -> bool:
    """True while this very process (not one that reused its pid) has not exited."""
    found = _describe(process.pid)
    return found is not None and found.started == process.started


def topmost(processes: list[LeftProcess]) -> list[LeftProcess]:
    """Those whose parent is not among them: `sh` rather than the `sleep` it runs just now."""
    pids = {process.pid for process in processes}
    return [process for process in processes if process.parent not in pids]


def describe(processes: list[LeftProcess]) -> str:
    """`1 process (1234 sh)`, counting the topmost ones, naming at most SHOWN."""
    shown = topmost(processes)
    names = ", ".join(process.shown for process in shown[:SHOWN])
    more = f", and {len(shown) - SHOWN} more" if len(shown) > SHOWN else ""
    return f"{counted(len(shown), 'process')} ({names}{more})"


def _marked(since: int = 0) -> Iterator[tuple[str, LeftProcess]]:
    """Each live process whose environment carries a marker, with the marker; with `since`,
    only those created after the process with that pid (`_pids`)."""
    wanted = f"{VARIABLE}=".encode()
    if not linux_only.available():
        return
    pids, threads_among_them = _pids(since)
    for pid in pids:
        value = _marker_of(pid, wanted)
        process = _describe(pid) if value and (not threads_among_them or _leads(pid)) else None
        if process:
            yield value, process


def _pids(since: int) -> tuple[Iterable[int], bool]:
    """The pids to look at, and whether threads' ids may be among them.

    Pids (threads' too) are handed out in increasing order, so what was created
    after `since` has the pids after it, up to the last one handed out: at most
    PROBED of them (none at all after most calls) are each looked up, so the
    processes already on the machine cost nothing; more, and /proc's listing is
    read for them. When the counter wrapped around since, every process is looked at.
    """
    last = _last_pid() if since else 0
    newer = range(since + 1, last + 1) if since and last >= since else None
    if newer is not None and len(newer) <= PROBED:
        return newer, True
    return [int(name) for name in os.listdir("/proc")
            if name.isdigit() and (newer is None or int(name) in newer)], False


def _last_pid() -> int:
    """The pid most recently handed out in this PID namespace (the last field of /proc/loadavg)."""
    with open("/proc/loadavg", encoding="ascii") as loadavg:
        return int(loadavg.read().split()[-1])


def _leads(pid: int) -> bool:
    """Whether `pid` is a process's own, not one of its threads' (/proc/TID is there, though unlisted)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            return any(line.split() == ["Tgid:", str(pid)] for line in status)
    except OSError:
        return False


def _marker_of(pid: int, wanted: bytes) -> str:
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            block = environ.read()
    except OSError:  # gone, another user's, or a setuid program's
        return ""
    if wanted not in block:
        return ""
    for item in block.split(b"\0"):
        if item.startswith(wanted):
            return item[len(wanted):].decode("ascii", errors="replace")
    return ""


def _alive(pid: str, started: str) -> bool:
    """True while the stepagent process with this pid and start time runs."""
    process = _describe(int(pid)) if pid.isdigit() else None
    return process is not None and str(process.started) == started


def _describe(pid: int) -> LeftProcess | None:
    """The process as /proc/PID/stat tells it; None when gone or a zombie (it can change nothing)."""
    try:
        fields = _stat(pid)
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as comm:
            name = comm.read().rstrip("\n")
    except OSError:
        return None
    if fields[0] in ("Z", "X"):
        return None
    return LeftProcess(pid, name, parent=int(fields[1]), group=int(fields[2]), started=int(fields[19]))


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses)."""
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
        return stat.read().rsplit(")", 1)[1].split()
