"""No capabilities for root's plan-mode calls where bubblewrap is missing.

A layer of the plan-mode sandbox. Under bubblewrap the call runs with every
capability dropped (`--cap-drop ALL`). Without it, a call started by root
would keep them all, and Landlock and seccomp do not stop every use of them:
reniced processes, a frozen or relabelled filesystem, the clock, the kernel
log. So the call runs through util-linux's setpriv (always installed on
Debian), which empties the bounding, inheritable and ambient sets before it
runs bash: root then gains nothing when it executes a program.
"""

from __future__ import annotations

import shutil

from tools import linux_only

DROP_ALL = ["--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--"]


def drop_all_prefix() -> list[str]:
    """A command prefix that runs what follows without any capability ([] where there are none: not Linux)."""
    if not linux_only.available():
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        raise FileNotFoundError("setpriv (util-linux) is needed to drop root's capabilities")
    return [setpriv, *DROP_ALL]
