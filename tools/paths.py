"""Where a tool's path points, and whether it stays inside the workspace.

Paths are resolved against the workspace (the current directory) with links
followed, so `../x` and a link that points outside are both caught.
"""

from __future__ import annotations

import errno
from pathlib import Path

KERNEL_FOLDERS = ("/proc", "/sys", "/dev")


def resolve(workspace: Path, file_path: str) -> Path:
    """The absolute path a tool argument names, relative to the workspace."""
    path = Path(file_path).expanduser()
    return (path if path.is_absolute() else workspace / path).resolve()


def outside_workspace(workspace: Path, path: Path) -> str:
    """An error message when `path` is outside the workspace, else ''."""
    if path == workspace.resolve() or workspace.resolve() in path.parents:
        return ""
    return f"{path} is outside the workspace {workspace}; only files inside it can be changed."


def in_kernel_folder(path: Path) -> bool:
    """Whether `path` is one of the kernel's own file systems, whose files act when read."""
    return any(path == Path(top) or Path(top) in path.parents for top in KERNEL_FOLDERS)


class OutsideWorkspace(PermissionError):
    """A path stepagent meant to keep inside a folder leads out of it through a link."""


def inside(root: Path, relative: str | Path) -> Path:
    """The real path of `relative` under `root`, links followed; OutsideWorkspace if it leaves root.

    For the files stepagent writes itself (plans, memory, .gitignore): a
    `.stepagent` link planted in a repository must not carry them elsewhere.
    """
    path = resolve(root, str(relative))
    refusal = outside_workspace(root, path)
    if refusal:
        raise OutsideWorkspace(errno.EACCES, refusal)
    return path


def shown(workspace: Path, path: Path) -> str:
    """The path as the model should see it: relative inside the workspace."""
    try:
        return str(path.relative_to(workspace.resolve()))
    except ValueError:
        return str(path)
