"""Workspace trust and kept rules: what the user's own settings file remembers per workspace.

Project hooks are user code that arrives with a cloned repository, and project allow rules
loosen the questions; both wait until the user has trusted that workspace once. The answer
is kept in the user's settings (never in the workspace, which the repository controls):

  "workspaces": {"/home/me/src/app": {"trusted": true, "covers": "<sha256>",
                                      "permissions": {"allow": ["Bash(make test:*)"]}}}

Trust covers what the user was shown: the entry keeps a digest of the project's hooks and
allow rules at that moment, and of each workspace file a hook's command names (`bash
hooks/check.sh`, `"$CLAUDE_PROJECT_DIR"/x.py`): once any differs (a pull, a checked-out
branch, a new clone at the same path) the workspace is no longer trusted until the user says
so again. What a hook's program reads by itself (`npm run lint` reads package.json) is not
covered.

The same entry keeps the rules a user answered "don't ask again, for this project" with,
so they hold in later sessions without anything being written into the repository. A rule
kept for the user (every workspace) goes to the file's own `permissions`. The key is the
workspace's real path, so a link to it is the same workspace.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from pathlib import Path
from typing import Any, Literal

from settings.files import read_settings, update_user_settings
from settings.paths import user_settings_path
from settings.rules import Kind
from settings.schema import Settings
from tools.quiet_links import real_path
from tools.safe_read import read_bytes_capped

Keeper = Literal["project", "user"]
PROJECT_DIR = re.compile(r"^\$\{?(?:STEPAGENT|CLAUDE)_PROJECT_DIR\}?/")
SCRIPT_BYTES = 1 << 20


def workspace_key(workspace: Path) -> str:
    """How the user's settings name a workspace: its real path."""
    return str(workspace.resolve())


def covered(waiting: Settings, workspace: Path) -> str:
    """The digest of what trust turns on: each project hook, the files it names, each allow rule."""
    shown = [[[hook.event, hook.matcher, hook.command, hook.timeout, _named_files(hook.command, workspace)]
              for hook in waiting.hooks], [rule.rule.text for rule in waiting.rules]]
    return hashlib.sha256(json.dumps(shown).encode()).hexdigest()


def _named_files(command: str, workspace: Path) -> list[list[str]]:
    """Each word of `command` that names a file in the workspace, with the digest of its bytes."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    root, named = workspace.resolve(), []
    for word in words:
        path = real_path(workspace / PROJECT_DIR.sub("", word))
        if root in path.parents and ("/" in word or path.exists()):
            try:
                data, _ = read_bytes_capped(path, SCRIPT_BYTES)
            except OSError:
                data = b""
            named.append([word, hashlib.sha256(data).hexdigest()])
    return named


def trusted_entry(home: Path, workspace: Path) -> dict[str, Any]:
    """The user's settings entry for this workspace if they ever trusted it, else {}."""
    entry = read_settings(user_settings_path(home), "user").data.get("workspaces", {})
    entry = entry.get(workspace_key(workspace)) if isinstance(entry, dict) else None
    return entry if isinstance(entry, dict) and entry.get("trusted") is True else {}


def is_trusted(home: Path, workspace: Path, waiting: Settings) -> bool:
    """Has the user trusted this workspace with exactly these project hooks and allow rules?"""
    return trusted_entry(home, workspace).get("covers") == covered(waiting, workspace)


def trust(home: Path, workspace: Path, waiting: Settings) -> None:
    """Remember the user trusts this workspace with these hooks and rules; SettingsUnwritable if not kept."""
    digest = covered(waiting, workspace)
    update_user_settings(home, lambda data: _entry(data, workspace).update(trusted=True, covers=digest))


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
