"""Folders that cost more to make than to look at, handed from test to test while none changes them.

A test asking for one gets a folder exactly as its recipe left it: the one
the test before had, when nothing in it has changed since it was handed out
(every entry's inode, mode, owner, links, size, content, link target,
extended attributes and modification and change times are as they were), or
else a new one. A test that only reads (as a read-only command must) costs a
look instead of a copy or a `git init`; one that writes leaves its folder
behind, and the next starts in a new one. Making a file or a folder costs
about 0.2 ms of CPU on these machines' disk, looking at one some 20 microseconds.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path


def exact_state(root: Path) -> dict[str, tuple]:
    """Everything about `root` and what is below it that a write, chmod, chown, link,
    rename or xattr could change (access times aside)."""
    state = {str(root): _entry(str(root))}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            state[os.path.join(folder, name)] = _entry(os.path.join(folder, name))
    return state


def _entry(path: str) -> tuple:
    info = os.lstat(path)
    content: bytes | None = b""
    if stat.S_ISREG(info.st_mode):
        try:
            with open(path, "rb") as opened:
                content = opened.read()
        except OSError:  # unreadable to this user: its mode and times still tell
            content = None
    link = os.readlink(path) if stat.S_ISLNK(info.st_mode) else ""
    try:
        attributes = [(name, os.getxattr(path, name, follow_symlinks=False))
                      for name in sorted(os.listxattr(path, follow_symlinks=False))]
    except (AttributeError, OSError):  # no xattrs on this system or file system
        attributes = []
    return (info.st_ino, info.st_mode, info.st_uid, info.st_gid, info.st_nlink, info.st_size,
            info.st_mtime_ns, info.st_ctime_ns, content, link, attributes)


@dataclass
class KeptFolders:
    """Folders by recipe, `make(folder, *args)` in a new folder from `new_folder()`, each handed
    out again for as long as nothing changes it."""

    new_folder: Callable[[], Path]
    kept: dict[tuple, tuple[Path, dict[str, tuple]]] = field(default_factory=dict)

    def get(self, make: Callable[..., object], *args: Hashable) -> Path:
        """A folder as `make(folder, *args)` leaves it: the last one, if it is still exactly so."""
        recipe = (make, *args)
        if recipe in self.kept and self._unchanged(recipe):
            return self.kept[recipe][0]
        root = self.new_folder()
        make(root, *args)
        self.kept[recipe] = (root, exact_state(root))
        return root

    def _unchanged(self, recipe: tuple) -> bool:
        root, state = self.kept[recipe]
        try:
            return exact_state(root) == state
        except OSError:  # removed, or being changed as it is looked at
            return False
