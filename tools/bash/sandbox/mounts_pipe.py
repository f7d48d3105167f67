"""bwrap's mounts, looked up while bwrap starts, and handed to it on a pipe (`--args`).

Part of the bubblewrap layer of the plan-mode sandbox (bwrap.py, launch.py). A
call's mounts depend on the host as it is at that call: the tracefs mounts, the
links in /run, and (unless the lease gate looks for them, lease_gate.py) the
leases in /proc/locks. So they are looked up at each call, in a thread that
begins just before the call's process starts, and bwrap, started meanwhile,
waits on the pipe until they are written: the look overlaps the start instead
of preceding it.

They go in one write into a pipe with room for all of them (Linux copies such
a write whole), then the pipe closes. Sent nothing (stepagent failed or died
first), bwrap reads no mounts at all, and without a root it has nothing to
run a command from (bwrap.bwrap_mounts).
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable
from pathlib import Path

from tools.bash.sandbox.bwrap import bwrap_mounts


class LookedUpPipe:
    """A pipe whose bytes are looked up in a thread as the call starts.

    `read_end` goes to the call; `send` once it has started; `close` at the end."""

    def __init__(self, look: Callable[[], bytes]) -> None:
        self.read_end, self._write_end = os.pipe()
        self._read_end_open = True
        self._looked: list[bytes | BaseException] = []
        self._look = threading.Thread(target=self._take_look, args=(look,), daemon=True)
        self._look.start()

    def send(self) -> None:
        """Wait for the look, write what it found, and close the pipe; on any failure, write nothing."""
        try:
            self._look.join()
            data = self._looked[0]
            if isinstance(data, BaseException):
                raise data
            if len(data) > fcntl.fcntl(self._write_end, fcntl.F_GETPIPE_SZ):
                fcntl.fcntl(self._write_end, fcntl.F_SETPIPE_SZ, len(data))
            os.write(self._write_end, data)
        finally:
            self._close_write_end()

    def close(self) -> None:
        """Close both ends (the write end unwritten, if `send` never ran)."""
        self._close_write_end()
        if self._read_end_open:
            os.close(self.read_end)
            self._read_end_open = False

    def _take_look(self, look: Callable[[], bytes]) -> None:
        try:
            self._looked.append(look())
        except BaseException as failure:  # raised again by send, in the call's own thread
            self._looked.append(failure)

    def _close_write_end(self) -> None:
        if self._write_end is not None:
            os.close(self._write_end)
            self._write_end = None


class MountsPipe(LookedUpPipe):
    """One call's mounts; `leased` as for bwrap_mounts (None: looked up with the rest)."""

    def __init__(self, workspace: Path, scratch: str, leased: list[str] | None = None) -> None:
        super().__init__(lambda: b"".join(os.fsencode(argument) + b"\0"
                                          for argument in bwrap_mounts(workspace, scratch, leased)))
