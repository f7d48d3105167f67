"""Workspace trust and kept rules: what the user's own settings file remembers per workspace.

Project hooks are user code that arrives with a cloned repository, and project allow rules
loosen the questions; both wait until the user has trusted that workspace once. The answer
is kept in the user's settings (never in the workspace, which the repository controls):

  "workspaces": {"/home/me/src/app": {"trusted": true,
                                      "permissions": {"allow": ["Bash(make test:*)"]}}}

The same entry keeps the rules a user answered "don't ask again, for this project" with,
so they hold in later sessions without anything being written into the repository. A rule
kept for the user (every workspace) goes to the file's own `permissions`. The key is the
workspace's real path, so a link to it is the same workspace.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from settings.files import read_settings, update_user_settings
from settings.paths import user_settings_path
from settings.rules import Kind

Keeper = Literal["project", "user"]


def workspace_key(workspace: Path) -> str:
    """How the user's settings name a workspace: its real path."""
    return str(workspace.resolve())


def is_trusted(home: Path, workspace: Path) -> bool:
    """Has the user trusted this workspace (in their settings file)?"""
    entry = read_settings(user_settings_path(home), "user").data.get("workspaces", {})
    entry = entry.get(workspace_key(workspace)) if isinstance(entry, dict) else None
    return isinstance(entry, dict) and entry.get("trusted") is True


def trust(home: Path, workspace: Path) -> None:
    """Remember that the user trusts this workspace; SettingsUnwritable if it cannot be kept."""
    update_user_settings(home, lambda data: _entry(data, workspace).update(trusted=True))


def keep_rule(home: Path, workspace: Path, keeper: Keeper, rule: str, kind: Kind = "allow") -> None:
    """Add `rule` for this project or for the user, once; SettingsUnwritable if it cannot."""
    def change(data: dict[str, Any]) -> None:
        owner = _entry(data, workspace) if keeper == "project" else data
        permissions = owner.setdefault("permissions", {})
        rules = permissions.setdefault(kind, [])
        if rule not in rules:
            rules.append(rule)
    update_user_settings(home, change)


def _entry(data: dict[str, Any], workspace: Path) -> dict[str, Any]:
    workspaces = data.setdefault("workspaces", {})
    return workspaces.setdefault(workspace_key(workspace), {})
