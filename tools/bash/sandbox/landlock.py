"""Landlock rulesets: plan mode's, under which a child reads everything and writes nothing.

A layer of the plan-mode sandbox: on its own where bubblewrap is missing, and
inside bubblewrap, applied after its mounts (Landlock forbids mounting), where
it stops what a read-only mount allows: opening a FIFO for writing
(landlock_in_bwrap.py). Writes are allowed only to /dev/null and beneath one
private folder made for the call. Where the kernel
offers them, ABI 4 handles TCP bind and connect (no rule allows any, so there
is no TCP) and ABI 6 scopes signals and abstract unix sockets to the sandbox.
Landlock governs file contents, not metadata (chmod, times, xattrs): the
seccomp filter covers those. It is inherited, cannot be lifted by the child,
and `no_new_privs` stops a setuid binary from escaping it.

`reading_ruleset` is another one, for a command that runs without a question
outside plan mode: it handles nothing but opening files for reading
(kernel_reads.py says what such a command may read).

The ruleset is built in the parent; the child only calls two syscalls between
fork and exec (or perl calls one inside bubblewrap), so nothing heavy runs there.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from tools import linux_only

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

WRITE_FILE, READ_FILE, TRUNCATE, IOCTL_DEV = 1 << 1, 1 << 2, 1 << 14, 1 << 15
WRITE_RIGHTS_BY_ABI = {1: 0b1_1111_1111_0010, 2: 0b11_1111_1111_0010}
FILE_RIGHTS = WRITE_FILE | TRUNCATE | IOCTL_DEV


NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _syscall(number: int, *args) -> int:
    result = _libc().syscall(ctypes.c_long(number), *args)
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


@lru_cache(maxsize=1)
def abi_version() -> int:
    """Landlock's ABI version on this kernel, 0 where it is missing or disabled."""
    if not linux_only.available():
        return 0
    try:
        return _syscall(CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0


def write_rights(abi: int) -> int:
    """The Landlock write rights this ABI version knows."""
    rights = WRITE_RIGHTS_BY_ABI[min(abi, 2)]
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


@dataclass
class Ruleset:
    """A prepared ruleset: pass `restrict` as preexec_fn, then `close` in the parent."""

    fd: int

    def restrict(self) -> None:
        """In the child before exec: no new privileges, then the ruleset."""
        _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        _syscall(RESTRICT_SELF, ctypes.c_int(self.fd), ctypes.c_uint32(0))

    def close(self) -> None:
        """Close the ruleset's descriptor in the parent."""
        os.close(self.fd)


def read_only_ruleset(writable_dir: str) -> Ruleset:
    """Everything readable; writable only /dev/null and `writable_dir`."""
    abi = abi_version()
    handled = write_rights(abi)
    attr = _RulesetAttr(handled, NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0,
                        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    fd = _syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        _allow(fd, "/dev/null", handled & FILE_RIGHTS)
        _allow(fd, writable_dir, handled)
    except OSError:
        os.close(fd)
        raise
    return Ruleset(fd)


def reading_ruleset(readable: Iterable[str]) -> Ruleset:
    """A ruleset that handles only opening files for reading: allowed beneath `readable` alone.

    Running a program opens it for reading too. A path that cannot be opened is left out."""
    attr = _RulesetAttr(READ_FILE, 0, 0)
    fd = _syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(8), ctypes.c_uint32(0))
    for path in readable:
        try:
            _allow(fd, path, READ_FILE)
        except OSError:
            continue
    return Ruleset(fd)


def _allow(ruleset_fd: int, path: str, rights: int) -> None:
    path_fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = _PathBeneathAttr(rights, path_fd)
        _syscall(ADD_RULE, ctypes.c_int(ruleset_fd), ctypes.c_int(RULE_PATH_BENEATH),
                 ctypes.byref(rule), ctypes.c_uint32(0))
    finally:
        os.close(path_fd)
