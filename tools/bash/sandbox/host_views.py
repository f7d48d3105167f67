"""Reads build mode asks about instead of running them unasked: what the sandbox would answer falsely.

Part of the rule for build mode's unasked Bash (unasked.py). Under bubblewrap a
call sees only its own processes (a PID namespace of its own) and private,
empty /tmp, /var/tmp, /run and /dev/shm (bwrap.py, private_folders.py). While
planning that is the price of the promise, and the tool's description says so;
in build mode `ps aux` listing three processes, or `tail /tmp/build.log`
finding no such file, would mislead the model about this machine. So such a
command does not run unasked: the user is asked, and a yes runs it as the
user's own. What counts: a process list (`ps`, `top`, `pgrep`, /proc/PID), and an absolute
path into one of those folders outside the workspace, wherever the command line
holds it (an argument, a redirection, a script for `bash -c`). A relative path
that climbs out of the workspace is not seen, nor is a word that only names a
program or a pattern (`grep ps notes.md` is asked about, to no harm).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tools.base import Judgement
from tools.bash.judgements import READ_ONLY, unsafe
from tools.bash.sandbox.private_folders import COVERED_FOLDERS

PRIVATE_FOLDERS = (*COVERED_FOLDERS, "/dev/shm")
ABSOLUTE_PATH = re.compile(r"(?<![\w.~$-])/[^\s'\"`;&|<>()]*")
PROCESS_LIST = re.compile(r"(?:^|[\s;&|(`'\"])(?:\S*/)?(ps|top|pgrep)(?=$|[\s;&|)`'\"])|/proc/\d")


def host_view(command: str, workspace: Path) -> Judgement:
    """READ_ONLY, or why the sandbox's private view would answer this command falsely."""
    listing = PROCESS_LIST.search(command)
    if listing:
        return unsafe("run unasked, in the sandbox, a command sees only its own processes, not "
                      "this machine's", listing.group(1) or listing.group(0))
    for match in ABSOLUTE_PATH.finditer(command):
        path = os.path.realpath(match.group(0))
        if _beneath_any(path, PRIVATE_FOLDERS) and not _beneath_any(path, [str(workspace)]):
            return unsafe("run unasked, in the sandbox, a command sees /tmp, /var/tmp, /run and "
                          "/dev/shm private and empty", match.group(0),
                          "Read the file, which reads this machine's")
    return READ_ONLY


def _beneath_any(path: str, folders: list[str] | tuple[str, ...]) -> bool:
    """Whether the real path `path` is one of `folders` (real paths taken) or beneath one."""
    return any(path == real or path.startswith(real.rstrip("/") + "/")
               for real in map(os.path.realpath, folders))
