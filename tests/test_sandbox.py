"""The plan-mode sandbox contains arbitrary code on its own.

The classifier is out of the way here: each script goes straight to the Bash
tool's handler in plan mode (the guard, which would consult the classifier, is
not on this path). Each test first shows the script has its effect in plain
bash, then that it has none under the sandbox, for each set of layers this
machine can offer: the full sandbox (bubblewrap + seccomp + limits) and the
fallback without bubblewrap (Landlock + seccomp + limits).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pytest

from state import AppState
from tools.bash.sandbox.lease_gate import LeaseGate
from tools.bash.sandbox.mounts_pipe import MountsPipe
from tools.bash.sandbox.status import Layers, detect_layers
from tools.bash.judgements import READ_ONLY
from tools.bash.tool import make_bash_tool

DETECTED = detect_layers()
FULL = pytest.param(DETECTED, id="full", marks=pytest.mark.skipif(
    not DETECTED.contains_code, reason="bubblewrap or seccomp is not available here"))
LANDLOCK = pytest.param(replace(DETECTED, bwrap=None), id="landlock", marks=pytest.mark.skipif(
    not (DETECTED.landlock_abi >= 6 and DETECTED.seccomp), reason="Landlock ABI 6 or seccomp missing"))
LAYER_SETS = [FULL, LANDLOCK]
WITHOUT_PERL = pytest.param(replace(DETECTED, perl=None), id="bwrap-without-perl", marks=pytest.mark.skipif(
    not DETECTED.bwrap, reason="bubblewrap is not available here"))
PYTHON = sys.executable


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A workspace with one file, and an `outside` folder beside it."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (tmp_path / "outside").mkdir()
    (workspace / "f.txt").write_text("hello\n")
    return workspace


def sandboxed(workspace: Path, layers: Layers, command: str, timeout: int = 10) -> tuple[str, float]:
    """Run `command` through the plan-mode Bash handler; its result and how long it took."""
    state = AppState()
    state.enter_plan_mode("test")
    bash = make_bash_tool(workspace, state, lambda text: READ_ONLY, layers=lambda: layers)
    start = time.monotonic()
    result = bash.handler({"command": command, "timeout": timeout})
    return result.content, time.monotonic() - start


def plain(workspace: Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=workspace, capture_output=True, text=True,
                          timeout=30)


def metadata(path: Path) -> tuple:
    info = path.stat()
    return info.st_mode, info.st_mtime_ns, info.st_uid, sorted(os.listxattr(path))


@pytest.mark.parametrize("layers", LAYER_SETS)
@pytest.mark.parametrize("command", [
    "chmod 000 f.txt",
    "touch -d 2001-01-01 f.txt",
    f"{PYTHON} -c \"import os; os.setxattr('f.txt', 'user.planned', b'1')\"",
    f"{PYTHON} -c \"import os; os.utime('f.txt', (1, 1))\"",
])
def test_file_metadata_cannot_change(files, layers, command):
    before = metadata(files / "f.txt")
    if plain(files, command).returncode != 0:
        pytest.skip("this filesystem does not take the change even in plain bash")
    assert metadata(files / "f.txt") != before
    (files / "f.txt").unlink()
    (files / "f.txt").write_text("hello\n")
    before = metadata(files / "f.txt")
    result, _ = sandboxed(files, layers, command)
    assert metadata(files / "f.txt") == before, result


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_no_signal_reaches_a_process_the_call_did_not_start(files, layers):
    first, second = subprocess.Popen(["sleep", "60"]), subprocess.Popen(["sleep", "60"])
    try:
        plain(files, f"kill -STOP {first.pid}")
        assert wait_for_state(first.pid, "T")
        result, _ = sandboxed(files, layers, f"kill -STOP {second.pid}; kill -9 {second.pid}")
        assert not wait_for_state(second.pid, "TtZX", seconds=0.5) and second.poll() is None, result
    finally:
        for outsider in (first, second):
            outsider.kill()
            outsider.wait()


def wait_for_state(pid: int, states: str, seconds: float = 10) -> bool:
    """Whether the process reaches one of these states (T stopped, Z zombie …) in time."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in states:
            return True
        time.sleep(0.02)
    return False


def listener(family: str, tmp_path: Path) -> tuple[socket.socket, str]:
    """A listening socket outside the workspace (TCP on loopback, or Unix) and its address."""
    if family == "unix":
        server = socket.socket(socket.AF_UNIX)
        address = str(tmp_path / "outside" / "service.sock")
        server.bind(address)
    else:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        address = str(server.getsockname()[1])
    server.listen()
    server.settimeout(0.2)  # a connection is made, or not, before the call returns
    return server, address


@pytest.mark.parametrize("layers", LAYER_SETS)
@pytest.mark.parametrize("family, client", [
    ("tcp", "exec 3<>/dev/tcp/127.0.0.1/{address} && echo hi >&3"),
    ("tcp", PYTHON + " -c \"import socket; socket.create_connection(('127.0.0.1', {address})).send(b'x')\""),
    ("unix", PYTHON + " -c \"import socket; s = socket.socket(socket.AF_UNIX); s.connect('{address}')\""),
], ids=["tcp-bash", "tcp-python", "unix-python"])
def test_no_connection_to_a_listener_outside(files, layers, tmp_path, family, client):
    server, address = listener(family, tmp_path)
    with server:
        command = client.format(address=address)
        plain(files, command)
        server.accept()[0].close()
        result, _ = sandboxed(files, layers, command)
        with pytest.raises(socket.timeout):
            server.accept()
            pytest.fail(f"the sandboxed client connected: {result}")


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_a_background_job_neither_outlives_the_call_nor_holds_it_open(files, layers, tmp_path):
    marker = uuid.uuid4().hex
    late = tmp_path / "outside" / "late.txt"
    command = f"(sleep 2; echo late > {late}; echo late > late.txt) & (sleep 30; :) & echo {marker}"
    result, took = sandboxed(files, layers, command, timeout=20)
    assert marker in result and took < 20
    # only a shell of the call's (its command line shows the marker) can write late.txt
    assert wait_until(lambda: running(marker) == 0)
    assert not late.exists() and not (files / "late.txt").exists()


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_a_call_that_outlasts_its_timeout_returns_and_is_stopped(files, layers):
    marker = uuid.uuid4().hex
    result, took = sandboxed(files, layers, f"echo {marker}; sleep 60", timeout=1)
    assert "timed out after 1 s" in result and took < 15
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 1


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_filling_the_disk_is_stopped(files, layers, tmp_path):
    result, took = sandboxed(files, layers, 'head -c 200M /dev/zero > "$TMPDIR/fill"; '
                                            "head -c 200M /dev/zero > fill.bin; ls -l \"$TMPDIR\"",
                             timeout=30)
    assert not (files / "fill.bin").exists()
    assert "209715200" not in result, result


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_a_fork_bomb_is_stopped_and_leaves_nothing(files, layers):
    marker = uuid.uuid4().hex
    result, took = sandboxed(files, layers, f": {marker}; bomb() {{ bomb | bomb & }}; bomb; sleep 60",
                             timeout=1)
    assert took < 30, result
    assert wait_until(lambda: running(marker) == 0, seconds=0.5), "once none is left, none can fork"


@pytest.mark.parametrize("layers", [*LAYER_SETS, WITHOUT_PERL])
def test_every_process_of_the_command_is_in_the_tools_cgroup(files, layers):
    """The cgroup bounds the command only if its first process joined it before the command ran.

    bubblewrap's own two processes (which run no code of the command's, and start no process
    but the command's first) stay outside: moving another process costs an RCU grace period."""
    if not layers.cgroup:
        pytest.skip("no writable cgroup here (root only)")
    seen = looked_at_while_running(files, layers, cgroups_of)
    command = {pid: found for pid, (name, found) in seen.items() if name != "bwrap"}
    assert command and all(found and all("/stepagent-" in path for path in found.values())
                           for found in command.values()), seen


@pytest.mark.parametrize("layers", [*LAYER_SETS, WITHOUT_PERL])
def test_every_process_of_the_call_runs_within_the_limits(files, layers):
    """bubblewrap's processes included: what one of them starts inherits its limits."""
    seen = looked_at_while_running(files, layers, limits_of)
    expected = {"Max file size": "67108864", "Max core file size": "0", "Max address space": "4294967296"}
    assert seen and all(found == expected for _, found in seen.values()), seen


def looked_at_while_running(workspace: Path, layers: Layers, look: Callable[[str], dict]) -> dict:
    """pid -> (name, what `look` found) for each process of a call, looked at once its command runs."""
    marker = uuid.uuid4().hex
    with ThreadPoolExecutor(1) as pool:
        call = pool.submit(sandboxed, workspace, layers, f"until [ -e seen ]; do sleep 0.02; done; : {marker}")
        try:
            end = time.monotonic() + 10
            while "bash" not in (names := {pid: name_of(pid) for pid in subprocess.run(
                    ["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()}).values() \
                    and time.monotonic() < end:
                time.sleep(0.05)
            seen = {pid: (name, look(pid)) for pid, name in names.items()}
        finally:
            (workspace / "seen").touch()  # the call waits until its processes have been looked at
        call.result()
    return seen


def name_of(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def limits_of(pid: str) -> dict[str, str]:
    """The process's file size, core size and memory limits, soft (each must equal its hard limit)."""
    try:
        lines = Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    except OSError:
        return {}
    found = {line[:26].strip(): line[26:].split()[:2] for line in lines}
    return {name: soft if soft == hard else f"{soft} (hard {hard})"
            for name, (soft, hard) in found.items()
            if name in ("Max file size", "Max core file size", "Max address space")}


def cgroups_of(pid: str) -> dict[str, str]:
    """The process's cgroup in each hierarchy that bounds processes or memory (v1), else in v2."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return {}
    found = {controllers: path for _, controllers, path in (line.split(":", 2) for line in lines)}
    v1 = {name: found[name] for name in ("pids", "memory") if name in found}
    return v1 or {"": found.get("", "")}


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_kernel_settings_cannot_be_written(files, layers):
    setting = "/proc/sys/vm/swappiness"
    command = f"cat {setting} > /dev/null && echo \"$(cat {setting})\" > {setting}"
    if os.geteuid() != 0 or plain(files, command).returncode != 0:
        pytest.skip("only root can write kernel settings")
    result, _ = sandboxed(files, layers, command)
    assert "[exit code 0]" not in result


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_the_private_temporary_folder_goes_with_the_call(files, layers):
    name = f"stepagent-private-{uuid.uuid4().hex}"
    result, _ = sandboxed(files, layers, f'echo x > "$TMPDIR/{name}" && cat "$TMPDIR/{name}" && '
                                         'echo "$TMPDIR"')
    assert result.startswith("x\n") and "[exit code 0]" in result
    folder = result.splitlines()[1]
    assert not (Path(folder) / name).exists() and not (Path("/tmp") / name).exists()


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_memory_is_bounded(files, layers):
    command = f"{PYTHON} -c 'import mmap; mmap.mmap(-1, 6 << 30)' && echo reserved"
    if "reserved" not in plain(files, command).stdout:
        pytest.skip("this machine cannot reserve 6 GiB even outside the sandbox")
    result, _ = sandboxed(files, layers, command)
    assert "Cannot allocate memory" in result and "reserved" not in result


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_the_call_runs_within_the_limits_soft_and_hard(files, layers):
    """64 MiB per file, no core files, 4 GiB of memory, as bash counts them (KiB)."""
    result, _ = sandboxed(files, layers, "ulimit -Sf; ulimit -Hf; ulimit -Sc; ulimit -Hc; "
                                         "ulimit -Sv; ulimit -Hv")
    assert result.split("\n[")[0].split() == ["65536", "65536", "0", "0", "4194304", "4194304"], result


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_no_nested_user_namespace_to_regain_capabilities(files, layers):
    command = "unshare -Ur true && echo nested"
    if "nested" not in plain(files, command).stdout:
        pytest.skip("user namespaces cannot be made here even outside the sandbox")
    result, _ = sandboxed(files, layers, command)
    assert "nested" not in result.replace(command, "")


STEPAGENT_STAND_IN = """
import sys
from pathlib import Path
from state import AppState
from tools.bash.sandbox.status import detect_layers
from dataclasses import replace
from tools.bash.judgements import READ_ONLY
from tools.bash.tool import make_bash_tool
from ui.modes import select
state = AppState()
if sys.argv[2] == "yolo":
    select(state, "yolo", "test")
elif sys.argv[2] != "build":
    state.enter_plan_mode("test")
layers = detect_layers() if sys.argv[2] != "landlock" else replace(detect_layers(), bwrap=None)
bash = make_bash_tool(Path(sys.argv[3]), state, lambda text: READ_ONLY, layers=lambda: layers)
bash.handler({"command": sys.argv[1], "timeout": 120})
"""


@pytest.mark.parametrize("mode", ["yolo", "build", pytest.param("plan", marks=FULL.marks),
                                  pytest.param("landlock", marks=LANDLOCK.marks)])
def test_when_stepagent_dies_the_call_and_its_background_jobs_die(files, mode):
    marker = uuid.uuid4().hex
    kill_stepagent_mid_call(f"(sleep 100; : {marker}) & sleep 100; : {marker}", mode, files, marker, 2)


def kill_stepagent_mid_call(command: str, mode: str, workspace: Path, marker: str, processes: int) -> None:
    """Runs `command` as a Bash call of a stand-in stepagent, kills it with SIGKILL once `processes`
    processes show `marker`, and fails unless every one of them goes with it."""
    stand_in = subprocess.Popen([PYTHON, "-c", STEPAGENT_STAND_IN, command, mode, str(workspace)],
                                cwd=Path(__file__).resolve().parent.parent)
    try:
        assert wait_until(lambda: running(marker) >= processes), "the call did not start"
        stand_in.kill()
        stand_in.wait()
        assert wait_until(lambda: running(marker) == 0), "a process outlived stepagent"
    finally:
        stand_in.kill()


def test_ctrl_c_stops_the_call_and_its_background_jobs(files):
    import signal

    marker = uuid.uuid4().hex
    state = AppState()
    bash = make_bash_tool(files, state, lambda text: READ_ONLY)
    main = threading.get_ident()

    def ctrl_c_once_both_run() -> None:
        if wait_until(lambda: running(f"^bash -c .*{marker}") == 2):  # the shell and its background job
            signal.pthread_kill(main, signal.SIGINT)

    pressing = threading.Thread(target=ctrl_c_once_both_run)
    pressing.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            bash.handler({"command": f"(sleep 100; : {marker}) & sleep 100; : {marker}", "timeout": 60})
    finally:
        pressing.join()
    assert wait_until(lambda: running(marker) == 0)


def running(pattern: str) -> int:
    found = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
    return len(found.stdout.split())


def wait_until(condition, seconds: float = 20) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("layers", LAYER_SETS)
@pytest.mark.parametrize("command", [
    "echo escaped > {fifo}",
    "exec 3<> {fifo} && echo escaped >&3",
    PYTHON + " -c \"open('{fifo}', 'w').write('escaped')\"",
])
def test_no_write_into_a_fifo_outside(files, layers, tmp_path, command):
    """Opening a FIFO for writing writes nothing to the filesystem, so a read-only
    mount allows it: a process outside reading the FIFO would get the data."""
    fifo = tmp_path / "outside" / "in.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        plain(files, command.format(fifo=fifo))
        assert os.read(reader, 100) == b"escaped" + (b"\n" if "echo" in command else b"")
        result, _ = sandboxed(files, layers, command.format(fifo=fifo))
        assert os.read(reader, 100) == b"", result
    finally:
        os.close(reader)


def inode_flags(path: Path) -> int:
    """The file's inode flags (chattr's), or -1 where the filesystem has none."""
    import array
    import fcntl

    flags = array.array("l", [0])
    with open(path) as handle:
        try:
            fcntl.ioctl(handle, FS_IOC_GETFLAGS, flags, True)
        except OSError:
            return -1
    return flags[0]


FS_IOC_GETFLAGS = 0x80086601


@pytest.mark.parametrize("layers", LAYER_SETS)
@pytest.mark.parametrize("command", ["chattr +d f.txt", "chattr +A f.txt"])
def test_inode_flags_cannot_change_through_a_read_only_descriptor(files, layers, command):
    before = inode_flags(files / "f.txt")
    if plain(files, command).returncode != 0 or inode_flags(files / "f.txt") == before:
        pytest.skip("this filesystem has no such inode flags")
    plain(files, command.replace("+", "-"))
    result, _ = sandboxed(files, layers, command)
    assert inode_flags(files / "f.txt") == before, result


@pytest.mark.parametrize("layers", LAYER_SETS)
@pytest.mark.parametrize("command", [
    "renice -n {nice} -p {pid}", "renice -n {nice} -g {pid}", "ionice -c 3 -p {pid}",
    "taskset -p 1 {pid}", "prlimit --nofile=7 -p {pid}"])
def test_no_change_reaches_a_process_the_call_did_not_start(files, layers, command):
    first, second = (subprocess.Popen(["sleep", "60"], start_new_session=True) for _ in range(2))
    nice = 19 if os.getpriority(os.PRIO_PROCESS, 0) != 19 else 18  # not the one they inherit
    try:
        looks = process_settings(first.pid)
        plain(files, command.format(pid=first.pid, nice=nice))
        assert process_settings(first.pid) != looks, "in plain bash the command changes the process"
        looks = process_settings(second.pid)
        result, _ = sandboxed(files, layers, command.format(pid=second.pid, nice=nice))
        assert process_settings(second.pid) == looks, result
    finally:
        for outsider in (first, second):
            outsider.kill()
            outsider.wait()


def process_settings(pid: int) -> tuple:
    """What a call could change about a process: nice, I/O class, CPUs, limits."""
    io = subprocess.run(["ionice", "-p", str(pid)], capture_output=True, text=True).stdout
    return (os.getpriority(os.PRIO_PROCESS, pid), io, os.sched_getaffinity(pid),
            Path(f"/proc/{pid}/limits").read_text())


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_root_in_the_call_holds_no_capability(files, layers):
    if os.geteuid() != 0:
        pytest.skip("only root starts with capabilities to lose")
    result, _ = sandboxed(files, layers, "grep -E '^Cap(Prm|Eff|Bnd|Amb|Inh)' /proc/self/status")
    assert result.count("0000000000000000") == 5, result


@pytest.mark.parametrize("layers", [FULL])
def test_the_launch_runs_nothing_from_the_environment_outside_the_sandbox(files, layers, tmp_path,
                                                                         monkeypatch):
    made = tmp_path / "outside" / "made.txt"
    startup = tmp_path / "outside" / "startup.sh"
    startup.write_text(f"touch {made}\n")
    monkeypatch.setenv("BASH_ENV", str(startup))
    monkeypatch.setenv("BASH_FUNC_echo%%", f"() {{ touch {made}; }}")
    plain(files, "echo hi")
    assert made.exists(), "plain bash runs both"
    made.unlink()
    result, _ = sandboxed(files, layers, "true")
    assert not made.exists(), result


@pytest.mark.parametrize("layers", [FULL])
def test_reading_leaves_access_times_alone(files, layers):
    """relatime still updates a file's access time on the first read after a change;
    the read-only mount stops that (without bubblewrap it is not stopped: the doctor says so)."""
    when = 1_000_000_000
    os.utime(files / "f.txt", (when, when))
    plain(files, "cat f.txt")
    if (files / "f.txt").stat().st_atime == when:
        pytest.skip("this filesystem does not update access times")
    os.utime(files / "f.txt", (when, when))
    result, _ = sandboxed(files, layers, "cat f.txt; ls -la > /dev/null")
    assert "hello" in result and (files / "f.txt").stat().st_atime == when


@pytest.mark.parametrize("layers", [FULL])
def test_nothing_runs_when_bubblewrap_is_sent_no_mounts(files, layers, monkeypatch):
    """bwrap is started first and reads its mounts once stepagent has looked (leases, mount table);
    should stepagent fail or die before it sends them, bwrap has no root and runs nothing."""
    monkeypatch.setattr(MountsPipe, "send", MountsPipe.close)
    result, _ = sandboxed(files, layers, "echo ran-without-its-mounts")
    assert "ran-without-its-mounts" not in result and "exit code 0" not in result, result


@pytest.mark.parametrize("layers", [FULL])
def test_nothing_runs_when_the_lease_gate_is_never_opened(files, layers, monkeypatch):
    """bwrap makes the sandbox while stepagent looks for leases; the command waits at the gate,
    and should stepagent fail or die before it opens it, the command does not run."""
    monkeypatch.setattr(LeaseGate, "send", LeaseGate.close)
    result, _ = sandboxed(files, layers, "echo ran-before-the-lease-look")
    assert "ran-before-the-lease-look" not in result and "exit code 0" not in result, result


@pytest.mark.parametrize("layers", [FULL])
@pytest.mark.parametrize("value", [None, "1"])
def test_the_command_gets_the_environment_as_it_was(files, layers, monkeypatch, value):
    """perl, which applies Landlock inside bubblewrap, is told to skip the locale; the command is not."""
    if value is None:
        monkeypatch.delenv("PERL_SKIP_LOCALE_INIT", raising=False)
    else:
        monkeypatch.setenv("PERL_SKIP_LOCALE_INIT", value)
    result, _ = sandboxed(files, layers, 'echo "[${PERL_SKIP_LOCALE_INIT-unset}]"')
    assert f"[{value or 'unset'}]" in result, result
