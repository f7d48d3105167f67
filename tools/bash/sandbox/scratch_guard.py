"""A plan-mode call's first program where no tmpfs bounds its scratch space: it bounds it in total.

A layer of the plan-mode sandbox where bubblewrap is missing (launch.py).
Under bubblewrap the call's TMPDIR is a tmpfs of SCRATCH_BYTES. Without it
TMPDIR is a folder on the host's disk, RLIMIT_FSIZE bounds each file and
nothing bounds their sum: `sort` spills its runs there, file after file. So
the call runs as `python -I -S scratch_guard.py FOLDER BYTES -- bash -c CMD`:
the guard starts the command as its child, in its own process group, and every
LOOK_SECONDS adds up the disk space everything beneath FOLDER takes (blocks, so
a sparse file counts what it holds). Past BYTES it says so on the call's output
and kills the whole group, itself included; otherwise it ends as the command
did, woken by SIGCHLD the moment it does. At most one look's worth of writing
(and one file's bound) passes the bound. Standard library only, since `-I -S` leaves site-packages, PYTHONPATH
and the working folder off the path; it works wherever Python and fork do.
"""

from __future__ import annotations

import _signal as signal  # signal's wrapper imports enum: some 10 ms of CPU at each call's start
import os
import select
import sys

LOOK_SECONDS = 0.05
BLOCK = 512


def used(folder: str) -> int:
    """Bytes of disk that `folder` and everything beneath it take."""
    total = 0
    for top, folders, files in os.walk(folder):
        for name in (*folders, *files):
            try:
                total += os.lstat(os.path.join(top, name)).st_blocks * BLOCK
            except OSError:
                continue
    return total


def main(arguments: list[str]) -> int:
    """Run the command after `--`; its exit code, or the group killed once `folder` passes the bound."""
    folder, limit, _separator, *command = arguments
    wake = _woken_by_children()
    child = os.fork()
    if child == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    while True:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            return _as_own(status)
        if used(folder) > int(limit):
            print(f"\n[stopped: the scratch space ($TMPDIR) took more than {int(limit) >> 20} MiB]",
                  flush=True)
            os.killpg(0, signal.SIGKILL)
        if select.select([wake], [], [], LOOK_SECONDS)[0]:
            os.read(wake, 4096)


def _woken_by_children() -> int:
    """A pipe that becomes readable when a child ends, so the guard ends with the command at once."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(write_end)
    return read_end


def _as_own(status: int) -> int:
    """The command's exit code; a signal that killed it kills the guard the same way."""
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
