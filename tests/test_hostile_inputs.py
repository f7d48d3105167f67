"""Tool inputs chosen by an adversary: Read of things that are not files, and
Grep/Glob arguments that look like ripgrep options."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from tools.bash.sandbox.status import detect_layers
from tools.files import MAX_READ_BYTES, make_file_tools
from tools.safe_read import read_capped
from tools.search import make_search_tools, ripgrep


def tool(workspace: Path, name: str):
    tools = {t.name: t for t in [*make_file_tools(workspace, read_capped), *make_search_tools(workspace)]}
    return tools[name]


def read_within(workspace: Path, path: str, seconds: float = 10) -> str:
    """Read `path`, failing the test if the call does not return in time."""
    results: list[str] = []
    thread = threading.Thread(target=lambda: results.append(
        tool(workspace, "Read").handler({"file_path": path}).content), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "Read blocked"
    return results[0]


def test_read_refuses_a_fifo_without_blocking(workspace):
    os.mkfifo(workspace / "pipe")
    assert "FIFO" in read_within(workspace, "pipe")


def test_read_refuses_an_endless_device(workspace):
    assert "character device" in read_within(workspace, "/dev/zero")


def test_read_refuses_a_socket(workspace):
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(workspace / "s.sock"))
        assert read_within(workspace, "s.sock").startswith("Cannot read")


def test_read_loads_at_most_its_cap(workspace):
    line = "x" * 99 + "\n"
    (workspace / "big.txt").write_text(line * (MAX_READ_BYTES // 100 + 50))
    result = tool(workspace, "Read").handler({"file_path": "big.txt", "offset": MAX_READ_BYTES // 100 - 2})
    assert f"longer than {MAX_READ_BYTES} bytes" in result.content
    assert len(result.content) < 2000


def hostile_repository(workspace: Path) -> Path:
    """A workspace with a program that writes a file when ripgrep runs it as a preprocessor."""
    script = workspace / "pre.sh"
    script.write_text("#!/bin/sh\ntouch made.txt\ncat \"$1\"\n")
    script.chmod(0o755)
    (workspace / "notes.txt").write_text("hello\n")
    return script


def test_a_grep_pattern_never_becomes_a_ripgrep_option(workspace):
    hostile_repository(workspace)
    subprocess.run([ripgrep(), "--pre=./pre.sh", "hello"], cwd=workspace, capture_output=True)
    assert (workspace / "made.txt").exists(), "in option position the pattern runs a program"
    (workspace / "made.txt").unlink()
    for arguments in ({"pattern": "--pre=./pre.sh"}, {"pattern": "hello", "glob": "--pre=./pre.sh"},
                      {"pattern": "hello", "path": "--pre=./pre.sh"}):
        tool(workspace, "Grep").handler(arguments)
        tool(workspace, "Glob").handler({"pattern": arguments.get("glob", arguments["pattern"])})
    assert not (workspace / "made.txt").exists()


def test_a_file_named_like_an_option_is_searched_as_a_file(workspace):
    (workspace / "-v").write_text("hello\n")
    result = tool(workspace, "Grep").handler({"pattern": "hello", "path": "-v"})
    assert "hello" in result.content and not result.is_error


def writer_blocked_on(fifo: Path) -> subprocess.Popen:
    """A process outside stepagent waiting to write into `fifo`."""
    return subprocess.Popen(["sh", "-c", f"echo secret > '{fifo}'"])


def release(fifo: Path, writer: subprocess.Popen) -> None:
    with open(fifo) as reader:
        reader.read()
    writer.wait(timeout=10)


def test_read_and_grep_leave_an_outside_fifo_and_its_writer_alone(workspace, tmp_path):
    fifo = tmp_path / "outside.fifo"
    os.mkfifo(fifo)
    writer = writer_blocked_on(fifo)
    try:
        assert "FIFO" in read_within(workspace, str(fifo))
        grep = tool(workspace, "Grep").handler({"pattern": "secret", "path": str(fifo)})
        assert grep.is_error and "secret" not in grep.content
        try:
            writer.wait(timeout=1)
        except subprocess.TimeoutExpired:
            pass
        assert writer.poll() is None, "the writer was woken: Read or Grep opened the FIFO"
    finally:
        release(fifo, writer)
    assert writer.returncode == 0


def test_read_leaves_the_access_time_alone(workspace):
    old = workspace / "old.txt"
    old.write_text("kept\n")
    os.utime(old, (1_000_000_000, 1_000_000_000))
    assert "kept" in read_within(workspace, "old.txt")
    assert old.stat().st_atime == 1_000_000_000 or os.geteuid() != 0


def planning_search(workspace: Path, name: str):
    return {t.name: t for t in make_search_tools(workspace)}[name]


@pytest.mark.skipif(not detect_layers().bwrap, reason="bubblewrap is not available here")
def test_grep_and_glob_while_planning_leave_access_times_alone(workspace):
    folder = workspace / "sub"
    folder.mkdir()
    old = folder / "old.txt"
    old.write_text("kept\n")
    when = 1_000_000_000
    for path in (old, folder):
        os.utime(path, (when, when))
    subprocess.run([ripgrep(), "kept", str(workspace)], capture_output=True)
    if old.stat().st_atime == when or folder.stat().st_atime == when:
        pytest.skip("this filesystem does not update access times")
    for path in (old, folder):
        os.utime(path, (when, when))
    assert "kept" in planning_search(workspace, "Grep").handler({"pattern": "kept"}).content
    assert "old.txt" in planning_search(workspace, "Glob").handler({"pattern": "**/*.txt"}).content
    assert old.stat().st_atime == when and folder.stat().st_atime == when
