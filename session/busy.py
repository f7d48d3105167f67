"""How long a write to the session store waits while another stepagent writes to it.

SQLite's busy timeout for the store (session/store.py): past it the write fails, and the
session goes on in memory (ui/startup.py). $STEPAGENT_BUSY_TIMEOUT sets it (tests set a
short one instead of waiting the default out). A leaf importing only os: `--help` shows
the default without loading the store.
"""

from __future__ import annotations

import os

BUSY_TIMEOUT_SECONDS = 5.0
BUSY_TIMEOUT_VARIABLE = "STEPAGENT_BUSY_TIMEOUT"


def busy_timeout() -> float:
    """$STEPAGENT_BUSY_TIMEOUT seconds, else BUSY_TIMEOUT_SECONDS.

    ValueError, its message for the user, when the variable is not a number of seconds."""
    given = os.environ.get(BUSY_TIMEOUT_VARIABLE, "")
    if not given:
        return BUSY_TIMEOUT_SECONDS
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise ValueError(f"{BUSY_TIMEOUT_VARIABLE} must be a number of seconds, not {given!r}")
    return seconds
