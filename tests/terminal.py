"""stepagent's REPL in a pseudo-terminal (Terminal) or in tmux (Screen), driven as a person would drive it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pexpect
import ptyprocess

from tests.zygote_client import Forked, forks, zygote

ROOT = Path(__file__).resolve().parent.parent
Found = TypeVar("Found")


class ForkedPty(ptyprocess.PtyProcess):
    """A pty child the zygote forked: the zygote, its parent, tells when it ends."""

    def __init__(self, forked: Forked, fd: int) -> None:
        super().__init__(forked.pid, fd)
        self.forked = forked

    def isalive(self) -> bool:
        if self.terminated:
            return False
        status = self.forked.wait() if self.flag_eof else self.forked.poll()
        if status is None:
            return True
        self.status, self.terminated = status, True
        self.exitstatus = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        self.signalstatus = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return False

    def wait(self) -> int | None:
        if self.isalive():
            self.flag_eof = True
            self.isalive()
        return self.exitstatus

    def kill(self, sig: int) -> None:
        self.forked.send_signal(sig)

    def close(self, force: bool = True) -> None:
        super().close(force)
        self.forked.close()


class ForkedSpawn(pexpect.spawn):
    """pexpect.spawn whose `python index.py ARGS` child is forked by the worker's zygote."""

    def _spawnpty(self, args: list[bytes], **options) -> ForkedPty:
        script, *argv = (os.fsdecode(arg) for arg in args[1:])
        rows, columns = options.get("dimensions") or (24, 80)
        forked, fd = zygote().fork(script, argv, options["env"], options["cwd"], terminal=(rows, columns))
        return ForkedPty(forked, fd)


class Terminal:
    """A pexpect child that answers the cursor-position requests prompt-toolkit
    sends, as a real terminal does (without them it draws no bottom toolbar)."""

    CPR = re.escape("\x1b[6n")

    def __init__(self, child: pexpect.spawn):
        self.child = child

    @classmethod
    def start(cls, workspace: Path, *args: str, env: dict[str, str] | None = None,
              program: str = "", columns: int = 120) -> "Terminal":
        """Run `index.py ARGS` (or `program ARGS`) in `workspace` on a terminal 40 lines high."""
        command, argv = ((program, list(args)) if program
                         else (sys.executable, [str(ROOT / "index.py"), *args]))
        env = {**os.environ, "TERM": "xterm", **(env or {})}
        spawn = ForkedSpawn if not program and forks(env) else pexpect.spawn
        child = spawn(command, argv, cwd=str(workspace), env=env, encoding="utf-8", timeout=30,
                      dimensions=(40, columns))
        child.delaybeforesend = None  # pexpect's default waits 50 ms before every key sent
        return cls(child)

    def expect(self, pattern) -> None:
        patterns = [pattern, self.CPR] + ([] if pattern is pexpect.EOF else [pexpect.EOF])
        while (index := self.child.expect(patterns)) == 1:
            self.child.send("\x1b[1;1R")
        if index == 2:
            raise AssertionError(f"the REPL exited while waiting for {pattern!r}: {self.child.before[-500:]}")

    def expect_text(self, text: str) -> None:
        """Wait until `text` appears on the screen as a person reads it: taken literally, with
        any colour or cursor codes allowed between its characters."""
        codes = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"
        self.expect(codes.join(re.escape(character) for character in text))

    def sendline(self, text: str) -> None:
        self.child.sendline(text)

    def send(self, text: str) -> None:
        self.child.send(text)

    def close(self) -> None:
        self.child.terminate(force=True)


class Screen:
    """stepagent in a tmux window of its own, read as the user sees it (what stays on the screen).

    The pane's program is a child of the tests' zygote handed the pane's terminal
    (tests/zygote_pane.py), unless its environment needs a real start (or `forked` is False).
    tmux reads a config of its own (not the user's), keeping 50,000 lines of scrollback, and
    copies what the pane shows into a file (pipe-pane): a wait reads the screen again only once
    that file has grown.
    """

    def __init__(self, tmp_path: Path, workspace: Path, *args: str, env: dict[str, str] | None = None,
                 columns: int = 120, forked: bool = True):
        self.socket = f"stepagent-screen-{os.getpid()}-{tmp_path.name}"
        self.shown = tmp_path / "tmux-shown"
        config = tmp_path / "tmux.conf"
        config.write_text("set -g history-limit 50000\n")
        settings = {"STEPAGENT_HOME": os.environ["STEPAGENT_HOME"], "TERM": "xterm-256color", **(env or {})}
        program = [sys.executable]
        if forked and forks({**os.environ, **settings}):
            program += ["-S", "-E", str(ROOT / "tests" / "zygote_pane.py"), zygote().path]
        command = (f"cd {shlex.quote(str(workspace))} && export "
                   + " ".join(f"{name}={shlex.quote(value)}" for name, value in settings.items())
                   + " && exec " + shlex.join([*program, str(ROOT / "index.py"), *args]))
        self.tmux("-f", str(config), "new-session", "-d", "-s", "main", "-x", str(columns), "-y", "30",
                  command)
        self.tmux("pipe-pane", "-t", "main", "-O", f"cat >> {shlex.quote(str(self.shown))}")

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              check=True).stdout

    def text(self) -> str:
        """Everything the pane holds, its scrollback too, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main")

    def visible(self) -> str:
        """The lines on the screen now, as the pane shows them."""
        return self.tmux("capture-pane", "-p", "-t", "main")

    def wait_until(self, check: Callable[[str], Found | None], what: str, timeout: float = 60,
                   capture: Callable[[], str] | None = None) -> Found:
        """What `check` finds in the screen (`capture`, by default `text`), read again as the pane changes."""
        deadline = time.monotonic() + timeout
        while True:
            before, read_at = self.shown_size(), time.monotonic()
            screen = (capture or self.text)()
            if (found := check(screen)) is not None:
                return found
            while self.shown_size() == before or time.monotonic() < read_at + 0.05:  # 20 reads a second, at most
                if time.monotonic() > deadline:
                    raise AssertionError(f"{what} never appeared; the screen was:\n{screen}")
                time.sleep(0.01)

    def wait_for(self, wanted: str, timeout: float = 60) -> str:
        return self.wait_until(lambda screen: screen if wanted in screen else None, repr(wanted), timeout)

    def shown_size(self) -> int:
        try:
            return self.shown.stat().st_size
        except FileNotFoundError:
            return 0

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "main", *keys)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
