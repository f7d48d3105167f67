"""Walking a tree without moving its folders' access times: the looks host-side reads take first.

Part of plan mode's promise that no metadata changes, access times included, beside
safe_read.py's O_NOATIME for a file. Listing a folder moves its access time as
reading a file does (under relatime: when it is older than the last change, or a
day old). Grep and Glob look through the searched tree for leased files
(tools/leases.py) and, outside bubblewrap's view, for ignore files that lead
somewhere unsafe (tools/ignore_files.py); rewind's checkpoint looks for leased
files too. Those looks run in stepagent's own process, on the host, so each
folder is opened with O_NOATIME, which the kernel grants to the folder's owner
(and to root). A folder another user owns is opened plainly, and its access time
may move: refusing to look would leave a leased file in it unseen.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

NOATIME = getattr(os, "O_NOATIME", 0)
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def walk(top: str | os.PathLike[str]) -> Iterator[tuple[str, list[str], list[str]]]:
    """What os.walk(top) yields, each folder listed without moving its access time where allowed.

    As os.walk walks by default: top down, links not followed, unreadable folders skipped; but a
    link is listed among the files even where it leads to a folder: telling would follow it, and
    following a link moves its access time (quiet_links.py)."""
    pending = [os.fspath(top)]
    while pending:
        folder = pending.pop()
        listed = _listing(folder)
        if listed is None:
            continue
        folders, files = listed
        yield folder, folders, files
        pending += [os.path.join(folder, name) for name in reversed(folders)]


def _listing(folder: str) -> tuple[list[str], list[str]] | None:
    """The names of `folder`'s subfolders, and of its other entries (links among them)."""
    try:
        try:
            descriptor = os.open(folder, FOLDER | NOATIME)
        except PermissionError:
            descriptor = os.open(folder, FOLDER)
    except OSError:
        return None
    folders, files = [], []
    try:
        with os.scandir(descriptor) as entries:
            for entry in entries:
                try:
                    is_folder = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_folder = False
                (folders if is_folder else files).append(entry.name)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return folders, files
