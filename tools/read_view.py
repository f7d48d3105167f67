"""Reading an open file through a read-only bubblewrap view, so its access time stays.

Part of host-side reading (tools/safe_read.py) and of plan mode's promise that
no file metadata changes, times included. O_NOATIME keeps the access time only
for the file's owner (and root, by CAP_FOWNER); for anyone else the kernel
refuses it, and a plain read of /usr/…, /etc/… or another user's file would
move the time (under relatime: when it is older than the last change, or a day
old). So such a file is read by `head` in a view that holds that one file on a
read-only mount, where the kernel never updates the access time.

Used always, not only while planning: it is taken only for files the user does
not own, it costs one short-lived bubblewrap (about 10 ms, bench/host_read.py,
against seconds for a model's reply), and a Read then gives the same answer in
every mode, tested once rather than twice.

The file is the descriptor safe_read opened and checked (a regular file, not on
a kernel pseudo-filesystem); the view holds that very file or bwrap stops
(bwrap.file_view_argv), so `head` never meets a FIFO or a device swapped in
under the same name, and cannot block. A swap makes the read fail, as does a
file removed since it was opened. A reader that still hangs (a stuck network
filesystem) is killed after TIMEOUT_SECONDS.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess

from tools.bash.sandbox.bwrap import bwrap_path, file_view_argv

TIMEOUT_SECONDS = 10
TARGET = "/file"


def view_reader() -> list[str] | None:
    """The command that reads a bound file (bwrap and head), or None where bubblewrap cannot run."""
    bwrap, head = bwrap_path(), shutil.which("head")
    if not bwrap or not head:
        return None
    return [bwrap, os.path.realpath(head)]


def read_through_view(reader: list[str], descriptor: int, size: int) -> bytes:
    """At most `size` bytes of the open file `descriptor`, read in a read-only view of it alone.

    Raises OSError when the reader fails or does not finish within TIMEOUT_SECONDS.
    """
    bwrap, head = reader
    argv = [*file_view_argv(bwrap, descriptor, TARGET, head), head, "-c", str(size), TARGET]
    process = subprocess.Popen(argv, pass_fds=(descriptor,), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        data, problem = process.communicate(timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise OSError(errno.ETIMEDOUT, f"reading it took over {TIMEOUT_SECONDS} s") from None
    if process.returncode != 0:
        shown = problem.decode("utf-8", "replace").strip()
        raise OSError(errno.EIO, f"the read-only view could not read it ({shown or process.returncode})")
    return data
