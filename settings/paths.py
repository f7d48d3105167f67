"""Where the settings files are: the user's, and the one a workspace brings.

A leaf (pathlib and the name of stepagent's own folder), so a start can see whether the
workspace brings settings, and so whether the user must be asked to trust it before the
prompt, without loading the settings' readers (ui/prompt_first.py).
"""

from __future__ import annotations

from pathlib import Path

from tools.workspace import OWN_FOLDER

SETTINGS = "settings.json"


def user_settings_path(home: Path) -> Path:
    """The user's settings file."""
    return home / SETTINGS


def project_settings_path(workspace: Path) -> Path:
    """The project's settings file."""
    return workspace / OWN_FOLDER / SETTINGS
