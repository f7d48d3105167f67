"""Each plan-mode call's private folder in the temp folder: made with its maker's mark, removed only
when that maker is gone.

Part of the plan-mode sandbox's launch (launch.py), which writes a call's
scratch files beneath this folder and removes it when the call ends (under
bubblewrap, where nothing reaches the folder itself, one serves all of a tool's
calls: SharedPrivateFolder). A
stepagent killed mid-call cannot, so the first plan-mode call of the next one
removes what dead stepagents left. The temp folder is shared: with other users,
and with other PID namespaces (a container mounting the host's /tmp), where a
pid means another process, or none at all, so a pid alone says nothing. The
name carries the maker's mark, `stepagent-bash-PID-START-NAMESPACE-XXXXXXXX`:
its pid, its start time (clock ticks after boot, /proc/PID/stat) and its PID
namespace (the inode of /proc/self/ns/pid). A folder is removed only when it
is a real folder (no link), this user owns it, it carries a mark, the mark's
namespace is this one and the process it names has ended (or the pid now
belongs to a process started at another time). A folder another user made,
forged names included, is left alone, and so is one from another namespace.
Where /proc is missing (macOS), the marks are 0 and a folder goes only once
its pid is unused.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import weakref
from dataclasses import dataclass, field
from pathlib import Path

SCRATCH_PREFIX = "stepagent-bash-"
UNKNOWN = 0


@dataclass(frozen=True)
class Mark:
    """Who made a folder: pid, its start time and its PID namespace (0 where unknown)."""

    pid: int
    start: int
    namespace: int

    def prefix(self) -> str:
        """The start of the folder's name, before the random part."""
        return f"{SCRATCH_PREFIX}{self.pid}-{self.start}-{self.namespace}-"


def this_process() -> Mark:
    """The mark of the running process."""
    return Mark(os.getpid(), _start_time(os.getpid()), _pid_namespace())


def make_private_folder() -> str:
    """A new folder (mode 0700) in the temp folder, named with this process's mark."""
    return tempfile.mkdtemp(prefix=this_process().prefix())


@dataclass
class SharedPrivateFolder:
    """One private folder, with its empty `tmp`, for all of a tool's calls under bubblewrap.

    Under bubblewrap a call sees the folder read-only and its `tmp` beneath a
    tmpfs of its own, so no call can leave anything in it for the next: making
    and removing one per call would only cost time (milliseconds on a busy disk).
    Made on first use, removed when the tool is gone or stepagent exits.
    """

    made: list[str] = field(default_factory=list)

    def get(self) -> str:
        """The folder, made on first use."""
        if not self.made:
            folder = make_private_folder()
            os.mkdir(os.path.join(folder, "tmp"))
            weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
            self.made.append(folder)
        return self.made[0]


def remove_left_behind_scratch() -> None:
    """Remove the private folders that this user's stepagents, dead now, left in this namespace."""
    me = this_process()
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*"):
        mark = _mark_of(folder.name)
        if mark and mark.namespace == me.namespace and _owned_folder(folder) and not _alive(mark):
            shutil.rmtree(folder, ignore_errors=True)


def _mark_of(name: str) -> Mark | None:
    parts = name[len(SCRATCH_PREFIX):].split("-")
    if len(parts) < 4 or not all(part.isdigit() for part in parts[:3]):
        return None
    return Mark(*(int(part) for part in parts[:3]))


def _owned_folder(folder: Path) -> bool:
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()


def _alive(mark: Mark) -> bool:
    """Whether the process the mark names still runs (a pid reused since is not it)."""
    try:
        os.kill(mark.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return mark.start == UNKNOWN or _start_time(mark.pid) == mark.start


def _start_time(pid: int) -> int:
    """When the process started, in clock ticks after boot (field 22 of /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as status:
            fields = status.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return UNKNOWN
    return int(fields[19]) if len(fields) > 19 else UNKNOWN


def _pid_namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return UNKNOWN
