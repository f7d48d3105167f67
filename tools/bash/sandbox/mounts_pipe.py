"""bwrap's mounts, looked up once bwrap has started, and handed to it on a pipe (`--args`).

Part of the bubblewrap layer of the plan-mode sandbox (bwrap.py, launch.py). A
call's mounts depend on the host as it is at that call: the tracefs mounts, the
links in /run, and (unless the lease gate looks for them, lease_gate.py) the
leases in /proc/locks. So they are looked up at each call, once the call's
process has started: bwrap, meanwhile, loads its libraries and then waits on
the pipe, so the look overlaps its start instead of preceding it. bwrap reads
the pipe before it makes any namespace or process, so until the mounts are
written it has started nothing (launch.py applies the limits in that time).

They go in one write into a pipe with room for all of them (Linux copies such
a write whole), then the pipe closes. Sent nothing (stepagent failed or died
first), bwrap reads no mounts at all, and without a root it has nothing to
run a command from (bwrap.bwrap_mounts).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tools.bash.sandbox.bwrap import bwrap_mounts


class OneWritePipe:
    """A pipe to the call, written once and closed.

    `read_end` goes to the call; `send` once it has started; `close` at the end."""

    def __init__(self) -> None:
        self.read_end, self._write_end = os.pipe()
        self._read_end_open = True

    def send(self) -> None:
        """Write what the call waits for (`_bytes`), once, and close the pipe.

        On any failure nothing is written."""
        try:
            data = self._bytes()
            if len(data) > fcntl.fcntl(self._write_end, fcntl.F_GETPIPE_SZ):
                fcntl.fcntl(self._write_end, fcntl.F_SETPIPE_SZ, len(data))
            os.write(self._write_end, data)
        finally:
            self._close_write_end()

    def _bytes(self) -> bytes:
        """What the call waits for: each kind of pipe says."""
        raise NotImplementedError

    def close(self) -> None:
        """Close both ends (the write end unwritten, if `send` never ran)."""
        self._close_write_end()
        if self._read_end_open:
            os.close(self.read_end)
            self._read_end_open = False

    def _close_write_end(self) -> None:
        if self._write_end is not None:
            os.close(self._write_end)
            self._write_end = None


class MountsPipe(OneWritePipe):
    """One call's mounts; `leased` as for bwrap_mounts (None: looked up with the rest)."""

    def __init__(self, workspace: Path, scratch: str, leased: list[str] | None = None) -> None:
        super().__init__()
        self._workspace, self._scratch, self._leased = workspace, scratch, leased

    def _bytes(self) -> bytes:
        """The mounts, looked up now, as `--args` reads them."""
        mounts = bwrap_mounts(self._workspace, self._scratch, self._leased)
        return b"".join(os.fsencode(argument) + b"\0" for argument in mounts)
