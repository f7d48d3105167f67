"""What a call will do, shown to the user before they are asked (failure mode 12: blind approval).

UI-free data: the command a Bash call will run, the unified diff an Edit will
make, the content (or the diff against the existing file) a Write will leave.
The console draws it (ui/preview.py); the core only computes it. A preview
never changes anything: it reads the file the call names with the file tools'
reader (`read_capped`, the safe one once tools/safe_read.py's layer is on), and
only inside the workspace, where the call can act.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Literal

from tools.paths import outside_workspace, resolve, shown

Reader = Callable[..., tuple[str, bool]]  # (path, limit, errors="replace") → (text, whether cut)


@dataclass(frozen=True)
class Preview:
    """What will run or change: a command, a unified diff, or a new file's content."""

    kind: Literal["command", "diff", "content"]
    text: str
    path: str = ""
    added: int = 0
    removed: int = 0
    note: str = ""


def lines_of(text: str) -> list[str]:
    """The lines of `text`, split at newlines only, so a carriage return inside a line is shown.

    str.splitlines would split at it and hide it.
    """
    return [line for line in re.split(r"(?<=\n)", text) if line]


def unified_diff(before: str, after: str, name: str) -> str:
    """A unified diff of two texts, with three lines of context."""
    lines = difflib.unified_diff(lines_of(before), lines_of(after), f"a/{name}", f"b/{name}", n=3)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def diff_preview(before: str, after: str, name: str) -> Preview:
    """The diff between two versions of a file, with its line counts."""
    diff = unified_diff(before, after, name)
    body = [line for line in diff.split("\n") if not line.startswith(("+++", "---"))]
    return Preview("diff", diff, name, sum(line.startswith("+") for line in body),
                   sum(line.startswith("-") for line in body))


def current_text(path: Path, read_capped: Reader) -> str | None:
    """The file's text, read with `read_capped`; None when it cannot be read whole."""
    try:
        text, cut = read_capped(path)
    except OSError:
        return None
    return None if cut else text


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
