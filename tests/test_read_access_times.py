"""Read leaves a file's access time alone also when stepagent's user does not own the file.

O_NOATIME is refused for such a file, so it is read through a read-only bubblewrap
view (tools/read_view.py). CI runs as root, so the reader here is a forked child
that becomes NOBODY and reads a file root owns, in a fresh 0755 folder under /tmp
(tmp_path's parents are 0700, closed to NOBODY).
"""

from __future__ import annotations

import os
import pickle
import select
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.test_host_reads import OpenWatch
from tools.bash.sandbox.bwrap import bwrap_path
from tools.bash.sandbox.status import Layers, layer_rows
from tools.files import make_file_tools
from tools.read_view import read_through_view, view_reader
from tools.safe_read import read_capped

NOBODY = 65534
OLD = 1_000_000_000
CHILD_SECONDS = 30
NO_BWRAP_AS_NOBODY = "bubblewrap does not run for NOBODY here"

needs_root_and_bwrap = pytest.mark.skipif(os.geteuid() != 0 or bwrap_path() is None,
                                          reason="needs root (to become another user) and bubblewrap")


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A fresh folder under /tmp that NOBODY can reach and read, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="stepagent-atime-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def aged(path: Path, text: str = "untouched\n") -> Path:
    """A root-owned file anyone may read, with an access time older than its change, so relatime
    updates it on the next plain read."""
    path.write_text(text)
    path.chmod(0o644)
    os.utime(path, (OLD, OLD + 10))
    return path


def as_nobody(work: Callable[[], object]) -> object:
    """`work()`'s value, computed in a forked child running as NOBODY (no groups); its error re-raised."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(readable)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            bwrap_path.cache_clear()  # the parent's answer was found as root
            try:
                outcome = ("value", work()) if bwrap_path() else ("skip", NO_BWRAP_AS_NOBODY)
            except Exception as exc:  # handed to the parent, which raises it
                outcome = ("error", f"{type(exc).__name__}: {exc}")
            os.write(writable, pickle.dumps(outcome))
        finally:
            os._exit(0)
    os.close(writable)
    try:
        ready, _, _ = select.select([readable], [], [], CHILD_SECONDS)
        if not ready:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"the reader did not return within {CHILD_SECONDS} s (it blocked)")
        data = b""
        while chunk := os.read(readable, 1 << 16):
            data += chunk
    finally:
        os.close(readable)
        os.waitpid(pid, 0)
    kind, value = pickle.loads(data)
    if kind == "skip":
        pytest.skip(value)
    assert kind == "value", value
    return value


def read_tool(folder: Path):
    return next(t for t in make_file_tools(folder, read_capped) if t.name == "Read").handler


@needs_root_and_bwrap
def test_reading_a_file_another_user_owns_leaves_its_access_time(shared_folder):
    victim = aged(shared_folder / "owned-by-root.txt")
    as_nobody(lambda: victim.read_bytes())
    if victim.stat().st_atime == OLD:
        pytest.skip("this filesystem does not update access times")
    os.utime(victim, (OLD, OLD + 10))
    result = as_nobody(lambda: read_tool(shared_folder)({"file_path": str(victim)}))
    assert not result.is_error and "untouched" in result.content
    assert as_nobody(lambda: read_capped(victim, limit=5)) == ("untou", True)
    assert victim.stat().st_atime == OLD, "the read moved the access time"


@needs_root_and_bwrap
def test_a_fifo_or_device_another_user_owns_is_still_refused_and_never_opened(shared_folder):
    fifo = shared_folder / "pipe"
    os.mkfifo(fifo, 0o666)
    watch = OpenWatch(fifo)
    results = as_nobody(lambda: [read_tool(shared_folder)({"file_path": path})
                                 for path in (str(fifo), "/dev/zero", "/dev/null")])
    assert [r.is_error for r in results] == [True, True, True]
    assert "FIFO" in results[0].content and "character device" in results[1].content
    assert watch.opens() == 0, "the FIFO was opened"


@pytest.mark.skipif(view_reader() is None, reason="needs bubblewrap")
def test_a_fifo_swapped_in_after_the_checks_is_refused_not_opened(tmp_path):
    """The view binds the checked file or nothing: bwrap compares the mount with the descriptor."""
    checked = aged(tmp_path / "f.txt", "checked\n")
    descriptor = os.open(checked, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        assert read_through_view(view_reader(), descriptor, 100) == b"checked\n"
        os.mkfifo(tmp_path / "swap")
        watch = OpenWatch(tmp_path / "swap")
        os.replace(tmp_path / "swap", checked)
        with pytest.raises(OSError, match="read-only view"):
            read_through_view(view_reader(), descriptor, 100)
    finally:
        os.close(descriptor)
    assert watch.opens() == 0, "the FIFO was opened"


def test_the_doctor_says_read_can_move_access_times_without_bubblewrap_unless_root():
    bare = Layers(bwrap=None, landlock_abi=0, seccomp=False, cgroup=False, root=False)
    row = {row.layer: row for row in layer_rows(bare)}["bubblewrap"]
    assert "Read of a file another user owns" in row.leaves_open
    as_root = {row.layer: row for row in layer_rows(Layers(**{**bare.__dict__, "root": True}))}
    assert "Read" not in as_root["bubblewrap"].leaves_open
