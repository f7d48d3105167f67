"""The files ripgrep reads for Grep and Glob to learn what to ignore, and which of them it must not open.

ripgrep reads .gitignore, .ignore, .rgignore and git's info/exclude in the
searched folder, below it and in its parents, and follows a symbolic link to
read one. git creates such links when it clones, so a repository can point them
anywhere: at a FIFO outside (opening it wakes its writer), at /proc/kmsg
(reading blocks, and takes the kernel's log), at /dev/zero (endless). To find
info/exclude, ripgrep also reads a `.git` that is a file (a worktree's or a
submodule's `gitdir: DIR`, DIR relative to ripgrep's working folder), then
DIR/commondir, which names the folder holding info/exclude: three more files
opened without a look at what they are, each able to lead anywhere.

Where bubblewrap runs, ripgrep sees only `ignore_tree` (tools/bash/sandbox/bwrap.py:
search_view_argv), so whatever leads out of the workspace dangles. A tree
outside the workspace (the folder above it, say) can hold both a clone's link
and the FIFO beside the clone, so there, and everywhere without bubblewrap,
`stray_ignore_file` looks first, as ripgrep would look (a walk that moves no
folder's access time (quiet_walk.py) and opens no file but the `.git` and commondir files whose first line ripgrep reads: 0.06 s
for stepagent's own tree, 2 s for the 140,000 entries of /usr), and each file
must be a regular file outside /proc, /sys and /dev, off the kernel's
pseudo-filesystems, and without another process's lease (tools/leases.py). (A link swapped between the look and the search is not
caught; nothing stepagent runs while planning can swap one.)
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from tools.leases import lease_on, leases
from tools.quiet_links import real_path
from tools.quiet_walk import walk
from tools.safe_read import pseudo_filesystem, read_bytes_capped
from tools.workspace import in_kernel_folder

IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
GITDIR = b"gitdir: "
FIRST_LINE_BYTES = 4096


def ignore_tree(folder: Path, workspace: Path) -> Path:
    """What ripgrep may see for a search of `folder`: the workspace when it is inside, else the folder.

    The ignore files of folders above it are left out of that view."""
    if folder == workspace.resolve() or workspace.resolve() in folder.parents:
        return workspace.resolve()
    return folder


def read_as_ignore_file(path: Path) -> bool:
    """Whether ripgrep may open `path` to learn what to ignore, wherever the search starts."""
    return path.name in (*IGNORE_FILES, ".git", "commondir") or path.parts[-2:] == ("info", "exclude")


def stray_ignore_file(folder: Path, timeout: float) -> str:
    """'' when every file ripgrep would read to search `folder` is safe to open, else which one is not and why.

    `folder` is also ripgrep's working folder."""
    deadline = time.monotonic() + timeout
    candidates = [parent / name for parent in folder.parents for name in IGNORE_FILES]
    repositories = list(folder.parents)
    for top, folders, files in walk(folder):
        if time.monotonic() > deadline:
            return f"{folder}: its ignore files could not all be checked within {timeout} s"
        candidates += [Path(top, name) for name in IGNORE_FILES if name in files]
        if ".git" in folders or ".git" in files:
            repositories.append(Path(top))
    held = leases()
    for path in candidates:
        why = _problem(path, held)
        if why:
            return why
    for repository in repositories:
        why = _stray_git_file(repository, folder, held)
        if why:
            return why
    return ""


def _stray_git_file(repository: Path, cwd: Path, held: dict[tuple[int, int], int]) -> str:
    """'' when what ripgrep opens to find `repository`'s info/exclude is safe, else which file and why.

    As ripgrep does it: a `.git` folder holds info/exclude; a `.git` file's
    first line names the real git folder, whose commondir file (when there is
    one) names the folder that holds it, relative to the real git folder when it
    starts with a dot and to `cwd` otherwise."""
    dot_git = repository / ".git"
    try:
        kind = os.stat(real_path(dot_git)).st_mode
    except OSError:
        return ""
    if stat.S_ISDIR(kind):
        return _problem(dot_git / "info" / "exclude", held)
    if not stat.S_ISREG(kind):
        return ""
    line, why = _first_line(dot_git, held)
    if why or line is None or not line.startswith(GITDIR):
        return why
    real = cwd / os.fsdecode(line[len(GITDIR):])
    commondir = real / "commondir"
    try:
        os.stat(real_path(commondir))
    except OSError:
        return ""
    line, why = _first_line(commondir, held)
    if why or line is None:
        return why
    common = os.fsdecode(line)
    return _problem((real if common.startswith(".") else cwd) / common / "info" / "exclude", held)


def _first_line(path: Path, held: dict[tuple[int, int], int]) -> tuple[bytes | None, str]:
    """The first line of `path` as ripgrep reads it (None where it would stop), or why it is unsafe."""
    why = _problem(path, held)
    if why:
        return None, why
    try:
        data, cut = read_bytes_capped(real_path(path), FIRST_LINE_BYTES)
    except OSError as failure:
        return None, f"{path} could not be checked ({failure.strerror or failure})"
    line, newline, _ = data.partition(b"\n")
    if cut and not newline:
        return None, f"{path} has a first line too long to check"
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return None, ""
    return (line.removesuffix(b"\r") if data else None), ""


def _problem(path: Path, held: dict[tuple[int, int], int]) -> str:
    """'' when `path` is missing or safe to open, else the path and why it is not."""
    if not os.path.lexists(path):
        return ""
    target = real_path(path)  # a link into /proc/self leads to the resolver's /proc/PID: refused too
    if in_kernel_folder(target):
        return f"{path} leads to {target}, a kernel file that acts when read"
    try:
        info = os.stat(target)
    except OSError:
        return ""
    if not stat.S_ISREG(info.st_mode):
        return f"{path} leads to {target}, which is not a regular file"
    if pseudo_filesystem(target):
        return f"{path} leads to {target}, a kernel file that acts when read"
    leased = lease_on(info, held)
    return f"{path}: {leased}" if leased else ""
