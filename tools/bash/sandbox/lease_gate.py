"""The lease look beside bubblewrap's start: the command waits at a gate until it is done.

Part of the bubblewrap layer of the plan-mode sandbox (bwrap.py, private_folders.py,
launch.py). A file another process holds a lease on is covered by an unreadable
file, so the leases must be known at each call; but the reader of /proc/locks
waits for an RCU grace period (milliseconds, longer on a busy machine, the
longest step of a call's start). So where perl applies Landlock inside
(landlock_in_bwrap.py), bwrap gets its mounts without such covers at once, and
stepagent looks up the leases in a thread begun before bwrap starts (it waits
in the kernel, without Python's lock, while bwrap makes the namespaces and
mounts); perl waits on the gate's pipe before it applies Landlock and runs the
command. Found no leased file within the call's reach, stepagent opens the
gate (one byte). Found some, the call is stopped before its command ran
(LeasesInReach) and started again with them covered, as a call without perl
always is. Sent nothing (stepagent failed or died first), perl reads the end
of the pipe and runs nothing. Before the gate opens, only bwrap and perl's own
start-up have run (perl has joined the cgroup), which open the system's
programs and libraries, as bwrap already did before the look.
"""

from __future__ import annotations

import os
import threading

from tools.bash.sandbox.mounts_pipe import OneWritePipe
from tools.bash.sandbox.private_folders import leased_in_reach

OPEN = b"1"


class LeasesInReach(Exception):
    """The call could open these leased files: it must start again with them covered."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__(", ".join(paths))
        self.paths = paths


class LeaseGate(OneWritePipe):
    """One call's gate, whose look begins when it is made.

    `send` opens the gate once no leased file is within reach, or raises LeasesInReach."""

    def __init__(self, workspace: str, scratch: str) -> None:
        super().__init__()
        self._found: list[list[str] | BaseException] = []
        self._look = threading.Thread(target=self._take_look, daemon=True,
                                      args=(os.path.realpath(workspace), os.path.realpath(scratch)))
        self._look.start()

    def _take_look(self, workspace: str, scratch: str) -> None:
        try:
            self._found.append(leased_in_reach(workspace, scratch))  # reads /proc/locks first
        except BaseException as failure:  # raised again by send, in the call's own thread
            self._found.append(failure)

    def _bytes(self) -> bytes:
        """Once the look is done: the byte that opens the gate, if it found no leased file within reach."""
        self._look.join()
        found = self._found[0]
        if isinstance(found, BaseException):
            raise found
        if found:
            raise LeasesInReach(found)
        return OPEN
