"""Files another process holds a lease on, which reading would break: host-side reads refuse them.

A process may take a write lease on a file it owns (fcntl F_SETLEASE; Samba
and NFS servers do, to cache it). Whoever then merely opens the file for
reading breaks the lease: the kernel signals the holder (SIGIO, whose default
kills it) and the opener waits until the holder lets go, up to
/proc/sys/fs/lease-break-time (45 s). So a read is observable, and plan mode's
promise to act on nothing holds only where the lease can be seen: /proc/locks
lists every lease of this PID namespace (LEASE, and DELEG for NFS
delegations) by device and inode. Read refuses such a file (safe_read.py),
Grep leaves it out (search.py), and plan-mode Bash covers it with an unreadable
file (bwrap.py) or keeps it closed by Landlock (kernel_reads.py), for which the
holder's open descriptors give the file's name (kept only when that name still
leads to the leased inode: a holder in another mount namespace names files
of its own). What stays open: a lease whose
holder's descriptors this user cannot see (another user's process, when
stepagent is not root) against plan-mode Bash, a lease taken after the look,
and any lease where /proc is missing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from tools.quiet_walk import walk

LOCKS = "/proc/locks"
LEASE_KINDS = ("LEASE", "DELEG")


def leases() -> dict[tuple[int, int], int]:
    """(device, inode) -> holder pid of each file another process holds a write lease on.

    A read lease is left out: reading does not break it."""
    found = {}
    try:
        with open(LOCKS, encoding="ascii", errors="replace") as locks:
            listed = locks.read()
    except OSError:
        return {}
    if not any(kind in listed for kind in LEASE_KINDS):  # the usual case, told without parsing each lock
        return {}
    for line in listed.splitlines():
        fields = line.split()
        if len(fields) < 6 or fields[1] not in LEASE_KINDS or fields[3] == "READ":
            continue
        try:
            pid = int(fields[4])
            major, minor, inode = fields[5].split(":")
            found[(os.makedev(int(major, 16), int(minor, 16)), int(inode))] = pid
        except ValueError:
            continue
    return {key: pid for key, pid in found.items() if pid != os.getpid()}


def lease_on(info: os.stat_result, held: dict[tuple[int, int], int] | None = None) -> str:
    """'' when no other process holds a lease on the file `info` describes, else why it is not read."""
    holder = (leases() if held is None else held).get((info.st_dev, info.st_ino))
    if holder is None:
        return ""
    return (f"another process (pid {holder}) holds a lease on it: reading would break the lease and "
            "signal that process")


def leased_in(tree: Path) -> list[Path]:
    """The files in `tree` (links not followed) that another process holds a lease on.

    The walk leaves the folders' access times alone (quiet_walk.py)."""
    held = leases()
    if not held:
        return []
    return [path for path in _files(tree) if _key(path) in held]


def leased_paths() -> list[str]:
    """Where the leased files are, as their holders opened them (those whose descriptors this user sees)."""
    held = leases()
    paths = set()
    for holder in set(held.values()):
        folder = f"/proc/{holder}/fd"
        try:
            descriptors = os.listdir(folder)
        except OSError:
            continue
        for descriptor in descriptors:
            try:
                info = os.stat(f"{folder}/{descriptor}")
                if (info.st_dev, info.st_ino) in held:
                    paths.add(os.readlink(f"{folder}/{descriptor}"))
            except OSError:
                continue
    return sorted(path for path in paths if path.startswith("/") and _key(Path(path), os.stat) in held)


def _files(tree: Path) -> Iterator[Path]:
    for top, _folders, files in walk(tree):
        for name in files:
            yield Path(top, name)


def _key(path: Path, look: Callable[[Path], os.stat_result] = os.lstat) -> tuple[int, int] | None:
    """The file's device and inode (of the link itself, unless `look` follows links)."""
    try:
        info = look(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
