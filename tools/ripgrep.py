"""Running ripgrep for Glob and Grep with bounds on what it may take: memory, time, output kept.

In every mode, because a hostile repository makes a plain search unbounded too:
- memory: RLIMIT_AS of MEMORY_BYTES, set by a bash trampoline before exec (so
  no Python runs between fork and exec; -p: it reads no BASH_ENV and imports no
  exported function). An ignore file linked to a huge file
  or a device grows ripgrep by half a gigabyte a second; at the limit it stops.
- output: read as it comes, at most `keep` records of at most MAX_LINE_BYTES
  each (a file name in one, at most MAX_NAME_BYTES); past that ripgrep is stopped. `Grep ""` on /usr used to gather 7 GB
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
MAX_NAME_BYTES = 4_096  # Linux's PATH_MAX: rg cannot open a longer name
LINES = b"\n"  # what ends each field of a record: plain lines,
NAMED_LINES = b"\0\n"  # --null's `name NUL line` (a name may hold a newline),
NAMES = b"\0"  # --files --null's names
MAX_ERROR_BYTES = 4_000
READ_BYTES = 1 << 16
POLL_SECONDS = 0.2  # a sub-agent's thread can only be interrupted between polls
NOTHING_SEARCHED = "No files were searched"
SANDBOX_FAILED = "bwrap:"  # how bubblewrap's own errors begin; it then exits 1, as rg does on no match


@dataclass
class Found:
    """What ripgrep printed, as far as it was kept, and what went wrong ('' when nothing).

    Each of `lines` is one record; with `--null`, a file name in it ends at its NUL."""

    lines: list[str] = field(default_factory=list)
    complete: bool = True
    problem: str = ""
    dropped: int = 0  # records left out because a file name in them was too long to keep


def ripgrep() -> str:
    """The real path of the rg that came with this environment's ripgrep wheel, else of the one on PATH.

    Real, because the search view binds the binary at its own path, and bwrap cannot
    bind below a link (a virtual environment reached through one, say)."""
    beside_python = Path(sys.executable).with_name("rg")
    found = str(beside_python) if beside_python.exists() else shutil.which("rg")
    if not found:
        raise FileNotFoundError("ripgrep (rg) is not installed; install the requirements first.")
    return os.path.realpath(found)


def run_ripgrep(arguments: list[str], cwd: Path, prefix: list[str] | None = None,
                keep: int = MAX_KEPT_LINES, ends: bytes = LINES) -> Found:
    """Rg's first `keep` output records; `complete` is False when it was stopped for more.

    `ends` are the bytes that end a record's fields in turn (LINES, NAMED_LINES,
    NAMES). A `prefix` runs it inside a sandbox."""
    argv = [*Limits(memory=MEMORY_BYTES).trampoline(name="ripgrep"), *(prefix or []), ripgrep(),
            "--no-config", "--color", "never", *arguments]
    try:
        process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return Found(problem=str(exc))
    lines, errors = _Records(keep, ends), bytearray()
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
    if prefix and error_text.startswith(SANDBOX_FAILED):
        return Found(problem=f"the search's sandbox could not start ({error_text})")
    if lines.more:
        return Found(lines.finish(), complete=False, dropped=lines.dropped)
    if process.returncode not in (0, 1) and NOTHING_SEARCHED not in error_text:
        if "memory allocation" in error_text:
            error_text += f" (ripgrep may use {MEMORY_BYTES >> 20} MiB)"
        return Found(problem=error_text or f"rg exited with {process.returncode}")
    return Found(lines.finish(), dropped=lines.dropped)


def _read(process: subprocess.Popen, lines: _Records, errors: bytearray) -> bool:
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


class _Records:
    """Output split into records as it arrives: at most `keep`, each field cut at its bound.

    A field that ends at a NUL is a file name (rg's `--null`): it is kept whole,
    followed by its NUL, and a record whose name is longer than MAX_NAME_BYTES
    is dropped and counted (a cut name would be checked as another file's)."""

    def __init__(self, keep: int, ends: bytes) -> None:
        self.keep = keep
        self.ends = ends
        self.field = 0
        self.kept: list[str] = []
        self.partial = bytearray()
        self.start = 0  # where the current field began in `partial`
        self.cut = self.name_cut = self.more = False
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        while chunk and not self.more:
            end = self.ends[self.field:self.field + 1]
            head, ended, chunk = chunk.partition(end)
            bound = MAX_NAME_BYTES if end == b"\0" else MAX_LINE_BYTES
            room = max(bound - (len(self.partial) - self.start), 0)
            cut = len(head) > room
            self.cut = self.cut or cut
            self.name_cut = self.name_cut or (cut and end == b"\0")
            self.partial += head[:room]
            if ended and self.field == len(self.ends) - 1:
                self._end_record()
            elif ended:
                self.partial += end
                self.field += 1
                self.start = len(self.partial)

    def _end_record(self) -> None:
        if self.name_cut:
            self.dropped += 1
        elif len(self.kept) == self.keep:
            self.more = True
            return
        else:
            self.kept.append(self.partial.decode("utf-8", "replace") + (" …" if self.cut else ""))
        self.partial.clear()
        self.field = self.start = 0
        self.cut = self.name_cut = False

    def finish(self) -> list[str]:
        if self.partial and not self.more:
            self._end_record()
        return self.kept
