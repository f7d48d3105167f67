"""One writer per session: a lock file per session under $STEPAGENT_HOME/locks, held with flock.

Two processes appending to one session would interleave their entries and the
stored history would stop being a valid conversation. The journal holds the lock
of the session it writes; a second process that wants the same session finds it
held and is offered a fork instead (session/live.py). The kernel drops an flock
when its holder ends, however it ends (kill -9 included), so a lock never
outlives its process and there is nothing stale to clean up.
"""

from __future__ import annotations

import fcntl
import os
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass
class SessionLock:
    """The lock of the one session this process writes; held until another is taken or the process ends."""

    folder: Path
    session_id: str = ""
    _fd: int = -1

    def hold(self, session_id: str) -> bool:
        """Hold `session_id`'s lock, letting go of the one held before; False if another process holds it.

        Where no lock file can be made (an unwritable home) the session is not
        stored either, so there is nothing to protect and the answer is True.
        """
        if session_id == self.session_id:
            return True
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.folder / f"{re.sub(r'[^A-Za-z0-9_-]', '-', session_id)}.lock",
                         os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return True
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self.release()
        self.session_id, self._fd = session_id, fd
        return True

    def release(self) -> None:
        """Let go of the held lock, if any."""
        if self._fd >= 0:
            os.close(self._fd)
        self.session_id, self._fd = "", -1
