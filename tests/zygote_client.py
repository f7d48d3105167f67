"""Runs of a script (index.py) forked by the worker's zygote (tests/zygote.py) instead of
started as a new interpreter: on a pseudo-terminal (`pty`, the master fd comes back) or
on pipes (`pipes`). The zygote is the child's parent, so its exit status and the signals
sent to it go through the zygote (`Forked`).

One zygote serves the test run: started by the run's controller for its workers (`share`;
STEPAGENT_TEST_ZYGOTE says where), or by a run without workers on first use, and gone
with whoever started it. STEPAGENT_TEST_NO_ZYGOTE=1 turns it off (every run is a real
interpreter start), and a run whose environment differs from the zygote's in what an
interpreter reads as it starts (PYTHON*, LC_*, LANG, and what the zygote's imports read)
is started for real too.
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
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NO_ZYGOTE = "STEPAGENT_TEST_NO_ZYGOTE"
SHARED = "STEPAGENT_TEST_ZYGOTE"
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
    """A fork server process: its socket, and the environment it was started in."""

    def __init__(self, folder: str, process: subprocess.Popen | None = None) -> None:
        self.folder, self.process = folder, process
        self.path = os.path.join(folder, "socket")
        ready = self.ready()
        self.environment, self.read_at_start = ready["environment"], set(ready["environment_read"])

    def ready(self, patience: float = 120) -> dict:
        """What the zygote wrote once it had imported, waiting for it."""
        deadline = time.monotonic() + patience
        while not os.path.exists(f"{self.path}.ready"):
            if (self.process and self.process.poll() is not None) or time.monotonic() > deadline:
                raise RuntimeError(f"the zygote in {self.folder} did not start")
            time.sleep(0.01)
        with open(f"{self.path}.ready") as ready:
            return json.load(ready)

    def serves(self, env: dict[str, str]) -> bool:
        """Whether a child forked here starts as one started for real with `env` would."""
        names = {name for name in {*env, *self.environment} if name.startswith(STARTUP_PREFIXES)}
        return all(env.get(name) == self.environment.get(name) for name in names | self.read_at_start)

    def fork(self, script: str, argv: list[str], env: dict[str, str], cwd: str,
             terminal: tuple[int, int] | None = None, stdio: list[int] = ()) -> tuple[Forked, int | None]:
        """Have `script ARGV` run in a new child; the child and, on a terminal, the pty's master fd."""
        return fork_at(self.path, script, argv, env, cwd, terminal, stdio)

    def stop(self) -> None:
        """Stop the zygote if this process started it."""
        if self.process is not None:
            stop_process(self.folder, self.process)


def launch() -> tuple[str, subprocess.Popen]:
    """Start a zygote in this process's environment: its folder, and the process (not yet ready)."""
    folder = tempfile.mkdtemp(prefix="stepagent-zygote-")
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "zygote.py"),
                                os.path.join(folder, "socket")],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, cwd=ROOT)
    return folder, process


def stop_process(folder: str, process: subprocess.Popen) -> None:
    process.stdin.close()
    process.wait()
    shutil.rmtree(folder, ignore_errors=True)


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


def share() -> Callable[[], None]:
    """Start the zygote the workers this process starts will use (unless it is turned off); its stop."""
    if os.environ.get(NO_ZYGOTE) == "1":
        return lambda: None
    folder, process = launch()
    os.environ[SHARED] = json.dumps({"root": str(ROOT), "folder": folder})
    return lambda: stop_process(folder, process)


@functools.cache
def zygote() -> Zygote:
    """The zygote this process uses: the one its run's controller shared (for this copy of the
    project, not a copy a test runs the suite of), else its own, started now."""
    shared = json.loads(os.environ.get(SHARED, "{}"))
    if shared.get("root") == str(ROOT):
        return Zygote(shared["folder"])
    return Zygote(*launch())


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
