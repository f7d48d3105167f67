"""What runs without a question is bounded: build mode's unasked Bash commands.

Not the plan-mode sandbox, but the line of defence under the classifier outside
plan mode. In build and edit mode a command the classifier judges read-only
runs at once, without asking the user, so whatever the classifier gets wrong,
or a cloned repository arranges, runs with no one looking. Two bounds go with
it, taken from the plan-mode sandbox:
- plan mode's resource limits (limits.py): `rg x` in a repository whose
  .rgignore links to /dev/zero reads without end; at the memory limit it stops
  with an error instead of growing until the timeout.
- for root, no capabilities (capabilities.py): `cat k` with `k -> /proc/kmsg`
  would block and take the kernel's log from dmesg (that needs CAP_SYSLOG), and
  CAP_DAC_OVERRIDE would open any file. Root keeps its uid, so root's own
  files stay readable (tracefs's trace_pipe among them: only the classifier's
  lexical check stands before that one).
A command the user approved (asked, allowed by the user's own rule, or run in
yolo mode) is the user's: it runs as before, unbounded, with capabilities.

The limits are set in the child between fork and exec: this path forks anyway
(its watchdog needs a Python step in the child, so subprocess cannot vfork),
so they cost next to nothing there, where a `ulimit` trampoline would cost one
more exec of bash. setpriv costs one exec, for root only. bench/bash_safety.py
measures what the bound adds to a call.
"""

from __future__ import annotations

import os

from state import PermissionMode
from tools.bash.sandbox.capabilities import drop_all_prefix
from tools.bash.sandbox.launch import Launch
from tools.bash.sandbox.limits import call_limits


def runs_unasked(plan_mode: bool, permission: PermissionMode, read_only: bool) -> bool:
    """Whether the command runs outside plan mode with no question asked (read-only, not yolo)."""
    return read_only and not plan_mode and permission is not PermissionMode.YOLO


def unasked_launch() -> Launch:
    """Plan mode's call limits in the child and, for root, a prefix that drops every capability."""
    return Launch(prefix=drop_all_prefix() if os.geteuid() == 0 else [],
                  in_child=[call_limits().apply])
