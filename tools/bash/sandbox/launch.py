"""How a plan-mode Bash call starts: the layers of status.Layers put together.

Build mode's read-only calls, which run without a question, start the same way (unasked.py).

With bubblewrap the call runs as `bwrap … -- perl … bash -c CMD` with the
seccomp filter passed on a pipe and the Landlock ruleset as a descriptor, which
perl applies inside (landlock_in_bwrap.py): no Python runs between fork and
exec, so the call starts with vfork (bench/bash_safety.py measures it). bwrap
reads its mounts from a pipe before it starts any process (mounts_pipe.py):
until stepagent writes them, bwrap is the call's only process, and stepagent
first lowers its resource limits (prlimit), so everything bwrap starts inherits
them; should that fail, no mounts are sent and nothing runs. perl, first of
all, moves itself into the tool's cgroup through descriptors stepagent opened
(in a v1 hierarchy a process that moves itself waits for no RCU grace
period, one moved by another does; without perl, stepagent moves bwrap before
it sends the mounts), so the command's every
process is born inside; bwrap's own two, which run nothing of the command's,
stay out. Then perl holds the command back until stepagent has looked for
leased files (lease_gate.py), a look begun before bwrap starts; where some
are within reach, the call starts again with them covered. Without bubblewrap, the child
restricts itself before exec (Landlock, with a second ruleset that keeps the
kernel's files that act when read closed, kernel_reads.py; then seccomp), and
root's capabilities are dropped by setpriv (capabilities.py). Both get the resource
limits and, for root, the tool's cgroup, and an empty temp folder as TMPDIR,
bounded in total: under bubblewrap a tmpfs of SCRATCH_BYTES is mounted on it,
without it the call's first program is scratch_guard.py, which stops the call
once the private folder takes more. Landlock lets the call
write beneath that folder's parent, a private folder made for the call.
Everything made for the call (pipe, ruleset, folders) goes with it; the
cgroup, and under bubblewrap the private folder, serve all of a tool's calls.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from tools.bash.sandbox import landlock, private_folders, scratch_guard, seccomp
from tools.bash.sandbox.lease_gate import LeaseGate
from tools.bash.sandbox.landlock_in_bwrap import perl_environment, restrict_then_exec
from tools.bash.sandbox.bwrap import bwrap_argv
from tools.bash.sandbox.capabilities import drop_all_prefix
from tools.bash.sandbox.limits import Limits, call_limits
from tools.bash.sandbox.mounts_pipe import MountsPipe
from tools.bash.sandbox.cgroups import CallCgroup
from tools.bash.sandbox.kernel_reads import kernel_reads_ruleset
from tools.bash.sandbox.scratch import SharedPrivateFolder, make_private_folder
from tools.bash.sandbox.status import Layers


@dataclass
class Launch:
    """What the process runner needs: a command prefix, environment, child steps and fds.

    `dies_with_parent` says whether everything the command starts dies with stepagent by itself;
    `started`, when given, runs in stepagent once the process has started, given its pid.
    """

    prefix: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    in_child: list[Callable[[], None]] = field(default_factory=list)
    pass_fds: list[int] = field(default_factory=list)
    dies_with_parent: bool = False
    started: Callable[[int], None] | None = None


@contextmanager
def plan_mode_launch(workspace: Path, layers: Layers, cgroup: CallCgroup | None = None,
                     shared: SharedPrivateFolder | None = None,
                     leased: list[str] | None = None) -> Iterator[Launch]:
    """The launch for one call; leaving the block removes what it made and kills what is left.

    Under bubblewrap the private folder is `shared`'s, when given, and `leased` are the leased
    files to cover, as LeasesInReach found them; None: looked up with the call (lease_gate.py)."""
    with ExitStack() as cleanup:
        limits = call_limits()
        launch = Launch()
        if cgroup:
            cleanup.callback(cgroup.kill_members)
        program = seccomp.this_machines_program() if layers.seccomp else None
        if layers.bwrap and shared:
            private = shared.get()
        else:
            private = make_private_folder()
            cleanup.callback(shutil.rmtree, private, ignore_errors=True)
            os.mkdir(os.path.join(private, "tmp"))
        scratch = os.path.join(private, "tmp")
        launch.env["TMPDIR"] = scratch
        ruleset = None
        if layers.landlock_abi and (layers.perl or not layers.bwrap):
            ruleset = landlock.read_only_ruleset(private)
            cleanup.callback(ruleset.close)
        if layers.bwrap:
            fd = _pipe_holding(program) if program else None
            if fd is not None:
                cleanup.callback(os.close, fd)
                launch.pass_fds.append(fd)
            inside, gate, joined_by_stepagent = [], None, cgroup
            if ruleset and layers.perl:
                if leased is None:
                    gate, leased = LeaseGate(str(workspace), scratch), []
                    cleanup.callback(gate.close)
                    launch.pass_fds.append(gate.read_end)
                joins, joined_by_stepagent = cgroup.joining_ends() if cgroup else [], None
                for end in joins:
                    cleanup.callback(os.close, end)
                launch.pass_fds += [ruleset.fd, *joins]
                launch.env.update(perl_environment())
                inside = restrict_then_exec(layers.perl, ruleset.fd, gate.read_end if gate else None, joins)
            mounts = MountsPipe(workspace, scratch, leased)  # looks up the mounts once the process has started
            cleanup.callback(mounts.close)
            launch.pass_fds.append(mounts.read_end)
            launch.started = partial(_bound_then_sent, limits, joined_by_stepagent, mounts, gate)
            launch.prefix = [*bwrap_argv(layers.bwrap, workspace, fd, scratch, mounts.read_end), *inside]
            launch.dies_with_parent = True
            yield launch
            return
        launch.in_child.append(limits.apply)
        if cgroup:
            launch.in_child.append(cgroup.join)
        if ruleset:
            launch.in_child.append(ruleset.restrict)
            kernel_reads = kernel_reads_ruleset()
            cleanup.callback(kernel_reads.close)
            launch.in_child.append(kernel_reads.restrict)
        if program:
            launch.in_child.append(partial(seccomp.install, program))
        launch.prefix = [*(drop_all_prefix() if layers.root else []), sys.executable, "-I", "-S",
                         scratch_guard.__file__, private, str(private_folders.SCRATCH_BYTES), "--"]
        yield launch


def _bound_then_sent(limits: Limits, cgroup: CallCgroup | None, mounts: MountsPipe,
                     gate: LeaseGate | None, bwrap: int) -> None:
    """bwrap, waiting for its mounts, within the limits (and into `cgroup`, unless perl joins it);
    then its mounts; then (once the leases are looked up) the opening of the gate."""
    if cgroup:
        cgroup.join(bwrap)
    limits.apply_to(bwrap)
    mounts.send()
    if gate:
        gate.send()


def _pipe_holding(data: bytes) -> int:
    """A pipe's read end with `data` waiting in it (bwrap reads its filter from an fd)."""
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    return read_end
