"""Run one Bash call to its end, and leave nothing of it behind.

The process side of the Bash tool, in every mode. The call starts a session
of its own, so its processes form one group. Unless the command dies with
stepagent by itself (bubblewrap's --die-with-parent), the tool's watchdog
(watchdog.py) kills that group should stepagent die, even by kill -9: the
call's first process registers the group with it before the command runs.
When the call ends normally, the group is killed. The child runs no Python
between fork and exec unless the caller asks for it (`in_child`: limits, a
Landlock ruleset), so subprocess starts it with vfork, several milliseconds
cheaper than a fork of stepagent's whole memory (bench/bash_safety.py). The
output is read here, in the calling thread, with poll(): not by a reader that
waits for the pipe to close, so a background job cannot hold the call open.
When the shell ends, at the timeout, at Ctrl-C and when the output floods, the
whole group is killed; at Ctrl-C the output so far goes with the interrupt
(CallInterrupted).
"""

from __future__ import annotations

import codecs
import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tools.base import CallInterrupted
from tools.bash.watchdog import Watchdog

MAX_OUTPUT = 30_000
FLOOD_LIMIT = 10_000_000
DRAIN_SECONDS = 0.5
POLL_SLICE_SECONDS = 0.2  # a sub-agent's thread can only be interrupted between slices
EXIT_LOOK_SECONDS = 0.02


@dataclass
class Outcome:
    """What a finished call left: its output (capped), how it ended, and its process group."""

    text: str
    returncode: int | None
    timed_out: bool = False
    flooded: bool = False
    group: int = 0


class _Capped:
    """Keeps the first MAX_OUTPUT characters, counts the rest, and notices a flood
    (`cat /dev/urandom` is read-only, and endless)."""

    def __init__(self) -> None:
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.kept: list[str] = []
        self.characters = 0
        self.size = 0

    def add(self, chunk: bytes) -> None:
        text = self.decoder.decode(chunk)
        if self.characters < MAX_OUTPUT:
            self.kept.append(text[:MAX_OUTPUT - self.characters])
        self.characters += len(text)
        self.size += len(chunk)

    @property
    def flooded(self) -> bool:
        return self.size > FLOOD_LIMIT

    def text(self) -> str:
        kept = "".join(self.kept).rstrip("\n") or "(no output)"
        if self.characters > MAX_OUTPUT:
            kept += f"\n… output cut at {MAX_OUTPUT} of {self.characters} characters."
        return kept


def run_process(argv: Sequence[str], cwd: str, env: dict[str, str], timeout: float,
                in_child: Sequence[Callable[[], None]] = (), pass_fds: Sequence[int] = (),
                watchdog: Watchdog | None = None, started: Callable[[int], None] | None = None,
                executable: str | None = None) -> Outcome:
    """Run argv with its output captured; return when it ends, times out or floods.

    With a `watchdog`, argv's first process registers on its pipe, given as stdin (watchdog.py);
    None where the command already dies whole with stepagent (bubblewrap). `started` runs
    once the process has started, given its pid (should it fail, the call is stopped like any other).
    `executable` is argv[0]'s path where the caller has found it once (else PATH is searched,
    one failed exec per folder before it, at every call).
    """
    steps = tuple(in_child)
    process = subprocess.Popen(list(argv), executable=executable, cwd=cwd, env=env,
                               stdin=watchdog.pipe() if watchdog else subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True, pass_fds=tuple(pass_fds),
                               preexec_fn=(lambda: [step() for step in steps]) if steps else None)
    output = _Capped()
    interrupted = False
    try:
        if started:
            started(process.pid)
        timed_out = _read_until_done(process, output, time.monotonic() + timeout)
    except KeyboardInterrupt:
        timed_out = interrupted = True
    finally:
        _kill_group(process)
        _drain(process, output)
        if watchdog:
            watchdog.ended(process.pid)
        process.wait()
        process.stdout.close()
    if interrupted:
        raise CallInterrupted(output.text())
    return Outcome(output.text(), None if timed_out or output.flooded else process.returncode,
                   timed_out=timed_out, flooded=output.flooded, group=process.pid)


def _read_until_done(process: subprocess.Popen, output: _Capped, deadline: float) -> bool:
    """Read while the shell runs; True when the deadline passed first. A pidfd wakes
    the loop when the shell exits (where there is none, waitid looks each
    EXIT_LOOK_SECONDS); the shell is left unreaped (its zombie keeps its pid),
    so killing its group afterwards cannot hit a stranger."""
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    exited = os.pidfd_open(process.pid) if hasattr(os, "pidfd_open") else None
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    if exited is not None:
        poller.register(exited, select.POLLIN)
    slice_seconds = POLL_SLICE_SECONDS if exited is not None else EXIT_LOOK_SECONDS
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            ready = dict(poller.poll(min(left, slice_seconds) * 1000))
            if output.flooded or (exited in ready if exited is not None else _has_exited(process)):
                return False
            if fd in ready and not _read_available(fd, output):
                poller.unregister(fd)
    finally:
        if exited is not None:
            os.close(exited)


def _has_exited(process: subprocess.Popen) -> bool:
    """Whether the shell has exited, leaving it unreaped."""
    return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _read_available(fd: int, output: _Capped) -> bool:
    """Read what is there; False at end of file."""
    while not output.flooded:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        output.add(chunk)
    return True


def _drain(process: subprocess.Popen, output: _Capped) -> None:
    """Collect what the group wrote before it was killed, for a moment at most
    (a process that escaped the group may hold the pipe)."""
    fd = process.stdout.fileno()
    end = time.monotonic() + DRAIN_SECONDS
    while not output.flooded and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], max(end - time.monotonic(), 0))
        if not ready or not _read_available(fd, output):
            return


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
