"""What runs without a question is bounded: build mode's unasked Bash commands.

Not the plan-mode sandbox, but the line of defence under the classifier outside
plan mode. In build and edit mode a command the classifier judges read-only
runs at once, without asking the user, so whatever the classifier gets wrong,
or a cloned repository arranges, runs with no one looking. Three bounds go
with it, taken from the plan-mode sandbox:
- plan mode's resource limits (limits.py): `rg x` in a repository whose
  .rgignore links to /dev/zero reads without end; at the memory limit it stops
  with an error instead of growing until the timeout.
- for root, no capabilities (capabilities.py): `cat k` with `k -> /proc/kmsg`
  would block and take the kernel's log from dmesg (that needs CAP_SYSLOG), and
  CAP_DAC_OVERRIDE would open any file.
- where Landlock is available, none of the kernel's files that act when read
  (kernel_reads.py): root's own files, like tracefs's trace_pipe or a watchdog
  device, stay open to root without capabilities, and a user's terminal to
  that user.
A command the user approved (asked, allowed by the user's own rule, or run in
yolo mode) is the user's: it runs as before, unbounded, with capabilities.

The limits and the ruleset are applied in the child between fork and exec: this
path forks anyway (its watchdog needs a Python step in the child, so
subprocess cannot vfork), so that costs next to nothing there, where a
`ulimit` trampoline would cost one more exec of bash. Building the ruleset
costs about 0.4 ms, setpriv one exec, for root only.
bench/bash_safety.py measures what the bound adds to a call.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from state import PermissionMode
from tools.bash.sandbox.capabilities import drop_all_prefix
from tools.bash.sandbox.kernel_reads import kernel_reads_ruleset
from tools.bash.sandbox.landlock import abi_version
from tools.bash.sandbox.launch import Launch
from tools.bash.sandbox.limits import call_limits


def runs_unasked(plan_mode: bool, permission: PermissionMode, read_only: bool) -> bool:
    """Whether the command runs outside plan mode with no question asked (read-only, not yolo)."""
    return read_only and not plan_mode and permission is not PermissionMode.YOLO


@contextmanager
def unasked_launch() -> Iterator[Launch]:
    """Plan mode's call limits and the kernel-reads ruleset in the child; for root, no capabilities.

    Leaving the block closes the ruleset."""
    launch = Launch(prefix=drop_all_prefix() if os.geteuid() == 0 else [],
                    in_child=[call_limits().apply])
    if not abi_version():
        yield launch
        return
    ruleset = kernel_reads_ruleset()
    try:
        launch.in_child.append(ruleset.restrict)
        yield launch
    finally:
        ruleset.close()
