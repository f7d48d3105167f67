"""Following a path's symbolic links without moving their access times: host-side path lookups.

Part of plan mode's promise that no metadata changes, beside quiet_walk.py for
folders and safe_read.py's O_NOATIME for files. Following a symbolic link reads
it, and reading a link moves its access time as reading a file does (readlink,
and every stat or open through the link; under relatime, when the time is no
later than the link's last change, as in a fresh clone). O_NOATIME has no say
over a link. Read, Grep and Glob resolve the path the model names in
stepagent's own process, deny rules look at where it leads, and the checks
before a search look at where ignore files lead: each moved the time of every
link it followed.

So `real_path` resolves as os.path.realpath does, but looks first, one name at a
time with lstat (which follows no link it ends in, and moves no time); where it
meets no link the path is already real. Where it meets one, the path is
resolved by `realpath` in a read-only bubblewrap view of the whole file system,
where the kernel never updates access times (about 20 ms, only for a path with
a link on it). A link into /proc/self leads there to the resolver's own /proc/PID,
which is still /proc, refused as before. Where bubblewrap cannot run, links are
read plainly and their times may move, as the doctor's table says.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolResult
from tools.bash.sandbox.bwrap import bwrap_path, root_view_argv

TIMEOUT_SECONDS = 10


def real_path(path: str | os.PathLike[str]) -> Path:
    """The absolute path with every link followed, as Path.resolve() gives it, moving no link's time."""
    absolute = os.path.abspath(path)
    if not has_link(path):
        return Path(absolute)
    return Path(_resolved_in_view(absolute) or os.path.realpath(absolute))


def resolve_quietly(workspace: Path, file_path: str) -> Path:
    """tools/workspace.py's `resolve`, moving no link's access time."""
    path = Path(file_path).expanduser()
    return real_path(path if path.is_absolute() else workspace / path)


def with_real_path(tool: Tool, workspace: Path, argument: str = "file_path") -> Tool:
    """`tool` given the path its `argument` names already resolved (quietly), so it follows no link."""
    def handler(args: dict[str, Any]) -> ToolResult:
        return tool.handler({**args, argument: str(resolve_quietly(workspace, str(args[argument])))})
    return dataclasses.replace(tool, handler=handler)


def has_link(path: str | os.PathLike[str]) -> bool:
    """Whether a lookup of `path`, as written (`..` after a link counts), meets a symbolic link."""
    current = "/"
    for name in os.fspath(os.path.join(os.getcwd(), path)).split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            current = os.path.dirname(current)
            continue
        current = os.path.join(current, name)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return True
        except OSError:
            return False  # missing: realpath takes the rest as written
    return False


def _resolved_in_view(path: str) -> str | None:
    """`realpath PATH` where the whole file system is mounted read-only; None where it cannot run
    or fails (a folder on the way is missing, or closed to the view's user, who has no
    supplementary groups): the caller then resolves it plainly, rightly rather than quietly."""
    bwrap, realpath = bwrap_path(), shutil.which("realpath")
    if not bwrap or not realpath:
        return None
    try:
        done = subprocess.run([*root_view_argv(bwrap), realpath, "--", path], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return None
    shown = os.fsdecode(done.stdout.removesuffix(b"\n"))
    return shown if done.returncode == 0 and shown.startswith("/") else None
