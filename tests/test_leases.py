"""A read while planning leaves another process's lease on the file alone.

A process holding a write lease is signalled (SIGIO) when anyone opens the file,
even to read it, and the opener waits up to 45 s. Read, Grep and Bash's `cat`
refuse or leave out such a file, through the executor in plan mode, with
bubblewrap and without; the holder must never be signalled.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.harness import Session, call, turn
from tests.hidden_layers import configuration  # noqa: F401 (a fixture)

HOLDER = """
import fcntl, os, signal, sys, time
path, flag = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGIO, lambda *_: open(flag, "w").write("signalled"))
fd = os.open(path, os.O_RDONLY)
fcntl.fcntl(fd, 1024, fcntl.F_WRLCK)  # F_SETLEASE
print("held", flush=True)
time.sleep(120)
"""


class Holder:
    """Another process holding a write lease on `path`; `signalled` once a reader broke it."""

    script = HOLDER

    def __init__(self, path: Path, flag: Path) -> None:
        self.flag = flag
        self.process = subprocess.Popen([sys.executable, "-c", self.script, str(path), str(flag)],
                                        stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "held"

    @property
    def signalled(self) -> bool:
        """Whether a reader broke the lease: the kernel marks it at once, the signal may come later."""
        breaking = any(line.split()[1:3] == ["LEASE", "BREAKING"] and line.split()[4] == str(self.process.pid)
                       for line in Path("/proc/locks").read_text().splitlines())
        return breaking or self.flag.exists()

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def leased(workspace: Path, tmp_path: Path):
    (workspace / "notes.md").write_text("hello\n")
    (workspace / "sub").mkdir()
    secret = workspace / "sub" / "leased.txt"
    secret.write_text("hello secret\n")
    os.symlink(secret, workspace / "link.txt")
    holder = Holder(secret, tmp_path / "signalled")
    yield holder
    holder.stop()


def planned(workspace: Path, *calls: dict) -> list[str]:
    session = Session(workspace, [turn("", *calls), turn("done")], mode="plan")
    start = time.monotonic()
    session.run()
    assert time.monotonic() - start < 30, "a reader waited for the lease to be let go"
    return session.tool_results()


@pytest.mark.parametrize("tool,args", [
    ("Read", {"file_path": "sub/leased.txt"}), ("Read", {"file_path": "link.txt"}),
    ("Grep", {"pattern": "hello"}), ("Grep", {"pattern": "hello", "path": "sub/leased.txt"}),
    ("Grep", {"pattern": "hello", "path": "link.txt"}),
    ("Bash", {"command": "cat sub/leased.txt"}), ("Bash", {"command": "cat link.txt"}),
    ("Bash", {"command": "grep -r hello ."}),
], ids=["read", "read-link", "grep", "grep-file", "grep-link", "cat", "cat-link", "grep-r"])
def test_a_read_while_planning_does_not_break_another_process_lease(workspace, leased, configuration,
                                                                   tool, args):
    result, = planned(workspace, call(tool, **args))
    assert not leased.signalled, f"the holder was signalled: {result}"
    assert "secret" not in result, result
