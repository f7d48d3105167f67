"""The user's own editor ($VISUAL, else $EDITOR, else vi), run on a file until it closes.

/memory NAME and the plan review's Ctrl+G open files here. The editor gets the
terminal to itself; stepagent waits for it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path


def editor_command() -> str:
    """The editor the user chose: $VISUAL, else $EDITOR, else vi."""
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"


def run_editor(path: Path) -> str:
    """Open `path` in the user's editor and wait; '' when it ran well, else what went wrong.

    It went wrong when it could not start, or when it exited with a code other than 0 (said
    as git says it).
    """
    editor = editor_command()
    try:
        done = subprocess.run([*shlex.split(editor), str(path)], check=False)
    except (OSError, ValueError) as failure:
        return f"Cannot start the editor {editor!r}: {getattr(failure, 'strerror', None) or failure}."
    return f"The editor {editor!r} exited with code {done.returncode}." if done.returncode else ""
