"""Whether this system is Linux: the one probe in front of every Linux-only call stepagent makes.

pidfd_open, prctl (the parent-death signal, no_new_privs), Landlock, seccomp,
bubblewrap, capabilities, RLIMIT_AS as `ulimit -v` sets it and /proc are
Linux's. Elsewhere (macOS, the BSDs) each sits out, and the plan-mode notice,
`--doctor` and the README say what plan mode then contains: the classifier's
judgement alone, with per-file and process limits. Called each time, never
cached, so a test can answer "no" and run the product as it runs there.
"""

from __future__ import annotations

import sys


def available() -> bool:
    """Whether the Linux-only layers and calls may be used here."""
    return sys.platform.startswith("linux")
