"""Private /tmp, /var/tmp and /run: the folders where other programs keep their FIFOs.

Part of the bubblewrap layer of the plan-mode sandbox (bwrap.py). Opening a FIFO
for reading takes what its writer sends and wakes a writer waiting in open(),
and neither a read-only mount (it shares the FIFO's inode, so it is the same
pipe) nor Landlock (it cannot allow reading files but refuse FIFOs) stops it.
So the folders where programs make FIFOs at known paths are covered with an
empty, small, read-only tmpfs: /tmp, /var/tmp, /run (with /var/run and
/var/lock, real folders on some systems; links into /run on most). /dev/shm is
already private (bwrap.py). Kernel files that consume what they return
(tracefs's trace_pipe; debugfs holds tracefs too) are covered the same way
wherever tracefs or debugfs is mounted: root inside the user namespace, mapped
to root outside, may open them by owner permission alone.

A file another process holds a lease on (tools/leases.py) is covered by an
empty file no one without capabilities may read: opening the leased file would
break the lease and signal its holder.

Bubblewrap applies its options in order, so after the covers come back what
the call needs beneath them, read-only: the workspace (tests keep theirs in
/tmp, users may too), the home folder, the folders on PATH and stepagent's
own environment (tools and git read their configuration and programs there; a
checkout in /tmp keeps its virtual environment there, unless one of them is
/tmp or /run itself) and the call's private folder (made in /tmp), whose `tmp`
gets the scratch tmpfs afterwards.
What comes back is the whole top-level folder holding each (/tmp/work for
/tmp/work/repo/pkg): a repository above the workspace, and `..`, read as they
do outside. Landlock's write rule names the private folder's inode, which is
the same beneath the bind mount (a mount's root is checked when Landlock
walks up), so writes in the scratch still pass. The symbolic links at the
top of a covered /run are made again (NixOS keeps its programs behind
/run/current-system): a link leads only where the call could go anyway.

What stays open: a FIFO anywhere else (the home folder, /var/lib …), in the
workspace, or in the top-level folder of /tmp that holds the workspace. A
workspace that IS /tmp, /var/tmp or /run brings the whole folder back, its
FIFOs with it: bubblewrap cannot show a folder and hide what is in it, and
refusing would leave such a workspace without Bash (the doctor says so). A home
folder that is a covered folder (HOME=/tmp, /tmp/, a link to /tmp) stays
covered: `realpath` makes each of those the covered folder itself. The
Read tool (host-side, it refuses FIFOs) still reads files in the covered
folders.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache

from tools.bash.sandbox.mount_table import mount_points
from tools.leases import leased_paths

COVERED_FOLDERS = ("/tmp", "/var/tmp", "/run", "/var/run", "/var/lock")
LINKS_KEPT_IN = "/run"
KERNEL_PIPE_FILESYSTEMS = frozenset({"tracefs", "debugfs"})
COVER_BYTES = 1 << 20
SCRATCH_BYTES = 64 << 20


def private_folders_argv(workspace: str, scratch: str, leased: list[str] | None = None) -> list[str]:
    """bwrap options: the covers, what comes back beneath them, the scratch tmpfs, then read-only.

    `scratch` is the call's TMPDIR; its parent is the call's private folder.
    Both paths are real paths (no symbolic links). `leased`: the leased files to
    cover, looked up here when None (`leased_in_reach`).
    """
    covered, kept = _covered_and_kept(workspace, scratch)
    kernel = [mount for mount in kernel_pipe_mounts()
              if not _beneath_any(mount, covered) or _beneath_any(mount, kept)]
    argv = []
    for folder in covered:
        argv += ["--size", str(COVER_BYTES), "--tmpfs", folder]
        if folder == LINKS_KEPT_IN:
            argv += _links_in(folder)
    for path in kept:
        argv += ["--ro-bind", path, path]
    for mount in kernel:
        argv += ["--size", str(COVER_BYTES), "--tmpfs", mount]
    if leased is None:
        leased = _in_reach(leased_paths(), covered, kept)
    if leased:
        blank = _unreadable_file(os.path.dirname(scratch))
        for path in leased:
            argv += ["--ro-bind", blank, path]
    argv += ["--size", str(SCRATCH_BYTES), "--tmpfs", scratch]
    for folder in [*covered, *kernel]:
        argv += ["--remount-ro", folder]
    return argv


def leased_in_reach(workspace: str, scratch: str) -> list[str]:
    """The files another process holds a lease on that a call could open: those the mounts cover."""
    return _in_reach(leased_paths(), *_covered_and_kept(workspace, scratch))


def _covered_and_kept(workspace: str, scratch: str) -> tuple[list[str], list[str]]:
    """The covered folders, and what comes back beneath them."""
    covered = covered_folders()
    tops = [*_tops_needed(os.path.expanduser("~"), os.environ.get("PATH", ""), sys.prefix,
                          tuple(covered)),
            _top_level_in(workspace, covered), _top_level_in(os.path.dirname(scratch), covered)]
    return covered, _outermost([top for top in tops if top])


def _in_reach(leased: list[str], covered: list[str], kept: list[str]) -> list[str]:
    """Those of `leased` not already hidden by a cover (or in /dev or /proc, which are bwrap's own)."""
    return [path for path in leased if _beneath_any(path, kept)
            or not _beneath_any(path, [*covered, "/dev", "/proc"])]


def _unreadable_file(private: str) -> str:
    """An empty file in the call's private folder that no one without capabilities may read
    (made by the first call that needs it when calls share the folder)."""
    path = os.path.join(private, "leased")
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0))
    except FileExistsError:
        pass
    return path


def covered_folders() -> list[str]:
    """The folders to cover, as real paths, each once, none beneath another."""
    return list(_real_folders(COVERED_FOLDERS))


@lru_cache(maxsize=4)
def _real_folders(folders: tuple[str, ...]) -> tuple[str, ...]:
    """Looked up once per process, like `_tops_needed`: the system's own folders and stepagent's
    environment do not move while it runs, and a stale answer only brings back, read-only, what
    the call would have seen when stepagent started."""
    return tuple(_outermost([real for real in map(os.path.realpath, folders) if os.path.isdir(real)]))


@lru_cache(maxsize=4)
def _tops_needed(home: str, path: str, prefix: str, covered: tuple[str, ...]) -> tuple[str, ...]:
    """The covered folders' top-level folders that hold the home folder, PATH's folders or
    stepagent's environment (`prefix`); never a covered folder itself (HOME=/tmp must not bring
    all of /tmp back)."""
    tops = [_top_level_in(os.path.realpath(folder), list(covered))
            for folder in [home, *path.split(os.pathsep), prefix] if folder]
    return tuple(top for top in tops if top and top not in covered)


def kernel_pipe_mounts() -> list[str]:
    """Where tracefs or debugfs is mounted (outermost only), from this process's mount table."""
    return _outermost(mount_points(KERNEL_PIPE_FILESYSTEMS))


def _links_in(folder: str) -> tuple[str, ...]:
    """--symlink options that make the links at the top of `folder` again."""
    argv: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink():
                    argv += ["--symlink", os.readlink(entry.path), entry.path]
    except OSError:
        return ()
    return tuple(argv)


def _top_level_in(path: str, covered: list[str]) -> str | None:
    """The top-level folder, in a covered folder, that holds `path` (or the covered folder itself)."""
    for folder in covered:
        if _beneath(path, folder):
            first = os.path.relpath(path, folder).split(os.sep)[0]
            return folder if first == "." else os.path.join(folder, first)
    return None


def _outermost(paths: list[str]) -> list[str]:
    """Each path once, none beneath another."""
    return [path for index, path in enumerate(paths) if path not in paths[:index]
            and not any(_beneath(path, other) and path != other for other in paths)]


def _beneath(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _beneath_any(path: str, folders: list[str]) -> bool:
    return any(_beneath(path, folder) for folder in folders)
