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
own check for `.git` does; Windows drops trailing dots and spaces. A folder
needs no such name to be a repository's own: git run in a folder that holds a HEAD
and a config takes it for a bare repository and reads its config (`git branch` in a
terminal runs its core.pager), so a Write that would complete that pair is asked about too.
Nor does a hooks folder need that name: `core.hooksPath` in the repository's own
config (husky and setup scripts set it: `.githooks`, `.husky/_`) makes a folder of
the work tree the one whose files run at a commit, so a change beneath it is asked
about as one in `.git/hooks` is (husky's scripts beside `.husky/_`, which its hooks
run, are not). That config is read as the files tools read it (safe_read.py, never a
FIFO), its `[core]` section only: an `include` is not followed.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from hooks.permission_ask import WORKSPACE_EDITS
from hooks.registry import ToolCallEvent
from state import PermissionMode
from tools.safe_read import read_capped
from tools.workspace import OWN_FOLDER, resolve

if TYPE_CHECKING:
    from agent.loop import Agent

NAME = "configuration-edits"
STARTS_PROGRAMS = {".git", OWN_FOLDER}
GIT_FOLDER_FILES = {"head", "config", "commondir"}
SECTION = re.compile(r"\s*\[\s*([^\]\s\"]+)[^\]]*\]")
HOOKS_PATH = re.compile(r"\s*hookspath\s*=\s*(.*)", re.IGNORECASE)
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
        if held:
            return (f"{event.tool.name} would change {path}, in {held[0]}, whose files start programs "
                    "later (git's config and hooks, stepagent's hooks and rules). Allow it in edit mode?")
        hooks = configured_hooks(workspace.resolve())
        if hooks and (path == hooks or hooks in path.parents):
            return (f"{event.tool.name} would change {path}, in {hooks}, the hooks folder the "
                    "repository's core.hooksPath names: its files run at the next commit. "
                    "Allow it in edit mode?")
        if makes_git_folder(path):
            return (f"{event.tool.name} would change {path}: {path.parent} then holds a HEAD and a "
                    "config, which git takes for a repository of its own, whose config starts programs "
                    "when git runs in that folder. Allow it in edit mode?")
        return None
    return ask


def configured_hooks(workspace: Path) -> Path | None:
    """The folder `core.hooksPath` names in the config of the repository holding `workspace`.

    Relative to the work tree's top, as git runs hooks there; None when nothing names one."""
    top = next((folder for folder in (workspace, *workspace.parents) if (folder / ".git").is_dir()), None)
    if top is None:
        return None
    try:
        text, _ = read_capped(top / ".git" / "config")
    except OSError:
        return None
    section, named = "", None
    for line in text.splitlines():
        header = SECTION.match(line)
        if header:
            section = header.group(1).lower() if '"' not in line else ""
            continue
        value = HOOKS_PATH.match(line) if section == "core" else None
        if value:
            named = value.group(1).split("#")[0].split(";")[0].strip().strip('"')
    return resolve(top, named) if named else None


def makes_git_folder(path: Path) -> bool:
    """Whether, once `path` is written, its folder is what git run there takes for a bare repository.

    That is a HEAD beside a config, or beside a commondir (which names where the config is)."""
    name = as_folder_name(path.name)
    if name not in GIT_FOLDER_FILES:
        return False
    try:
        present = {as_folder_name(entry) for entry in os.listdir(path.parent)} | {name}
    except OSError:
        present = {name}
    return "head" in present and bool(present & {"config", "commondir"})


def configuration_edits_layer(agent: "Agent") -> None:
    """The layer: edit mode asks before a Write or Edit that could plant a program to run later."""
    agent.executor.hooks.on_pre_tool_use(NAME, configuration_edits(agent.workspace), "ask")
