"""What a call will do, shown to the user before they are asked (failure mode 12: blind approval).

A layer (`preview_layer`): Write and Edit get a `preview` (tools/base.py: Tool.preview), the
hardened Bash has its own (`command_preview`). UI-free data: the unified diff an Edit will
make, the content (or the diff against the existing file) a Write will leave, the command a
Bash call will run. The console draws it (ui/preview.py). A preview never changes anything:
it reads the file the call names with the file tools' reader (the safe one, tools/safe_read.py,
in the product), and only inside the workspace, where the call can act. Without the layer the
user is asked with the call's arguments, which hold the whole content or edit.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.base import Preview
from tools.files import Reader, current_text, diff_preview
from tools.workspace import outside_workspace, resolve, shown

if TYPE_CHECKING:
    from agent.loop import Agent


def preview_layer(agent: "Agent", read_capped: Reader) -> None:
    """The layer: Write and Edit show what they will change, read with `read_capped`."""
    tools, workspace = agent.executor.tools, agent.workspace
    tools["Write"] = replace(tools["Write"], preview=lambda args: write_preview(workspace, args, read_capped))
    tools["Edit"] = replace(tools["Edit"], preview=lambda args: edit_preview(workspace, args, read_capped))


def edit_preview(workspace: Path, args: dict[str, Any], read_capped: Reader) -> Preview:
    """The diff an Edit will make; the bare old→new diff when the file or the text is missing."""
    path = resolve(workspace, args["file_path"])
    name = shown(workspace, path)
    old, new = args["old_string"], args["new_string"]
    outside = bool(outside_workspace(workspace, path))
    text = None if outside else current_text(path, read_capped)
    if text is None or not old or old not in text:
        problem = ("is outside the workspace" if outside else "cannot be read" if text is None
                   else "does not contain old_string")
        return replace(diff_preview(old, new, name), note=f"{name} {problem}: this edit will fail")
    after = text.replace(old, new) if args.get("replace_all") else text.replace(old, new, 1)
    return diff_preview(text, after, name)


def write_preview(workspace: Path, args: dict[str, Any], read_capped: Reader) -> Preview:
    """A new file's content, or the diff against the file the Write replaces."""
    path = resolve(workspace, args["file_path"])
    name = shown(workspace, path)
    content = args["content"]
    if outside_workspace(workspace, path):
        return Preview("content", content, name, added=len(content.splitlines()),
                       note=f"{name} is outside the workspace: this write will fail")
    text = current_text(path, read_capped) if path.is_file() else None
    if text is None:
        return Preview("content", content, name, added=len(content.splitlines()))
    return diff_preview(text, args["content"], name)


def command_preview(args: dict[str, Any]) -> Preview:
    """The command exactly as bash will get it."""
    return Preview("command", args["command"])
