"""tracefs mounted where a test wants it, in a private mount namespace (root only, as CI runs).

trace_pipe consumes the kernel's trace events and waits when there are none, so
tests that show it is never read need a tracefs of their own: the host's tracing
is left alone, and the mounts vanish with the namespace.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
CANNOT_MOUNT = 77


def in_private_tracefs(mounts: list[Path], script: str) -> subprocess.CompletedProcess:
    """Run the shell `script` (from the project root) once tracefs is mounted at each of `mounts`.

    Skips the test where tracefs cannot be mounted privately.
    """
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare to mount tracefs privately")
    mounting = " && ".join(f"mount -t tracefs nodev {mount}" for mount in mounts)
    done = subprocess.run(["unshare", "-m", "sh", "-c", f"{mounting} || exit {CANNOT_MOUNT}; {script}"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    if done.returncode == CANNOT_MOUNT:
        pytest.skip("tracefs cannot be mounted here")
    return done
