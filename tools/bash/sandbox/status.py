"""Which layers of the plan-mode sandbox this machine has, and what a missing one leaves open.

UI-free: `stepagent --doctor` (ui/doctor.py) shows these rows as a table, and
entering plan mode shows `plan_mode_notice`. The Bash tool reads the same
`Layers` to choose how a plan-mode call runs and what it may run.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import lru_cache

from tools import linux_only
from tools.bash.sandbox import landlock, seccomp
from tools.bash.sandbox.bwrap import bwrap_path
from tools.bash.sandbox.cgroups import make_call_cgroup
from tools.bash.sandbox.landlock_in_bwrap import perl_path
from tools.leases import LOCKS


@dataclass(frozen=True)
class Layers:
    """What the sandbox can use here; tests build their own to take a layer away."""

    bwrap: str | None
    landlock_abi: int
    seccomp: bool
    cgroup: bool
    root: bool
    perl: str | None = None
    leases_visible: bool = True

    @property
    def landlock_inside_bwrap(self) -> bool:
        """Whether Landlock is applied inside bubblewrap too (it stops writes into FIFOs)."""
        return bool(self.bwrap and self.landlock_abi and self.perl)

    @property
    def os_sandbox(self) -> bool:
        """Whether any layer of the operating system contains what the classifier lets through."""
        return bool(self.bwrap or self.landlock_abi or self.seccomp)

    @property
    def contains_code(self) -> bool:
        """Whether a program the command starts is contained without the classifier's help."""
        return self.landlock_inside_bwrap and self.seccomp


@dataclass(frozen=True)
class LayerRow:
    """One line of the doctor's table."""

    layer: str
    active: bool
    detail: str
    leaves_open: str = ""


@lru_cache(maxsize=1)
def detect_layers() -> Layers:
    """Probe this machine once per process."""
    root = os.geteuid() == 0
    return Layers(bwrap=bwrap_path(), landlock_abi=landlock.abi_version(),
                  seccomp=seccomp.architecture() is not None,
                  cgroup=root and _cgroup_works(), root=root, perl=perl_path(),
                  leases_visible=os.access(LOCKS, os.R_OK))


def _cgroup_works() -> bool:
    probe = make_call_cgroup(f"stepagent-{os.getpid()}-probe-{time.monotonic_ns()}")
    if probe is None:
        return False
    probe.remove()
    return True


def layer_rows(layers: Layers) -> list[LayerRow]:
    """Each layer, active or not, and what its absence leaves open."""
    landlock_used = bool(layers.landlock_abi) and (layers.landlock_inside_bwrap or not layers.bwrap)
    if layers.landlock_abi:
        landlock_detail = (f"ABI {layers.landlock_abi}: writes only to a private temp folder"
                           + ("; no TCP" if layers.landlock_abi >= 4 else "")
                           + ("; signals and abstract sockets stay inside" if layers.landlock_abi >= 6 else "")
                           + ("" if not layers.bwrap else "; inside bubblewrap, no writing into FIFOs"
                              if landlock_used else "; not applied inside bubblewrap: perl is missing"))
    else:
        landlock_detail = "not offered by this kernel"
    landlock_open = ("file writes are stopped by the classifier alone, and rewind's checkpoint "
                     "before each prompt follows a .git file's gitdir anywhere (opening a FIFO "
                     "there wakes its writer)" if not layers.bwrap else
                     "a command can write into a FIFO outside (a read-only mount allows it); git "
                     "commands that can run a repository-configured program are refused while "
                     "planning and asked about in build mode")
    processes = ("a cgroup: 256 processes, 2 GiB in all" if layers.cgroup else
                 "RLIMIT_NPROC" if not layers.root else "")
    return [
        LayerRow("classifier", True, "default deny: only commands known to be read-only run",
                 "" if layers.os_sandbox else "the only guard here: nothing contains a command it "
                 "wrongly lets through, which could write files, reach the network and signal "
                 "processes"),
        LayerRow("bubblewrap", bool(layers.bwrap),
                 "read-only /, own PID, network, IPC and user namespaces, private /tmp, /var/tmp "
                 "and /run (a FIFO elsewhere, as in the home folder or in a workspace that is /tmp or "
                 "/run itself, can still be read), a bounded "
                 "private TMPDIR, dies with stepagent" if layers.bwrap else
                 "bwrap missing or not allowed to run",
                 "" if layers.bwrap else
                 "a command can read a FIFO outside (taking what another program sends through "
                 "it), file metadata is guarded by seccomp alone, no network namespace, the scratch "
                 "folder is on the host's disk (a watch stops the call past 64 MiB in all, checked "
                 "every 50 ms), a process "
                 "that escapes the call's group can outlive it, reading a file (Bash, Grep, Glob, "
                 "rewind's checkpoint before each prompt"
                 + ("" if layers.root else ", and Read of a file another user owns")
                 + ") can update its access time, as following a symbolic link can update the "
                 "link's; git commands that can run a "
                 "repository-configured program are refused while planning and asked about in "
                 "build mode, and so are Grep and Glob in a tree "
                 "whose ignore files lead to a FIFO, a device or a kernel file"),
        LayerRow("Landlock", landlock_used, landlock_detail, "" if landlock_used else landlock_open),
        LayerRow("seccomp", layers.seccomp,
                 "no sockets, no chmod/chown/utime/xattr/chattr, no renice or ionice of other "
                 "processes, no io_uring, no new sessions, no exclusive locks, leases, IPC or "
                 "inotify instances"
                 if layers.seccomp else "no filter written for this architecture",
                 "" if layers.seccomp else
                 "a command can connect to unix sockets outside (tmux, docker, ssh agent)"
                 + ("" if layers.bwrap else " and change file metadata")),
        LayerRow("leases", layers.leases_visible,
                 "Read, Grep, plan-mode Bash and rewind's checkpoints refuse, leave out or cover a "
                 "file another process holds a lease on (/proc/locks): opening it would signal that "
                 "process"
                 if layers.leases_visible else "no /proc/locks: leases cannot be seen",
                 "reads are observable: an open shows in inotify and fanotify watches and audit "
                 "logs, and plan-mode Bash still breaks a lease whose holder this user cannot "
                 "inspect (another user's process)"
                 + ("" if layers.bwrap or layers.landlock_abi else ", or any lease: without "
                    "bubblewrap and Landlock nothing covers the file")),
        LayerRow("limits", bool(processes),
                 ("4 GiB memory per process, " if linux_only.available() else "")
                 + f"64 MiB per file, {processes or 'no process cap'}",
                 "" if processes else "as root without a writable cgroup, a fork bomb runs "
                 "until the timeout, and memory is bounded per process only"),
    ]


def plan_mode_notice(layers: Layers) -> str:
    """One line for entering plan mode: which layers guard Bash, which are missing."""
    if not layers.os_sandbox:
        return ("Plan-mode sandbox: none on this system (bubblewrap, Landlock and seccomp are "
                "Linux's). Plan mode relies on the classifier alone: only commands it knows to be "
                "read-only run, bounded per file and in scratch space; a command it wrongly lets "
                "through is not contained and could write files, reach the network and signal "
                "processes.")
    rows = layer_rows(layers)
    active = [row.layer for row in rows if row.active]
    missing = [row for row in rows if not row.active]
    text = f"Plan-mode sandbox: {', '.join(active)} active."
    if missing:
        text += " Missing: " + "; ".join(f"{row.layer} ({row.leaves_open})" for row in missing) + "."
    return text


def sandbox_status() -> str:
    """The plan-mode notice for this machine (CI prints it too)."""
    return plan_mode_notice(detect_layers())
