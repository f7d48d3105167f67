"""Putting a snapshot's files back: only the paths that differ, never a file it did not cover.

Part of rewind (a layer). The restore goes from the snapshot of the present (just
taken) to the target snapshot, path by path as `git diff-tree` lists them:
a path only the present holds is removed — because the present's snapshot
holds it, never by a sweep like `git clean` — and a path the target holds is
written back by `git checkout-index` (content, executable bit, symbolic link)
from a throw-away index. Ignored files are in neither snapshot, so they are
never named. What stands in the way is left alone and reported: a folder (it
may hold ignored files) where the target has a file, a file or link where the
target needs a folder. Removal walks the path one folder at a time without
following links, so a link swapped in cannot send it outside the workspace; a
folder emptied by the removal goes too. Repositories nested in the workspace are
left as they are. `planned` is that same list without acting on it: what /rewind
shows and asks about before any file changes.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from session.rewind.shadow_repo import ShadowRepo


@dataclass
class Restoration:
    """What a restore did: the paths written back, the paths removed, and what it left alone."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def _open_parent(workspace: Path, relative: str) -> tuple[int, str] | None:
    """A descriptor of the path's folder reached without following links, and the last name."""
    *folders, name = relative.split("/")
    fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for folder in folders:
            inner = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
    except OSError:
        os.close(fd)
        return None
    return fd, name


def _remove(workspace: Path, relative: str) -> bool:
    """Remove one file or link inside the workspace (never a folder, never through a link)."""
    opened = _open_parent(workspace, relative)
    if opened is None:
        return False
    fd, name = opened
    try:
        if stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode):
            return False
        os.unlink(name, dir_fd=fd)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _remove_emptied_folders(workspace: Path, relative: str) -> None:
    """Remove the path's folders, deepest first, while they are empty."""
    parts = relative.split("/")[:-1]
    while parts:
        opened = _open_parent(workspace, "/".join(parts))
        if opened is None:
            return
        fd, name = opened
        try:
            os.rmdir(name, dir_fd=fd)
        except OSError:
            return
        finally:
            os.close(fd)
        parts.pop()


def _in_the_way(workspace: Path, relative: str) -> bool:
    """Whether writing this file would replace a folder, or a file or link where a folder goes."""
    path = workspace
    parts = relative.split("/")
    for depth, part in enumerate(parts):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return False
        except OSError:
            return True
        last = depth == len(parts) - 1
        if stat.S_ISDIR(mode) == last:
            return True
    return False


def planned(repo: ShadowRepo, present: str, target: str) -> Restoration:
    """What a restore from snapshot `present` to `target` would remove and write back (nothing done)."""
    changes = [change for change in repo.changes(present, target) if not change.nested]
    return Restoration(written=[change.path for change in changes if change.status != "D"],
                       removed=[change.path for change in changes if change.status == "D"])


def restore(repo: ShadowRepo, present: str, target: str) -> Restoration:
    """Make the workspace's files those of snapshot `target`, going from snapshot `present`."""
    done, plan = Restoration(), planned(repo, present, target)
    for path in plan.removed:
        (done.removed if _remove(repo.workspace, path) else done.left).append(path)
    for path in done.removed:
        _remove_emptied_folders(repo.workspace, path)
    for path in plan.written:
        (done.left if _in_the_way(repo.workspace, path) else done.written).append(path)
    if done.written:
        _check_out(repo, target, done.written)
    return done


def _check_out(repo: ShadowRepo, target: str, paths: list[str]) -> None:
    """Write `paths` as snapshot `target` has them, through an index of their own; GitFailed if not."""
    index = repo.git.git_dir / f"restore-{os.getpid()}.index"
    try:
        repo.git.run("read-tree", target, index=index)
        repo.git.run("checkout-index", "--force", "-z", "--stdin", index=index,
                     stdin="\0".join(paths).encode("utf-8", errors="surrogateescape"))
    finally:
        index.unlink(missing_ok=True)
