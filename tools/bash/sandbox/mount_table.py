"""Where file systems of a kind are mounted, read from this process's mount table.

Shared by two layers that keep the kernel's acting files out of reach: the
private folders of the bubblewrap view (private_folders.py covers tracefs and
debugfs) and the kernel-reads Landlock ruleset (kernel_reads.py leaves out
those and the device file systems).
"""

from __future__ import annotations

import os
import re

MOUNTS = "/proc/self/mountinfo"


def mount_points(file_systems: frozenset[str]) -> list[str]:
    """Where a file system of one of these types is mounted, in table order, normalised.

    Empty when the table cannot be read."""
    try:
        with open(MOUNTS, encoding="utf-8", errors="replace") as table:
            lines = table.read().splitlines()
    except OSError:
        return []
    points = []
    for line in lines:
        fields, _, rest = line.partition(" - ")
        parts = fields.split()
        if len(parts) > 4 and rest.split(" ", 1)[0] in file_systems:
            points.append(os.path.normpath(_unescaped(parts[4])))
    return points


def _unescaped(field: str) -> str:
    """A mountinfo field with its octal escapes (`\\040` for a space) undone."""
    return re.sub(r"\\([0-7]{3})", lambda escape: chr(int(escape.group(1), 8)), field)
