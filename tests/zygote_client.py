"""Runs of a script (index.py) forked by the worker's zygote (tests/zygote.py) instead of
started as a new interpreter: on a pseudo-terminal (`pty`, the master fd comes back) or
on pipes (`pipes`). The zygote is the child's parent, so its exit status and the signals
sent to it go through the zygote (`Forked`).

One zygote per test worker, started on first use and gone with the worker.
STEPAGENT_TEST_NO_ZYGOTE=1 turns it off (every run is a real interpreter start), and a run
whose environment differs from the zygote's in what an interpreter reads as it starts
(PYTHON*, LC_*, LANG, and what the zygote's imports read) is started for real too.
"""

from __future__ import annotations

import functools
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NO_ZYGOTE = "STEPAGENT_TEST_NO_ZYGOTE"
STARTUP_PREFIXES = ("PYTHON", "LC_", "LANG")


class Forked:
    """A child the zygote forked: its pid, and the connection its status comes back on."""

    def __init__(self, connection: socket.socket, pid: int) -> None:
        self.connection, self.pid = connection, pid
        self.status: int | None = None

    def send_signal(self, number: int) -> None:
        """Signal the child unless it has ended (the zygote, its parent, has not reaped it yet)."""
        if self.poll() is None:
            try:
                self.connection.send(json.dumps({"signal": int(number)}).encode())
            except OSError:
                pass

    def poll(self, timeout: float | None = 0) -> int | None:
        """os.waitpid's status once the child has ended, else None (waiting up to `timeout`)."""
        if self.status is None and select.select([self.connection], [], [], timeout)[0]:
            message = self.connection.recv(1 << 16)
            if not message:
                raise RuntimeError(f"the zygote went away before child {self.pid} ended")
            self.status = json.loads(message)["status"]
            self.connection.close()
        return self.status

    def wait(self) -> int:
        status = self.poll(None)
        assert status is not None
        return status

    def close(self) -> None:
        """Hang up: the zygote kills the child if it is still running."""
        self.connection.close()


class Zygote:
    """The worker's fork server process, and the environment it was started in."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="stepagent-zygote-")
        self.path = os.path.join(self.folder, "socket")
        self.environment = dict(os.environ)
        self.process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "zygote.py"), self.path],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT,
                                        env=self.environment)
        ready = self.process.stdout.readline()
        self.process.stdout.close()
        if not ready:
            raise RuntimeError(f"the zygote did not start (exit code {self.process.wait()})")
        self.read_at_start = set(json.loads(ready)["environment_read"])

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a child forked here starts as one started for real with `env` would."""
        names = {name for name in {*env, *self.environment} if name.startswith(STARTUP_PREFIXES)}
        return all(env.get(name) == self.environment.get(name) for name in names | self.read_at_start)

    def fork(self, script: str, argv: list[str], env: dict[str, str], cwd: str,
             terminal: tuple[int, int] | None = None, stdio: list[int] = ()) -> tuple[Forked, int | None]:
        """Have `script ARGV` run in a new child; the child and, on a terminal, the pty's master fd."""
        return fork_at(self.path, script, argv, env, cwd, terminal, stdio)

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def fork_at(path: str, script: str, argv: list[str], env: dict[str, str], cwd: str,
            terminal: tuple[int, int] | None = None, stdio: list[int] = (), controlling: bool = False,
            ignored: list[int] | None = None) -> tuple[Forked, int | None]:
    """Ask the zygote listening on `path` for a run (the protocol: tests/zygote.py)."""
    umask = os.umask(0o22)
    os.umask(umask)
    request = {"script": script, "argv": argv, "env": env, "cwd": cwd, "umask": umask,
               "terminal": list(terminal) if terminal else None, "controlling": controlling,
               "ignored": ignored}
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    connection.connect(path)
    socket.send_fds(connection, [json.dumps(request).encode()], list(stdio))
    message, fds, _, _ = socket.recv_fds(connection, 1 << 16, 1)
    if not message:
        raise RuntimeError("the zygote hung up instead of forking")
    for fd in fds:
        os.set_inheritable(fd, False)
    return Forked(connection, json.loads(message)["pid"]), (fds[0] if fds else None)


@functools.cache
def zygote() -> Zygote:
    """This worker's zygote, started on first use."""
    return Zygote()


def forks(env: dict[str, str]) -> bool:
    """Whether a run with `env` is to be forked by the zygote rather than started for real."""
    return os.environ.get(NO_ZYGOTE) != "1" and zygote().serves(env)


def stop() -> None:
    """Stop the zygote if one was started (at the end of the worker's session)."""
    if zygote.cache_info().currsize:
        zygote().stop()
        zygote.cache_clear()


def status_code(status: int) -> int:
    """subprocess's returncode for an os.waitpid status: the exit code, or minus the signal."""
    return os.waitstatus_to_exitcode(status)
