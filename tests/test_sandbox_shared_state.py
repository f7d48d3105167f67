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
from pathlib import Path

import pytest

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


def message_queue() -> str:
    made = subprocess.run(["ipcmk", "-Q"], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip("ipcmk cannot make a message queue here")
    return made.stdout.split(":")[-1].strip()


def queue_exists(queue: str) -> bool:
    listing = subprocess.run(["ipcs", "-q"], capture_output=True, text=True).stdout
    return any(line.split()[1:2] == [queue] for line in listing.splitlines())


@pytest.mark.parametrize("layers", LAYER_SETS)
def test_an_outside_message_queue_cannot_be_removed(files, layers):
    shown = message_queue()
    assert plain(files, f"ipcrm -q {shown}").returncode == 0 and not queue_exists(shown)
    queue = message_queue()
    try:
        result, _ = sandboxed(files, layers, f"ipcrm -q {queue}")
        assert queue_exists(queue), result
    finally:
        subprocess.run(["ipcrm", "-q", queue], capture_output=True)


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
