"""What a plan-mode call could hold or remove that other programs share: locks, leases,
IPC objects, inotify instances, an inode's generation.

None of these writes a file's contents, so a read-only mount and Landlock let them
through; the seccomp filter refuses them (tools/bash/sandbox/seccomp.py). As in
test_sandbox.py the classifier is out of the way, and each effect is first shown
in plain bash or Python.
"""

from __future__ import annotations

import fcntl
import struct
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tools.bash.sandbox import seccomp
from tests.test_sandbox import LAYER_SETS, files, plain, sandboxed  # noqa: F401 (fixture)

PYTHON = sys.executable
LOCK = "import fcntl, sys; f = open(sys.argv[1]); fcntl.flock(f, fcntl.{kind}); print('locked')"
LEASE = ("import fcntl, sys; f = open(sys.argv[1]); fcntl.fcntl(f, fcntl.F_SETLEASE, fcntl.F_RDLCK); "
         "print('leased')")
INOTIFY = "import ctypes; print('instance', ctypes.CDLL(None).inotify_init1(0))"
SET_VERSION = ("import fcntl, struct, sys; f = open(sys.argv[1]); "
               "fcntl.ioctl(f, 0x40087602, struct.pack('l', 12345)); print('set')")
GET_VERSION = 0x80087601


def python(code: str, *args: str) -> str:
    return f"{PYTHON} -c \"{code}\" {' '.join(args)}"


@pytest.fixture
def outside_file(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "shared.lock"
    path.write_text("")
    return path


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_no_exclusive_lock_on_a_file_outside_but_a_shared_one(files, layers, outside_file):
    """On ~/.stepagent/locks/<id>.lock an exclusive lock would make another stepagent
    think the session is open; sqlite3 needs the shared kind to read."""
    exclusive = python(LOCK.format(kind="LOCK_EX"), str(outside_file))
    assert "locked" in plain(files, exclusive).stdout
    result, _ = sandboxed(files, layers, exclusive)
    assert "locked" not in result, result
    result, _ = sandboxed(files, layers, python(LOCK.format(kind="LOCK_SH"), str(outside_file)))
    assert "locked" in result, result


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_no_lease_that_holds_back_an_outside_writer(files, layers, outside_file):
    lease = python(LEASE, str(outside_file))
    if "leased" not in plain(files, lease).stdout:
        pytest.skip("leases are not granted here even in plain Python")
    result, _ = sandboxed(files, layers, lease)
    assert "leased" not in result, result


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_no_inotify_instance_that_counts_against_the_users_limit(files, layers):
    assert "instance -1" not in plain(files, python(INOTIFY)).stdout
    result, _ = sandboxed(files, layers, python(INOTIFY))
    assert "instance -1" in result, result


def generation(path: Path) -> int:
    with open(path) as file:
        return struct.unpack("l", fcntl.ioctl(file, GET_VERSION, b"\0" * 8))[0]


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_an_inode_generation_cannot_change_through_a_read_only_descriptor(files, layers):
    target = files / "f.txt"
    try:
        before = generation(target)
    except OSError:
        pytest.skip("this filesystem has no inode generation")
    if "set" not in plain(files, python(SET_VERSION, str(target))).stdout or generation(target) == before:
        pytest.skip("this filesystem does not take a new generation")
    before = generation(target)
    result, _ = sandboxed(files, layers, python(SET_VERSION.replace("12345", "54321"), str(target)))
    assert generation(target) == before, result


def ipc_object(kind: str) -> str:
    made = subprocess.run(["ipcmk", {"q": "-Q", "s": "-S1", "m": "-M1024"}[kind]],
                          capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"ipcmk cannot make a -{kind} object here")
    return made.stdout.split(":")[-1].strip()


def ipc_exists(kind: str, ipc_id: str) -> bool:
    listing = subprocess.run(["ipcs", f"-{kind}"], capture_output=True, text=True).stdout
    return any(line.split()[1:2] == [ipc_id] for line in listing.splitlines())


@pytest.mark.parametrize("layers", LAYER_SETS)
@pytest.mark.parametrize("kind", ["q", "s", "m"])
def test_an_outside_ipc_object_cannot_be_removed(files, layers, kind):
    """Message queues, semaphore sets and shared memory: bubblewrap's IPC namespace
    hides them, the fallback without it has only seccomp."""
    shown = ipc_object(kind)
    assert plain(files, f"ipcrm -{kind} {shown}").returncode == 0 and not ipc_exists(kind, shown)
    ipc_id = ipc_object(kind)
    try:
        result, _ = sandboxed(files, layers, f"ipcrm -{kind} {ipc_id}")
        assert ipc_exists(kind, ipc_id), result
    finally:
        subprocess.run(["ipcrm", f"-{kind}", ipc_id], capture_output=True)


POSIX_QUEUE = ("import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); "
               "libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]; "
               "name = sys.argv[2].encode(); "
               "fd = libc.mq_open(name, os.O_RDWR | os.O_CREAT, 0o600, None) if sys.argv[1] == 'make' else "
               "libc.mq_open(name, os.O_RDWR, 0, None) if sys.argv[1] == 'exists' else "
               "libc.mq_unlink(name); print('result', fd)")


def posix_queue(action: str, name: str) -> str:
    return plain(Path("/"), python(POSIX_QUEUE, action, name)).stdout


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_an_outside_posix_queue_cannot_be_unlinked(files, layers):
    name = f"/stepagent-test-{uuid.uuid4().hex}"
    if "result -1" in posix_queue("make", name):
        pytest.skip("no POSIX message queues here")
    try:
        posix_queue("unlink", name)
        assert "result -1" in posix_queue("exists", name)
        posix_queue("make", name)
        result, _ = sandboxed(files, layers, python(POSIX_QUEUE, "unlink", name))
        assert "result -1" not in posix_queue("exists", name), result
    finally:
        posix_queue("unlink", name)


FS_XFLAG_NODUMP, FS_NODUMP_FL, FS_IOC_GETFLAGS = 0x80, 0x40, 0x80086601
FILE_SETATTR = ("import ctypes, struct, sys; "
                "attr = ctypes.create_string_buffer(struct.pack('QIIII', int(sys.argv[2]), 0, 0, 0, 0)); "
                "print('set', ctypes.CDLL(None).syscall(int(sys.argv[1]), -100, sys.argv[3].encode(), attr, 24, 0))")


def nodump(path: Path) -> bool:
    with open(path) as file:
        return bool(struct.unpack("l", fcntl.ioctl(file, FS_IOC_GETFLAGS, b"\0" * 8))[0] & FS_NODUMP_FL)


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_no_inode_flags_through_file_setattr(files, layers):
    """file_setattr (Linux 6.17) sets what chattr sets, by path: nodump here."""
    number = seccomp.architecture().numbers["file_setattr"]
    target = files / "f.txt"
    shown = plain(files, python(FILE_SETATTR, str(number), str(FS_XFLAG_NODUMP), str(target))).stdout
    if "set 0" not in shown:
        pytest.skip("no file_setattr, or this filesystem does not take the flag")
    assert nodump(target)
    plain(files, python(FILE_SETATTR, str(number), "0", str(target)))
    result, _ = sandboxed(files, layers, python(FILE_SETATTR, str(number), str(FS_XFLAG_NODUMP), str(target)))
    assert not nodump(target), result
