"""What Bash runs without a question is bounded; what the user approved runs as the user's own.

Outside plan mode a command the classifier judges read-only runs at once, in
plan mode's sandbox (tools/bash/sandbox/unasked.py): it gets plan mode's
resource limits, cannot open the kernel's files that act when read (through a
link either: they are hidden or refused) and, for root, holds no
capabilities; a command the user approved (asked in build mode, or run in
yolo mode) runs unbounded. The classifier refuses, by their names, kernel
files that act when read. (A repository's config that runs programs from
such a command: tests/test_hostile_repository.py.) What the sandbox's private
view would answer falsely (`ps`, a file in another program's /tmp folder) is
asked about in build mode, and runs sandboxed while planning.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from state import AppState
from tests.harness import Session, call, turn
from tests.private_tracefs import in_private_tracefs
from tools.bash.classifier.classify import classify
from tools.bash.sandbox import cgroups
from tools.bash.sandbox.landlock import abi_version
from tools.bash.sandbox.status import detect_layers
from tools.bash.tool import make_bash_tool
from tools.ripgrep import ripgrep

CAP_SYSLOG = 34
SMALL_MEMORY = 256 << 20
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="only root holds capabilities to drop")
needs_landlock = pytest.mark.skipif(not abi_version(), reason="Landlock is not available here")


def effective_capabilities(status: str) -> int:
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("CapEff")), 16)


def address_space_limit(limits: str) -> str:
    return next(line.split()[3] for line in limits.splitlines() if line.startswith("Max address space"))


def run_in(workspace: Path, mode: str, *commands: str, answers: tuple[bool, ...] = ()) -> Session:
    session = Session(workspace, [turn("", *(call("Bash", command=c, timeout=30) for c in commands)),
                                  turn("ok")], mode=mode, permission_answers=list(answers))
    session.run()
    return session


def test_ripgrep_reading_an_ignore_file_linked_to_dev_zero_stops_at_the_memory_limit(
        tmp_path, monkeypatch):
    """Unbounded, rg grows by gigabytes a second until the timeout (or the OOM killer);
    bounded, its allocation fails, or the call's cgroup stops it, within a couple of seconds
    (the test's reason to take them). The cgroup's memory bound is lowered to SMALL_MEMORY for
    the test: filling 2 GiB took 25-60 s of a loaded machine, past the call's timeout."""
    monkeypatch.setenv("PATH", f"{Path(ripgrep()).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(cgroups, "V1", {name: (path, limit, SMALL_MEMORY if name == "memory" else value)
                                        for name, (path, limit, value) in cgroups.V1.items()})
    monkeypatch.setattr(cgroups, "V2", (cgroups.V2[0], {**cgroups.V2[1], "memory.max": SMALL_MEMORY}))
    (tmp_path / "a.txt").write_text("x\n")
    (tmp_path / ".rgignore").symlink_to("/dev/zero")
    assert classify("rg x").read_only
    session = run_in(tmp_path, "build", "rg x")
    result = session.tool_results()[0]
    assert not session.questions
    assert "timed out" not in result
    assert "memory allocation" in result or "[exit code 137]" in result


def kernel_log_is_readable_here() -> bool:
    status = Path("/proc/self/status").read_text()
    return os.path.isfile("/proc/kmsg") and bool(effective_capabilities(status) >> CAP_SYSLOG & 1)


def assert_refused_at_once(session: Session, *errors: str) -> None:
    """The unasked command ran without a question and failed with one of `errors`, without waiting."""
    result = session.tool_results()[0]
    assert not session.questions
    assert "timed out" not in result
    assert any(error in result for error in errors) and "[exit code 1]" in result


@needs_root
def test_a_link_to_the_kernel_log_is_refused_to_roots_unasked_read(tmp_path):
    """`cat k` looks harmless; with k -> /proc/kmsg, root would block and take the kernel's log."""
    if not kernel_log_is_readable_here():
        pytest.skip("/proc/kmsg is not open to this process anyway")
    (tmp_path / "k").symlink_to("/proc/kmsg")
    session = run_in(tmp_path, "build", "cat k")
    assert_refused_at_once(session, "Operation not permitted")


@needs_landlock
def test_a_link_to_the_users_terminal_is_not_read_by_an_unasked_command(tmp_path):
    """`cat t` with t -> a terminal would wait for, and take, what the user types there
    (bubblewrap's /dev has none of the host's terminals; Landlock refuses them without it)."""
    controller, terminal = os.openpty()
    try:
        (tmp_path / "t").symlink_to(os.ttyname(terminal))
        session = run_in(tmp_path, "build", "cat t")
    finally:
        os.close(controller)
        os.close(terminal)
    assert_refused_at_once(session, "Permission denied", "No such file or directory")


@needs_landlock
def test_a_link_to_the_users_terminal_is_not_read_while_planning_without_bubblewrap(tmp_path):
    """Plan mode's own Landlock ruleset governs writes only; the kernel-reads one comes with it."""
    state = AppState()
    state.enter_plan_mode("test")
    without_bwrap = replace(detect_layers(), bwrap=None)
    bash = make_bash_tool(tmp_path, state, classify, layers=lambda: without_bwrap)
    controller, terminal = os.openpty()
    try:
        (tmp_path / "t").symlink_to(os.ttyname(terminal))
        result = bash.handler({"command": "cat t", "timeout": 30})
    finally:
        os.close(controller)
        os.close(terminal)
    assert "timed out" not in result.content
    assert "Permission denied" in result.content and result.is_error


READ_TRACE_PIPE_THROUGH_A_LINK = """
import sys
from pathlib import Path
from state import AppState
from tests.harness import Session, call, turn
workspace = Path(sys.argv[1])
(workspace / "notes").symlink_to(sys.argv[2])
session = Session(workspace, [turn("", call("Bash", command="cat notes", timeout=20)), turn("ok")])
session.run()
print(session.questions, session.tool_results()[0])
"""


@needs_landlock
@needs_root
def test_a_link_into_tracefs_is_not_read_by_roots_unasked_command(tmp_path):
    """trace_pipe is root's own file, open to root without capabilities; tracefs is
    mounted in a private mount namespace, so the host's tracing is left alone. bubblewrap's view
    hides every tracefs mount; Landlock refuses trace_pipe without it."""
    mount, workspace = tmp_path / "tracing", tmp_path / "workspace"
    mount.mkdir()
    workspace.mkdir()
    done = in_private_tracefs([mount], f"exec {sys.executable} -c "
                              f"'{READ_TRACE_PIPE_THROUGH_A_LINK}' {workspace} {mount}/trace_pipe")
    assert done.stdout.startswith("[] "), done.stdout + done.stderr
    assert "timed out" not in done.stdout
    assert "[exit code 1]" in done.stdout
    assert "Permission denied" in done.stdout or "No such file or directory" in done.stdout


@pytest.mark.parametrize("command", [
    "cat /proc/kmsg", "tail -f /sys/kernel/tracing/trace_pipe", "cat < /proc/kmsg",
    "cat /sys/kernel/debug/tracing/trace_pipe", "timeout 5 cat /dev/kmsg", "cat /proc/km*",
    "cat /proc/*", "cat //proc/./kmsg", "cat ../../../../proc/kmsg", "grep x /sys/kernel/tr*/trace",
    "rg --ignore-file=/proc/kmsg x", "grep -f/proc/kmsg x", "cat /proc/self/root/proc/kmsg",
    "echo $(cat /proc/kmsg)", "bash -c 'head /dev/input/event0'", "cat /dev/watchdog",
    "cat tracing/trace_pipe",
])
def test_kernel_files_that_act_when_read_are_not_read_only(command):
    judgement = classify(command)
    assert not judgement.read_only
    assert "not read-only" in judgement.rule and judgement.token


@pytest.mark.parametrize("command", [
    "cat /proc/cpuinfo", "ls /proc", "cat /proc/meminfo", "ls 2>/dev/null", "cat /proc/self/status",
    "ls /sys/kernel", "ls /dev", "head -c 8 /dev/urandom", "grep -rn kmsg .", "cat f < /dev/null",
])
def test_harmless_kernel_files_stay_read_only(command):
    assert classify(command).read_only


def test_build_mode_asks_before_reading_the_kernel_log_and_a_no_runs_nothing(tmp_path):
    session = run_in(tmp_path, "build", "cat /proc/kmsg", answers=(False,))
    assert len(session.questions) == 1 and "/proc/kmsg" in session.questions[0]
    assert "declined" in session.tool_results()[0]


@pytest.mark.parametrize("mode", ["build", "edit"])
def test_an_unasked_command_runs_within_the_memory_limit_and_an_approved_one_as_before(tmp_path, mode):
    session = run_in(tmp_path, mode, "cat /proc/self/limits",
                     "cat /proc/self/limits && touch approved.txt", answers=(True,))
    unasked, approved = session.tool_results()
    assert len(session.questions) == 1 and (tmp_path / "approved.txt").exists()
    assert address_space_limit(unasked) == str(4 << 30)
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    assert address_space_limit(approved) == ("unlimited" if soft == resource.RLIM_INFINITY else str(soft))


def test_yolo_runs_even_a_read_only_command_as_before(tmp_path):
    session = run_in(tmp_path, "yolo", "cat /proc/self/limits")
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    limit = address_space_limit(session.tool_results()[0])
    assert limit == ("unlimited" if soft == resource.RLIM_INFINITY else str(soft))


@needs_root
def test_root_runs_an_unasked_command_without_capabilities_and_an_approved_one_with_them(tmp_path):
    session = run_in(tmp_path, "build", "cat /proc/self/status",
                     "cat /proc/self/status && touch approved.txt", answers=(True,))
    unasked, approved = session.tool_results()
    assert len(session.questions) == 1
    assert effective_capabilities(unasked) == 0
    assert effective_capabilities(approved) != 0


@pytest.fixture
def outside_log() -> Iterator[Path]:
    """A log in a folder of its own in /tmp, as another program keeps one."""
    folder = Path(tempfile.mkdtemp(prefix="stepagent-test-log-", dir="/tmp"))
    (folder / "build.log").write_text("the build passed\n")
    yield folder / "build.log"
    shutil.rmtree(folder)


@pytest.mark.skipif(not detect_layers().bwrap, reason="without bubblewrap the call sees the host's view")
def test_build_mode_asks_before_a_read_the_sandbox_would_answer_falsely(tmp_path, outside_log):
    """In the sandbox `ps` sees only the call's processes and /tmp is empty: asked, and a yes
    runs the command as the user's own, which sees this machine."""
    session = run_in(tmp_path, "build", "ps -e -o pid=", f"cat {outside_log}", "ls", answers=(True, True))
    processes, log, listing = session.tool_results()
    assert len(session.questions) == 2
    assert str(os.getpid()) in processes.split()
    assert log.startswith("the build passed")
    assert listing.endswith("[exit code 0]")


@pytest.mark.skipif(not detect_layers().bwrap, reason="without bubblewrap the call sees the host's view")
def test_while_planning_the_same_reads_run_in_the_sandbox(tmp_path, outside_log):
    session = run_in(tmp_path, "plan", "ps -e -o pid=", f"cat {outside_log}")
    processes, log = session.tool_results()
    assert not session.questions
    assert str(os.getpid()) not in processes.split()
    assert "the build passed" not in log
