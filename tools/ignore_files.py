"""The ignore files ripgrep reads for Grep and Glob, and which of them it must not open.

ripgrep reads .gitignore, .ignore, .rgignore and .git/info/exclude in the
searched folder, below it and in its parents, and follows a symbolic link to
read one. git creates such links when it clones, so a repository can point them
anywhere: at a FIFO outside (opening it wakes its writer), at /proc/kmsg
(reading blocks, and takes the kernel's log), at /dev/zero (endless). Where
bubblewrap runs, ripgrep sees only `ignore_tree` (tools/bash/sandbox/bwrap.py:
search_view_argv), so a link that leads out of the workspace dangles. A tree
outside the workspace (the folder above it, say) can hold both a clone's link
and the FIFO beside the clone, so there, and everywhere without bubblewrap,
`stray_ignore_file` looks first (a walk that opens no file: 0.06 s for
stepagent's own tree, 2 s for the 140,000 entries of /usr), and each ignore file
must lead to a regular file outside /proc, /sys and /dev. (A link swapped between the look and the search is not caught;
nothing stepagent runs while planning can swap one.)
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
GIT_EXCLUDE = Path(".git", "info", "exclude")
KERNEL_FOLDERS = ("/proc", "/sys", "/dev")


def ignore_tree(folder: Path, workspace: Path) -> Path:
    """What ripgrep may see for a search of `folder`: the workspace when it is inside, else the folder.

    The ignore files of folders above it are left out of that view."""
    if folder == workspace.resolve() or workspace.resolve() in folder.parents:
        return workspace.resolve()
    return folder


def in_kernel_folder(path: Path) -> bool:
    """Whether `path` is one of the kernel's own file systems, whose files act when read."""
    return any(path == Path(top) or Path(top) in path.parents for top in KERNEL_FOLDERS)


def stray_ignore_file(folder: Path, timeout: float) -> str:
    """'' when every ignore file ripgrep would read is safe to open, else which one is not and why."""
    deadline = time.monotonic() + timeout
    candidates = [parent / name for parent in folder.parents for name in (*IGNORE_FILES, GIT_EXCLUDE)]
    for top, folders, files in os.walk(folder):
        if time.monotonic() > deadline:
            return f"{folder}: its ignore files could not all be checked within {timeout} s"
        candidates += [Path(top, name) for name in IGNORE_FILES if name in files]
        if ".git" in folders:
            candidates.append(Path(top, GIT_EXCLUDE))
    for path in candidates:
        why = _unsafe(path)
        if why:
            return f"{path} {why}"
    return ""


def _unsafe(path: Path) -> str:
    if not os.path.lexists(path):
        return ""
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""
    if not stat.S_ISREG(mode):
        return f"leads to {target}, which is not a regular file"
    if in_kernel_folder(target):
        return f"leads to {target}, a kernel file that acts when read"
    return ""
