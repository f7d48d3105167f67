"""Files stepagent reads in its own process, outside any sandbox: a refused call reads
nothing, a kernel file that acts when read is never read, and no result floods the history."""

from __future__ import annotations

import _thread
import ctypes
import fcntl
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from agent.events import ToolFinished
from models.scripted import ScriptedModel
from session.store import SessionStore
from tests.harness import call, journaled, turn
from tests.private_tracefs import in_private_tracefs
from tests.subagent_kit import Hooked, Parent
from tools.base import MAX_RESULT_CHARS, ToolResult
from tools.files import READ_MAX_CHARS, make_file_tools
from tools.preview import edit_preview, write_preview
from tools.safe_read import MAX_READ_BYTES, read_capped

OLD = 1_000_000_000
IN_OPEN = 0x20
SYSLOG_ACTION_READ = 2
SYSLOG_ACTION_SIZE_UNREAD = 9


def within(seconds: float, work):
    """`work()`'s value, failing the test if it does not return in time (a read that blocks)."""
    values: list = []
    thread = threading.Thread(target=lambda: values.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked"
    return values[0]


def read(workspace: Path, path: str, **more) -> ToolResult:
    tool = next(t for t in make_file_tools(workspace, read_capped) if t.name == "Read")
    return within(10, lambda: tool.handler({"file_path": path, **more}))


def aged(path: Path) -> Path:
    """`path` with an access time so old that any read of it would move it (relatime too)."""
    path.write_text("untouched\n")
    os.utime(path, (OLD, OLD + 10))
    return path


class OpenWatch:
    """Counts every open of the watched files (inotify: O_NOATIME hides a read from atime, not from this)."""

    def __init__(self, *paths: Path):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0
        for path in paths:
            assert self.libc.inotify_add_watch(self.fd, os.fsencode(path), IN_OPEN) >= 0

    def opens(self) -> int:
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return 0
        finally:
            os.close(self.fd)
        return len(data) // 16  # each event here is a bare struct inotify_event (no name)


@pytest.mark.parametrize("mode, answers", [("plan", []), ("build", [False]), ("yolo", [])])
def test_a_write_or_edit_that_does_not_run_never_reads_the_file_it_names(workspace, tmp_path,
                                                                         mode, answers):
    """Plan mode denies; in build mode the user says no (the question's preview may read
    the workspace file, never the outside one); in yolo the outside path is refused."""
    victim = aged(tmp_path / "outside.txt")
    inside = aged(workspace / "inside.txt")
    names = [str(victim)] + ([inside.name] if mode != "yolo" else [])
    calls = [c for name in names for c in (call("Write", file_path=name, content="x"),
                                          call("Edit", file_path=name, old_string="u", new_string="v"))]
    _, live = journaled(workspace, SessionStore(tmp_path / "s.db"), [turn("", *calls), turn("ok")],
                        mode=mode, permission_answers=answers * len(calls))
    watch = OpenWatch(victim, inside) if mode == "plan" else OpenWatch(victim)
    live.agent.run_turn("go")
    assert watch.opens() == 0, "a file named by a call that did not run was opened"
    for path in (victim, inside):
        assert path.stat().st_atime == OLD, f"{path.name} was read"
        assert path.read_text() == "untouched\n"
    assert live.changes.diff() == ""


def test_diff_names_a_file_over_the_cap_without_loading_it(workspace, tmp_path):
    (workspace / "huge.log").write_bytes(b"x" * (MAX_READ_BYTES + 1))
    _, live = journaled(workspace, SessionStore(tmp_path / "s.db"),
                        [turn("", call("Write", file_path="huge.log", content="small\n")), turn("ok")],
                        mode="yolo")
    live.agent.run_turn("go")
    assert live.changes.originals == {}
    assert "huge.log: over" in live.changes.diff()


@pytest.mark.parametrize("path", ["/proc/cpuinfo", "/proc/self/status", "/sys/kernel/mm"])
def test_read_refuses_files_the_kernel_makes_up(workspace, path):
    found = next((p for p in Path(path).rglob("*") if p.is_file()), None) if Path(path).is_dir() \
        else Path(path)
    if found is None or not found.exists():
        pytest.skip(f"{path} is not here")
    result = read(workspace, str(found))
    assert result.is_error and "made up by the kernel" in result.content


def unread_kernel_log() -> int:
    """How many bytes of the kernel log /proc/kmsg has not yet handed out (klogctl)."""
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.klogctl(SYSLOG_ACTION_SIZE_UNREAD, None, 0)


def drain_kernel_log() -> None:
    """Hands out what is unread, so that new kernel lines cannot push unread ones out of a full log."""
    libc = ctypes.CDLL(None, use_errno=True)
    while (unread := unread_kernel_log()) > 0:
        libc.klogctl(SYSLOG_ACTION_READ, ctypes.create_string_buffer(unread), unread)


@pytest.fixture
def kernel_log_with_unread_lines() -> Iterator[int]:
    """A kernel log far from full that holds one unread line, so only a reader can shrink what is unread.

    Needs root, as /proc/kmsg does (CI runs as root). The log is one for the whole machine, so the
    tests that watch it take turns across pytest's workers.
    """
    with open(Path(tempfile.gettempdir()) / "stepagent-tests-kernel-log.lock", "w") as turn_to_watch:
        fcntl.flock(turn_to_watch, fcntl.LOCK_EX)
        try:
            kmsg = open("/dev/kmsg", "w")
        except OSError:
            pytest.skip("needs root to write /dev/kmsg")
        with kmsg:
            if unread_kernel_log() < 0:
                pytest.skip("klogctl cannot say what is unread here")
            drain_kernel_log()
            kmsg.write(f"<6>stepagent test {os.getpid()}: nobody may consume this\n")
        yield unread_kernel_log()


def test_read_and_the_previews_leave_proc_kmsg_alone(workspace, kernel_log_with_unread_lines):
    result = read(workspace, "/proc/kmsg", limit=3)
    assert result.is_error and "stepagent test" not in result.content
    edit = within(10, lambda: edit_preview(workspace, {"file_path": "/proc/kmsg", "old_string": "a",
                                                       "new_string": "b"}, read_capped))
    assert "will fail" in edit.note
    within(10, lambda: write_preview(workspace, {"file_path": "/proc/kmsg", "content": "x"}, read_capped))
    assert unread_kernel_log() >= kernel_log_with_unread_lines, "the kernel log was consumed"


READ_TRACE_PIPE = """
import sys, threading
from pathlib import Path
from tools.files import make_file_tools
from tools.safe_read import read_capped
read = next(t for t in make_file_tools(Path.cwd(), read_capped) if t.name == "Read")
out = []
reader = threading.Thread(target=lambda: out.append(read.handler({"file_path": sys.argv[1]})), daemon=True)
reader.start()
reader.join(10)
print("blocked" if reader.is_alive() else out[0].content)
"""


def test_read_refuses_tracefs_trace_pipe(workspace, tmp_path):
    """trace_pipe consumes what it returns and waits when empty; tracefs is mounted in a private
    mount namespace (root only, as CI runs), so the host's tracing is left alone."""
    mount = tmp_path / "tracing"
    mount.mkdir()
    done = in_private_tracefs([mount], f"exec {sys.executable} -c '{READ_TRACE_PIPE}' {mount}/trace_pipe")
    assert "tracefs file" in done.stdout, done.stdout + done.stderr


def test_a_read_returns_at_most_its_cap_and_says_where_to_read_on(workspace):
    (workspace / "short.txt").write_text("x\n" * 1_000_000)
    result = read(workspace, "short.txt", limit=100_000_000)
    assert len(result.content) < READ_MAX_CHARS + 500
    last = int(result.content.split("\n")[-2].split("\t")[0])
    assert f"read on with offset={last + 1}" in result.content
    after = read(workspace, "short.txt", offset=last + 1, limit=2)
    assert after.content.startswith(f"{last + 1:6}\tx\n{last + 2:6}\tx")


def test_edit_refuses_a_file_over_the_cap_and_leaves_it_whole(workspace):
    huge = workspace / "huge.txt"
    huge.write_bytes(b"a" * MAX_READ_BYTES + b"b\n")
    edit = next(t for t in make_file_tools(workspace, read_capped) if t.name == "Edit")
    result = edit.handler({"file_path": "huge.txt", "old_string": "a", "new_string": "c",
                           "replace_all": True})
    assert result.is_error and "longer than" in result.content
    assert huge.stat().st_size == MAX_READ_BYTES + 2


def test_every_tool_result_is_cut_to_one_cap_with_a_note(workspace, tmp_path):
    session, live = journaled(workspace, SessionStore(tmp_path / "s.db"),
                              [turn("", call("Read", file_path="any.txt")), turn("ok")], mode="yolo")
    flooding = replace(session.executor.tools["Read"],
                       handler=lambda args: ToolResult("z" * (3 * MAX_RESULT_CHARS)))
    session.executor.tools["Read"] = flooding
    finished = []
    session.state.events.subscribe(lambda e: finished.append(e) if isinstance(e, ToolFinished) else None)
    live.agent.run_turn("go")
    kept = session.tool_results()[0]
    assert kept == finished[0].content
    assert MAX_RESULT_CHARS < len(kept) < MAX_RESULT_CHARS + 500
    assert "cut: this result had 300,000 characters" in kept and "offset and limit" in kept


def test_ctrl_c_ends_the_turn_of_a_sub_agent_that_read_proc_kmsg(workspace, kernel_log_with_unread_lines):
    """The red team's case: the sub-agent's Read used to block in C, where Ctrl-C cannot land."""
    interrupt = threading.Timer(1.0, _thread.interrupt_main)
    sub = Hooked(ScriptedModel([turn("", call("Read", file_path="/proc/kmsg", limit=3)),
                                turn("", call("Bash", command="sleep 30")), turn("late")]),
                 before={1: interrupt.start})
    parent = Parent(workspace, [turn("", call("Agent", description="look", prompt="look",
                                              subagent_type="general")), turn("never")],
                    {"look": sub}, mode="yolo")
    before = set(threading.enumerate())
    assert parent.run().ending == "interrupted"
    interrupt.join()
    assert [t for t in threading.enumerate() if t not in before] == [], "a worker outlived the turn"
    assert "Cannot read /proc/kmsg" in sub.requests[1][-1]["content"]
    assert unread_kernel_log() >= kernel_log_with_unread_lines, "the kernel log was consumed"
