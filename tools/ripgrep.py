"""Running ripgrep for Glob and Grep with bounds on what it may take: memory, time, output kept.

In every mode, because a hostile repository makes a plain search unbounded too:
- memory: RLIMIT_AS of MEMORY_BYTES, set by a bash trampoline before exec (so
  no Python runs between fork and exec; -p: it reads no BASH_ENV and imports no
  exported function). An ignore file linked to a huge file
  or a device grows ripgrep by half a gigabyte a second; at the limit it stops.
- output: read as it comes, at most `keep` lines of at most MAX_LINE_BYTES
  each; past that ripgrep is stopped. `Grep ""` on /usr used to gather 7 GB
  before keeping 200 lines. Bytes that are not UTF-8 are replaced, not fatal.
- time: TIMEOUT_SECONDS, then ripgrep is stopped.
What it may open is bounded by the caller's view (tools/ignore_files.py).
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.bash.sandbox.limits import Limits

MEMORY_BYTES = 1 << 30
TIMEOUT_SECONDS = 60
MAX_KEPT_LINES = 10_000
MAX_LINE_BYTES = 1_000
MAX_ERROR_BYTES = 4_000
READ_BYTES = 1 << 16
POLL_SECONDS = 0.2  # a sub-agent's thread can only be interrupted between polls
NOTHING_SEARCHED = "No files were searched"


@dataclass
class Found:
    """What ripgrep printed, as far as it was kept, and what went wrong ('' when nothing)."""

    lines: list[str] = field(default_factory=list)
    complete: bool = True
    problem: str = ""


def ripgrep() -> str:
    """The rg that came with this environment's ripgrep wheel, else the one on PATH."""
    beside_python = Path(sys.executable).with_name("rg")
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which("rg")
    if not found:
        raise FileNotFoundError("ripgrep (rg) is not installed; install the requirements first.")
    return found


def run_ripgrep(arguments: list[str], cwd: Path, prefix: list[str] | None = None,
                keep: int = MAX_KEPT_LINES) -> Found:
    """Rg's first `keep` output lines; `complete` is False when it was stopped for more.

    A `prefix` runs it inside a sandbox."""
    argv = [*Limits(memory=MEMORY_BYTES).trampoline(name="ripgrep"), *(prefix or []), ripgrep(),
            "--no-config", "--color", "never", *arguments]
    try:
        process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return Found(problem=str(exc))
    lines, errors = _Lines(keep), bytearray()
    try:
        ended = _read(process, lines, errors)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        process.stdout.close()
        process.stderr.close()
    error_text = errors.decode("utf-8", "replace").strip()
    if not ended:
        return Found(problem=f"ripgrep did not finish within {TIMEOUT_SECONDS} s and was stopped")
    if lines.more:
        return Found(lines.finish(), complete=False)
    if process.returncode not in (0, 1) and NOTHING_SEARCHED not in error_text:
        if "memory allocation" in error_text:
            error_text += f" (ripgrep may use {MEMORY_BYTES >> 20} MiB)"
        return Found(problem=error_text or f"rg exited with {process.returncode}")
    return Found(lines.finish())


def _read(process: subprocess.Popen, lines: _Lines, errors: bytearray) -> bool:
    """Read both pipes until they close or enough lines are kept; False at the timeout."""
    deadline = time.monotonic() + TIMEOUT_SECONDS
    sinks = {process.stdout.fileno(): lines.add,
             process.stderr.fileno(): lambda chunk: errors.extend(chunk[:MAX_ERROR_BYTES - len(errors)])}
    with selectors.DefaultSelector() as selector:
        for descriptor in sinks:
            selector.register(descriptor, selectors.EVENT_READ)
        while selector.get_map() and not lines.more:
            if time.monotonic() > deadline:
                return False
            for key, _ in selector.select(POLL_SECONDS):
                chunk = os.read(key.fd, READ_BYTES)
                if chunk:
                    sinks[key.fd](chunk)
                else:
                    selector.unregister(key.fd)
    return True


class _Lines:
    """Output split into lines as it arrives: at most `keep`, each cut at MAX_LINE_BYTES."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.kept: list[str] = []
        self.partial = bytearray()
        self.cut = False
        self.more = False

    def add(self, chunk: bytes) -> None:
        while chunk and not self.more:
            head, newline, chunk = chunk.partition(b"\n")
            room = max(MAX_LINE_BYTES - len(self.partial), 0)
            self.cut = self.cut or len(head) > room
            self.partial += head[:room]
            if newline:
                self._end_line()

    def _end_line(self) -> None:
        if len(self.kept) == self.keep:
            self.more = True
            return
        self.kept.append(self.partial.decode("utf-8", "replace") + (" …" if self.cut else ""))
        self.partial.clear()
        self.cut = False

    def finish(self) -> list[str]:
        if self.partial and not self.more:
            self._end_line()
        return self.kept
