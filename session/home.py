"""Where stepagent keeps its own files: sessions, history, memory, checkpoints, the user's settings.

A leaf the REPL's prompt reads before the agent is built (its history lives here), so
finding the folder loads neither the store nor SQLite.
"""

from __future__ import annotations

import os
from pathlib import Path


def default_home() -> Path:
    """$STEPAGENT_HOME, else ~/.stepagent."""
    return Path(os.environ.get("STEPAGENT_HOME") or Path.home() / ".stepagent")
