"""What a command run without a question may open for reading: not the kernel's acting files.

A layer of the plan-mode sandbox where bubblewrap is missing (launch.py;
bubblewrap shows a call its own /dev and covers tracefs and debugfs), which
runs what build mode runs without a question too (unasked.py). The
classifier refuses a word that names a kernel file that acts when read
(classifier/kernel_files.py), but a cloned repository can carry a link to one,
and `cat notes` looks harmless: with notes -> /dev/pts/0 it takes what the
user types, with a link into tracefs it takes trace events from their reader,
with one to a watchdog device it reboots the machine. Root opens all of these
without capabilities (they are root's own files), other users their own
terminals. So the command runs under a Landlock ruleset (landlock.py) that
handles only the opening of files for reading, and grants it beneath / except:
- /dev, of which only DEVICES (null, zero, random…): default deny, since a
  device acts when read far more often than a file does;
- tracefs and debugfs (/sys/kernel/tracing, /sys/kernel/debug, and wherever
  else they or another device file system are mounted);
- each file another process holds a lease on, where its holder's descriptors
  name it (tools/leases.py): opening it would break the lease and signal
  that process.
Landlock can only grant, so "all but" is granted as each sibling on the way to
what is left out. Listing folders, writing and the rest are not handled.
/proc stays open as a whole (a process's own /proc/self could not be granted
before it starts): /proc/kmsg needs CAP_SYSLOG, which root's sandboxed commands
no longer hold. The ruleset is built for each call (the folders on the way can
change); where Landlock is missing this layer is absent.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from tools.bash.sandbox.landlock import Ruleset, reading_ruleset
from tools.bash.sandbox.mount_table import mount_points
from tools.leases import leased_paths

DEVICES = ("null", "zero", "full", "random", "urandom", "shm", "mqueue", "hugepages")
LEFT_OUT = ("/dev", "/sys/kernel/tracing", "/sys/kernel/debug")
DEVICE_FILE_SYSTEMS = frozenset({"tracefs", "debugfs", "devtmpfs", "devpts"})


def kernel_reads_ruleset() -> Ruleset:
    """A ruleset under which a command may read every file but the kernel's acting ones and leased ones."""
    left_out = set(LEFT_OUT) | _device_mounts() | set(leased_paths())
    return reading_ruleset([*_everything_but(left_out), *(f"/dev/{name}" for name in DEVICES)])


def _everything_but(left_out: set[str]) -> Iterator[str]:
    """The fewest paths beneath which lies everything but `left_out` (absolute, normalised)."""
    on_the_way = {parent for path in left_out for parent in _parents(path)}

    def beneath(folder: str) -> Iterator[str]:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if entry.path in left_out or entry.is_symlink():
                continue
            if entry.path in on_the_way:
                yield from beneath(entry.path)
            else:
                yield entry.path

    yield from beneath("/")


def _parents(path: str) -> Iterator[str]:
    while path != "/":
        path = os.path.dirname(path)
        yield path


def _device_mounts() -> set[str]:
    """Where device, trace and debug file systems are mounted (outside /proc, which stays open)."""
    return {point for point in mount_points(DEVICE_FILE_SYSTEMS)
            if point != "/" and not (point + "/").startswith("/proc/")}
