"""The tests' fork server ("zygote"): one Python that has imported what a run of index.py
imports (the project, prompt_toolkit, rich, openai, and what its first answer, request, Bash
command and keys import later), forking a child for each run, which then runs index.py as
`python index.py ARGS` would. A start costs a fork instead of an interpreter start-up and
those imports (0.3-1 s of CPU each, about 190 times a suite).

Started by tests/zygote_client.py, one for the test run's workers: `python tests/zygote.py
SOCKET`. It listens on SOCKET (a Unix SOCK_SEQPACKET socket, one JSON message a packet),
writes SOCKET.ready once it has imported (its environment, and the names it read from it
while importing), and serves until its standard input (a pipe from whoever started it)
closes. Each connection asks for one run:

    -> {"script", "argv", "env", "cwd", "umask", "terminal": [rows, columns] | null, "controlling",
        "ignored"}
       (without a terminal: the child's stdin, stdout and stderr as three fds; with
       "controlling" true they are a terminal that no session controls, a tmux pane's, which
       the child takes as its controlling terminal: tests/zygote_pane.py; "ignored", when not
       null, the signals the child starts with ignored instead of those the zygote started with)
    <- {"pid"} (with a terminal: the pty's master fd; the child leads a session on it)
    -> {"signal": N}   sent to the child while it is not yet reaped (any number of times)
    <- {"status": S}   os.waitpid's status once the child has ended; then the zygote hangs up

A client that hangs up first has its child killed, as closing a pexpect child does.
The zygote stays single-threaded (it forks), and the child is put back to what a fresh
interpreter started by the worker has: environment (replaced whole), cwd, umask, signal
dispositions and mask, standard streams, sys.argv and sys.path[0], then runs the script
as __main__, so exit codes, atexit handlers and flushing at exit are Python's own.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import signal
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRELOADED = ("index", "ui.product", "ui.prompt_first", "ui.repl", "ui.headless", "models.openai_chat", "openai",
             # imported later in a run, by its first answer, request, Bash command or key
             "rich.markdown", "rich.syntax", "httpcore2", "tree_sitter_bash", "prompt_toolkit.input.vt100",
             "prompt_toolkit.key_binding.bindings.search")
PACKET = 1 << 20


@dataclass
class Run:
    """One run asked for: the script and its arguments, where and how it runs."""

    script: str
    argv: list[str]
    env: dict[str, str]
    cwd: str
    umask: int
    terminal: list[int] | None
    controlling: bool = False
    ignored: list[int] | None = None


class Startup:
    """What a fresh interpreter started by the worker would have: taken before anything changes it."""

    def __init__(self) -> None:
        self.dispositions = {number: signal.getsignal(number) for number in signal.valid_signals()
                             if number not in (signal.SIGKILL, signal.SIGSTOP)
                             and signal.getsignal(number) is not None}
        self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
        self.encoding, self.errors = sys.__stdout__.encoding, sys.__stdout__.errors
        self.buffered = not sys.__stdout__.write_through  # -u or PYTHONUNBUFFERED

    def restore(self, run: Run) -> None:
        """In the child: everything a fresh `python SCRIPT ARGS` would see, before it runs SCRIPT."""
        import tempfile
        import time

        os.environ.clear()
        os.environ.update(run.env)
        time.tzset()
        tempfile.tempdir = None
        os.chdir(run.cwd)
        os.umask(run.umask)
        signal.set_wakeup_fd(-1)
        for number, disposition in self.dispositions.items():
            if run.ignored is not None:  # what its own starter ignores, not what the zygote's did
                disposition = (signal.SIG_IGN if number in run.ignored
                               else signal.SIG_DFL if disposition == signal.SIG_IGN else disposition)
            signal.signal(number, disposition)
        signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        sys.stdin, sys.stdout, sys.stderr = (self.stream(0, "<stdin>"), self.stream(1, "<stdout>"),
                                             self.stream(2, "<stderr>"))
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        sys.argv = [run.script, *run.argv]
        sys.orig_argv = [sys.executable, *sys.argv]
        sys.path[0] = str(Path(run.script).parent)

    def stream(self, fd: int, name: str):
        """A standard stream made as CPython makes it at start-up (Python/pylifecycle.c: create_stdio)."""
        import io

        writing, buffered = fd > 0, self.buffered
        binary = io.open(fd, "wb" if writing else "rb", -1 if buffered or not writing else 0, closefd=False)
        raw = binary.raw if hasattr(binary, "raw") else binary
        raw.name = name
        text = io.TextIOWrapper(binary, self.encoding, "backslashreplace" if fd == 2 else self.errors, "\n",
                                line_buffering=buffered and (raw.isatty() or fd == 2),
                                write_through=not buffered)
        text.mode = "w" if writing else "r"
        return text


class RecordingEnviron(os._Environ):
    """os.environ noting every name read: what the imports read is fixed for every child."""

    read: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)


def preload() -> list[str]:
    """Import what the runs import, and fill the cache every preview of a new file fills alike
    (pygments' file-name patterns compiled, 60 ms); the environment names read while doing it."""
    import importlib

    os.environ.__class__ = RecordingEnviron
    try:
        for name in PRELOADED:
            importlib.import_module(name)
        importlib.import_module("ui.preview").lexer_for("warm-up", "")
    finally:
        os.environ.__class__ = os._Environ
    return sorted(RecordingEnviron.read)


class Server:
    """The accept / fork / reap loop, on one thread."""

    def __init__(self, listener: socket.socket) -> None:
        self.listener = listener
        self.selector = selectors.DefaultSelector()
        self.wakeup_read, self.wakeup_write = os.pipe()
        os.set_blocking(self.wakeup_read, False)
        os.set_blocking(self.wakeup_write, False)
        self.open: set[socket.socket] = set()
        self.children: dict[socket.socket, int] = {}
        self.connections: dict[int, socket.socket] = {}

    def serve(self) -> Run | None:
        """Serve until the worker goes; in a child just forked, return the run it is to make."""
        signal.signal(signal.SIGCHLD, lambda number, frame: None)
        signal.set_wakeup_fd(self.wakeup_write)
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.selector.register(sys.stdin.fileno(), selectors.EVENT_READ)
        self.selector.register(self.wakeup_read, selectors.EVENT_READ)
        while True:
            for key, _ in self.selector.select():
                if key.fileobj is self.listener:
                    connection, _ = self.listener.accept()
                    self.open.add(connection)
                    self.selector.register(connection, selectors.EVENT_READ)
                elif key.fileobj == self.wakeup_read:
                    while os.read(self.wakeup_read, 512) == 512:
                        pass
                    self.reap()
                elif key.fileobj == sys.stdin.fileno():
                    if not os.read(sys.stdin.fileno(), 512):
                        self.kill_all()
                        return None
                elif key.fileobj in self.open:  # not hung up earlier in this round
                    run = self.receive(key.fileobj)
                    if run is not None:
                        return run

    def receive(self, connection: socket.socket) -> Run | None:
        try:
            message, fds, _, _ = socket.recv_fds(connection, PACKET, 3)
        except OSError:
            message, fds = b"", []
        if not message:
            self.hang_up(connection)
            for fd in fds:
                os.close(fd)
            return None
        request = json.loads(message)
        if connection in self.children:
            os.kill(self.children[connection], request["signal"])  # not reaped: it would have hung up
            return None
        return self.fork(connection, Run(**request), fds)

    def fork(self, connection: socket.socket, run: Run, fds: list[int]) -> Run | None:
        threads = os.listdir("/proc/self/task")
        assert len(threads) == 1, f"the zygote must not fork with threads: {threads}"
        sys.stdout.flush()
        sys.stderr.flush()
        if run.terminal:
            import pty

            pid, master = pty.fork()
        else:
            pid, master = os.fork(), -1
        if pid == 0:
            self.leave(fds, run)
            return run
        for fd in fds:
            os.close(fd)
        self.children[connection] = pid
        self.connections[pid] = connection
        socket.send_fds(connection, [json.dumps({"pid": pid}).encode()], [master] if master >= 0 else [])
        if master >= 0:
            os.close(master)
        return None

    def leave(self, fds: list[int], run: Run) -> None:
        """In the child: drop the server's sockets and pipes; the run's fds become 0, 1 and 2."""
        self.selector.close()
        for connection in [self.listener, *self.open]:
            connection.close()
        os.close(self.wakeup_read)
        os.close(self.wakeup_write)
        for number, fd in enumerate(fds):
            os.dup2(fd, number)
            os.close(fd)
        import fcntl
        import termios

        if run.terminal:
            import struct

            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", *run.terminal, 0, 0))
        if run.controlling:
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            connection = self.connections.pop(pid, None)
            if connection is None:
                continue
            try:
                connection.send(json.dumps({"status": status}).encode())
            except OSError:
                pass
            self.hang_up(connection)

    def hang_up(self, connection: socket.socket) -> None:
        pid = self.children.pop(connection, None)
        if pid is not None and pid in self.connections:
            del self.connections[pid]
            os.kill(pid, signal.SIGKILL)
        self.open.discard(connection)
        self.selector.unregister(connection)
        connection.close()

    def kill_all(self) -> None:
        for pid in self.connections:
            os.kill(pid, signal.SIGKILL)


def main(path: str) -> Run | None:
    """Bind, import, say ready, serve; a child returns here with its run."""
    startup = Startup()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    read = preload()
    gc.freeze()  # the children's collections leave the shared imports alone (and their pages shared)
    with open(f"{path}.writing", "w") as ready:
        json.dump({"environment": dict(os.environ), "environment_read": read}, ready)
    os.replace(f"{path}.writing", f"{path}.ready")
    run = Server(listener).serve()
    if run is not None:
        startup.restore(run)
    return run


def run_as_main(script: str) -> None:
    """Run `script` as __main__ and end the process as the interpreter ends it, without tearing
    down the modules the zygote imported: that last step would touch every page the fork shares
    (0.3 s of CPU each run), and it does nothing a test sees once atexit has run and the
    standard streams are flushed."""
    import atexit
    import runpy
    import threading

    code, interrupted = 0, False
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit:
        code = exit_code(exit.code)
    except BaseException as failure:
        interrupted, code = isinstance(failure, KeyboardInterrupt), 1
        sys.excepthook(type(failure), failure, from_script(failure.__traceback__, script))
    threading._shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception as failure:
            if stream is sys.stdout:
                import traceback

                print(f"Exception ignored in: {stream!r}", file=sys.stderr)
                traceback.print_exception(failure, file=sys.stderr)
            code = 120
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


def from_script(frames, script: str):
    """The traceback from the script's own frame on, as a real start prints it (no runpy, no zygote)."""
    while frames.tb_next and frames.tb_frame.f_code.co_filename != script:
        frames = frames.tb_next
    return frames


def exit_code(code: object) -> int:
    """The exit status of SystemExit(code), as the interpreter makes it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.path[0] = str(ROOT)
    made = main(sys.argv[1])
    if made is not None:
        run_as_main(made.script)
