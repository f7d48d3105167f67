"""What a call will do, shown before the user is asked (failure mode 12: blind approval), and
what a Write or Edit did, shown after.

A layer (`preview_layer`): Write and Edit get a `preview` (tools/base.py: Tool.preview), the
hardened Bash has its own (`command_preview`). UI-free data: the unified diff an Edit will
make, the content (or the diff against the existing file) a Write will leave, the command a
Bash call will run. The console draws it (ui/preview.py). An Edit's diff is made with the
function the Edit replaces with (`edit_replace`: the line-ends layer's in the product), so
the bytes asked about are the bytes written. After the call, the diff of the file's bytes
before and after it joins its result (`ToolResult.change`, for the screen; the model is not
sent it), and an Edit's one line counts the lines it added and removed. A preview never changes anything:
it reads the file the call names with the file tools' reader (the safe one, tools/safe_read.py,
in the product), and only inside the workspace, where the call can act. Without the layer the
user is asked with the call's arguments, which hold the whole content or edit.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from tools.base import Preview, ToolResult, counted
from tools.files import Reader, Replace, replaced_plainly
from tools.workspace import outside_workspace, resolve, shown

if TYPE_CHECKING:
    from agent.loop import Agent


def preview_layer(agent: "Agent", read_capped: Reader, edit_replace: Replace = replaced_plainly) -> None:
    """The layer: Write and Edit show what they will change, then the diff they made.

    `edit_replace` is the one the Edit replaces with (tools/files.py: make_file_tools), so its
    preview is the change it makes.
    """
    tools, workspace = agent.executor.tools, agent.workspace
    write, edit = tools["Write"], tools["Edit"]
    tools["Write"] = replace(write, preview=lambda args: write_preview(workspace, args, read_capped),
                             handler=partial(with_change, write.handler, written, workspace, read_capped))
    tools["Edit"] = replace(edit, preview=partial(edit_preview, workspace, read_capped=read_capped,
                                                  edit_replace=edit_replace),
                            handler=partial(with_change, edit.handler, edited, workspace, read_capped))


def with_change(handler: Callable[[dict[str, Any]], ToolResult],
                show: Callable[[Preview, ToolResult, str | None, str], ToolResult],
                workspace: Path, read_capped: Reader, args: dict[str, Any]) -> ToolResult:
    """The handler's result, with the diff of the file's bytes before and after it, when it succeeded."""
    path = resolve(workspace, args["file_path"])
    inside = not outside_workspace(workspace, path)
    existed = inside and path.exists()
    before = current_text(path, read_capped) if existed else ""
    result = handler(args)
    after = current_text(path, read_capped) if inside else None
    if result.is_error or before is None or after is None:
        return result
    change = diff_preview(before, after, shown(workspace, path))
    return show(change, result, before if existed else None, after)


def written(change: Preview, result: ToolResult, before: str | None, after: str) -> ToolResult:
    """A Write's result with the diff it made, and what it did: created, appended, unchanged, overwrote."""
    said = what_was_written(change.path, before, after)
    return replace(result, content=f"{said} ({len(after)} characters).", summary=said,
                   change=change.text)


def what_was_written(name: str, before: str | None, content: str) -> str:
    """What a Write did to the file, from its whole text before (None: there was none)."""
    lines, added = counted(len(content.splitlines()), "line"), content[len(before or ""):]
    if before and content.startswith(before):
        return (f"Unchanged {name}: the same {lines} it held" if before == content else
                f"Appended {counted(len(added.splitlines()), 'line')} to {name}: {lines} now")
    return f"{'Created' if before is None else 'Overwrote'} {name}: {lines}"


def edited(change: Preview, result: ToolResult, before: str | None, after: str) -> ToolResult:
    """An Edit's result with the diff it made, and its line counts in its one line."""
    return replace(result, change=change.text,
                   summary=f"Edited {change.path}: +{change.added} −{change.removed}")


def lines_of(text: str) -> list[str]:
    """The lines of `text`, split at newlines only, so a carriage return inside a line is shown.

    str.splitlines would split at it and hide it.
    """
    return [line for line in re.split(r"(?<=\n)", text) if line]


def unified_diff(before: str | None, after: str | None, name: str) -> str:
    """A unified diff of two texts, with three lines of context.

    None stands for a file that is not there, named /dev/null as git names it for a file
    added or deleted.
    """
    lines = difflib.unified_diff(lines_of(before or ""), lines_of(after or ""),
                                 "/dev/null" if before is None else f"a/{name}",
                                 "/dev/null" if after is None else f"b/{name}", n=3)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def diff_preview(before: str, after: str, name: str) -> Preview:
    """The diff between two versions of a file, with its line counts."""
    diff = unified_diff(before, after, name)
    body = [line for line in diff.split("\n") if not line.startswith(("+++", "---"))]
    return Preview("diff", diff, name, sum(line.startswith("+") for line in body),
                   sum(line.startswith("-") for line in body))


def current_text(path: Path, read_capped: Reader, errors: str = "replace") -> str | None:
    """The file's text, its line ends kept, or None when it cannot be read whole (or decoded)."""
    try:
        text, cut = read_capped(path, errors=errors)
    except (OSError, UnicodeDecodeError):
        return None
    return None if cut else text


def edit_preview(workspace: Path, args: dict[str, Any], read_capped: Reader,
                 edit_replace: Replace = replaced_plainly) -> Preview:
    """The diff an Edit will make, replaced as the Edit replaces; the bare old→new diff if it will fail."""
    path = resolve(workspace, args["file_path"])
    name, old, new, every = shown(workspace, path), args["old_string"], args["new_string"], args.get("replace_all")
    outside = bool(outside_workspace(workspace, path))
    text = None if outside else current_text(path, read_capped, errors="strict")
    try:
        after, count = edit_replace(text, old, new, bool(every)) if text is not None else ("", 0)
        problem = ("is outside the workspace" if outside else "cannot be read as UTF-8 text" if text is None
                   else "does not contain old_string" if count == 0 else
                   f"holds old_string {count} times (replace_all is not set)" if count > 1 and not every else "")
    except ValueError as exc:
        problem = f"cannot take this edit ({exc})"
    if problem:
        return replace(diff_preview(old, new, name), note=f"{name} {problem}: this edit will fail")
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
