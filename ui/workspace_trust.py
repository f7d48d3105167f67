"""The question at start: may this workspace's own hooks and allow rules run?

Project hooks are commands that arrive with a cloned repository and run as the user,
outside the plan-mode sandbox; project allow rules skip questions. So they stay off until
the user has trusted the workspace once. The REPL shows what would run (every character of
each command, its line breaks and invisible characters shown), then asks, and
remembers a yes in the user's settings, for the hooks and rules it showed (settings/trust.py):
once they change, it asks again, saying so. -p asks nobody: only
--trust-workspace turns them on, for that run, whatever was remembered. A workspace
whose settings hold nothing that trust would turn on is never asked about. While they
are off, one line says so and what would turn them on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from settings.files import SettingsUnwritable
from settings.schema import Settings
from settings.paths import project_settings_path, user_settings_path
from settings.listing import hook_entry
from settings.trust import is_trusted, trust, trusted_entry
from settings.user_hooks import load_user_settings
from tools.base import counted
from ui.console import ConsoleView
from ui.safe_text import reveal


def trusted_workspace(home: Path, workspace: Path, view: ConsoleView,
                      confirm: Callable[[str], bool] | None, flag: bool) -> bool:
    """Whether the project's hooks and allow rules apply this run (asking the user once)."""
    if flag:
        return True
    if confirm is None:
        return False
    waiting = load_user_settings(home, workspace, trusted=False).waiting_for_trust
    if not waiting.hooks and not waiting.rules:
        return False
    if is_trusted(home, workspace, waiting):
        return True
    changed = (" Its hooks, a file they run or its allow rules changed since you trusted this workspace." if
               trusted_entry(home, workspace) else "")
    view.notice(f"{project_settings_path(workspace)} comes with this workspace.{changed} Its hooks run "
                "as you, outside the plan-mode sandbox, and its allow rules skip questions:", style="yellow")
    for hook in waiting.hooks:
        view.notice(reveal(hook_entry(hook)), style="yellow")
    for rule in waiting.rules:
        view.notice(f"  allow  {rule.rule.text}", style="yellow")
    if not confirm(f"Trust this workspace (remembered in {user_settings_path(home)})?"):
        return False
    try:
        trust(home, workspace, waiting)
    except SettingsUnwritable as failure:
        view.error(f"{failure} Trusted for this session only.")
    return True


def off_line(home: Path, workspace: Path, waiting: Settings, asked: bool) -> str:
    """The line saying which project hooks and allow rules are off, and what turns them on.

    '' when none is off. `asked`: the run could ask the user (the REPL), unlike -p.
    """
    held = [counted(len(items), noun) for items, noun in ((waiting.hooks, "hook"),
                                                          (waiting.rules, "allow rule")) if items]
    if not held:
        return ""
    if asked:
        why = "they stay off until you trust this workspace"
    elif is_trusted(home, workspace, waiting):
        why = "you trust this workspace, but a -p run turns them on only with --trust-workspace"
    else:
        why = "they stay off: a -p run turns them on only with --trust-workspace"
    return (f"This workspace's {project_settings_path(workspace)} has {' and '.join(held)}; "
            f"{why} (its deny and ask rules apply).")
