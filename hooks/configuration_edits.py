"""Edit mode asks before a change to what starts programs: the repository's `.git`, stepagent's `.stepagent`.

A layer on the hook registry's ask seam, beside the permission-mode hook. Edit mode
runs Write and Edit without a question, because the workspace's files are what the
user asked to have changed. Two folders in it hold no such files but configuration
that starts programs later, outside every sandbox and with no question asked:
`.git` (its config names programs a plain `git status` or `git diff` in the user's
own shell runs: core.fsmonitor, core.pager, diff.external, aliases; its hooks run
at a commit) and `.stepagent` (its settings.json holds hooks, which run as the
user while planning too, and allow rules, which skip questions, once the workspace
is trusted). A model steered by a hostile README could plant one there in edit
mode; Codex CLI keeps `.git` read-only in its workspace-write sandbox for the same
reason. So in edit mode such a Write or Edit is asked about, as build mode asks
about every write (one question: this hook asks only where the permission mode
would not). The path is checked as the tool will write it, links followed, and each
of its names as a case-insensitive file system (macOS's, Windows') reads it: `.GIT`
is `.git` there, and HFS+ ignores some invisible code points (`.g\u200cit`), as git's
own check for `.git` does; Windows drops trailing dots and spaces.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from hooks.permission_ask import WORKSPACE_EDITS
from hooks.registry import ToolCallEvent
from state import PermissionMode
from tools.workspace import OWN_FOLDER, resolve

if TYPE_CHECKING:
    from agent.loop import Agent

NAME = "configuration-edits"
STARTS_PROGRAMS = {".git", OWN_FOLDER}
HFS_IGNORED = dict.fromkeys([0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F),
                             *range(0x206A, 0x2070), 0xFEFF])


def as_folder_name(name: str) -> str:
    """`name` as a case-insensitive file system matches it against `.git` or `.stepagent`."""
    return unicodedata.normalize("NFC", name.translate(HFS_IGNORED)).casefold().rstrip(". ")


def configuration_edits(workspace: Path) -> Callable[[ToolCallEvent], str | None]:
    """The ask hook: a question for an edit-mode Write or Edit inside `.git` or `.stepagent`."""
    def ask(event: ToolCallEvent) -> str | None:
        if event.state.permission_mode is not PermissionMode.EDIT or event.tool.name not in WORKSPACE_EDITS:
            return None
        path = resolve(workspace, str(event.args.get("file_path", "")))
        try:
            folders = {as_folder_name(part) for part in path.relative_to(workspace.resolve()).parts}
        except ValueError:
            return None  # outside the workspace: the tool refuses it
        held = sorted(folders & STARTS_PROGRAMS)
        if not held:
            return None
        return (f"{event.tool.name} would change {path}, in {held[0]}, whose files start programs "
                "later (git's config and hooks, stepagent's hooks and rules). Allow it in edit mode?")
    return ask


def configuration_edits_layer(agent: "Agent") -> None:
    """The layer: edit mode asks before a Write or Edit that could plant a program to run later."""
    agent.executor.hooks.on_pre_tool_use(NAME, configuration_edits(agent.workspace), "ask")
