"""Reading a file a model named without acting on it: the file tools' hardening layer.

`hardened_reads_layer` rebuilds Read, Write and Edit (and their previews) with
`read_capped` as their reader, in place of the core's plain one, and hands Read
its path with the links already followed (tools/quiet_links.py, which moves no
link's access time); the /diff tracker, compaction and memory read with it too.

Read, the previews of Write and Edit, Edit itself and the /diff tracker all read
files whose names came from the model, in the stepagent process itself, outside
any sandbox. Reading must therefore change nothing and always return soon:

- only a regular file is opened. Its type is checked before the open, since
  opening a FIFO or a device already acts on whoever is at the other end (a
  writer gets SIGPIPE when we close), and again on the descriptor, so a path
  swapped in between is caught too;
- never a file of a kernel pseudo-filesystem (PSEUDO_FILESYSTEMS). There a read
  is a call into the kernel that makes the content up, and some of those calls
  act: /proc/kmsg and tracefs's trace_pipe hand each message to one reader only
  (the next reader never sees it) and wait for the next one when none is left.
  Nothing in stat() tells /proc/kmsg from /proc/cpuinfo (both regular, size 0,
  same device), so the rule is by filesystem: statfs() names it;
- the descriptor stays non-blocking while we read, so whatever still could
  wait (a filesystem we do not know) fails with EAGAIN instead;
- the access time stays: O_NOATIME keeps it for the file's owner (and root);
  a file someone else owns is read through a read-only view of that file
  alone (tools/read_view.py) where bubblewrap runs, and plainly (the time
  may move; the doctor says so) where it does not;
- never a file another process holds a lease on (tools/leases.py): opening it
  would break the lease and signal that process;
- at most `limit` bytes are loaded.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from tools import linux_only
from tools.files import MAX_READ_BYTES, make_file_tools
from tools.leases import lease_on
from tools.quiet_links import with_real_path
from tools.read_view import read_through_view, view_reader

if TYPE_CHECKING:
    from agent.loop import Agent

KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
         stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}
PSEUDO_FILESYSTEMS = {  # statfs f_type values, from linux/magic.h
    0x9FA0: "procfs", 0x62656572: "sysfs", 0x74726163: "tracefs", 0x64626720: "debugfs",
    0x73636673: "securityfs", 0x62656570: "configfs", 0x27E0EB: "cgroupfs", 0x63677270: "cgroup2",
    0xCAFE4A11: "bpffs", 0xDE5E81E4: "efivarfs", 0x6165676C: "pstore",
}
_STATFS_BUFFER = 256  # larger than struct statfs on every Linux ABI; f_type is its first field


def hardened_reads_layer(agent: "Agent") -> None:
    """The layer: the agent's Read, Write and Edit read host files only the safe way."""
    tools = {tool.name: tool for tool in make_file_tools(agent.workspace, read_capped)}
    tools["Read"] = with_real_path(tools["Read"], agent.workspace)
    agent.executor.tools.update(tools)


class NotARegularFile(OSError):
    """A file host-side code will not read: not a regular file, made up by the kernel, or leased."""


def read_capped(path: Path, limit: int = MAX_READ_BYTES, errors: str = "replace") -> tuple[str, bool]:
    """The text of a regular file, at most `limit` bytes of it, and whether it was cut.

    Decoded as UTF-8 (`errors` as for bytes.decode), with its line ends as they are.
    Raises OSError (NotARegularFile for what it refuses to open) and never blocks.
    """
    data, cut = read_bytes_capped(path, limit)
    return data.decode("utf-8", errors=errors), cut


def read_bytes_capped(path: Path, limit: int = MAX_READ_BYTES) -> tuple[bytes, bool]:
    """The bytes of a regular file, at most `limit` of them, and whether it was cut (as read_capped)."""
    info = os.stat(path)
    _refuse_unless_regular(info.st_mode)
    _refuse_pseudo_filesystem(_filesystem_type(str(path)))
    leased = lease_on(info)
    if leased:
        raise NotARegularFile(0, leased)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    reader = None
    try:
        fd = os.open(path, flags | getattr(os, "O_NOATIME", 0))
    except PermissionError:
        fd = os.open(path, flags)
        reader = view_reader()
    try:
        _refuse_unless_regular(os.fstat(fd).st_mode)
        _refuse_pseudo_filesystem(_filesystem_type(fd))
        data = read_through_view(reader, fd, limit + 1) if reader else _read_up_to(fd, limit + 1)
    finally:
        os.close(fd)
    return data[:limit], len(data) > limit


def _read_up_to(fd: int, size: int) -> bytes:
    chunks, total = [], 0
    while total < size:
        try:
            chunk = os.read(fd, min(1 << 20, size - total))
        except BlockingIOError:
            raise NotARegularFile(errno.EAGAIN, "reading it would wait for data") from None
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _refuse_unless_regular(mode: int) -> None:
    kind = stat.S_IFMT(mode)
    if kind != stat.S_IFREG:
        raise NotARegularFile(0, f"it is {KINDS.get(kind, 'not a regular file')}, not a file")


def pseudo_filesystem(path: Path) -> str:
    """The name of the kernel pseudo-filesystem `path` lies on, '' when none (or it cannot be told)."""
    try:
        return PSEUDO_FILESYSTEMS.get(_filesystem_type(str(path)), "")
    except OSError:
        return ""


def _refuse_pseudo_filesystem(kind: int | None) -> None:
    if kind in PSEUDO_FILESYSTEMS:
        raise NotARegularFile(0, f"it is a {PSEUDO_FILESYSTEMS[kind]} file, made up by the kernel "
                                 "as it is read, and such reads can act")


def _filesystem_type(target: str | int) -> int | None:
    """statfs's f_type for a path or a descriptor; None off Linux, where the rule does not apply."""
    if not linux_only.available():
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(_STATFS_BUFFER)
    failed = (libc.fstatfs(target, buffer) if isinstance(target, int)
              else libc.statfs(os.fsencode(target), buffer))
    if failed:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF
