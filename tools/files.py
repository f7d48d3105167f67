"""Read, Write and Edit: the file tools. Read is read-only; Write and Edit change
files, so the plan-mode guard denies them and build mode asks before them.

Write and Edit refuse paths outside the workspace and write atomically (a temporary file
renamed over the target), so an interrupted write leaves the old file whole. Two seams: how a
file the model named is read, `read_capped` (the core's `read_plain`, or tools/safe_read.py's,
which never blocks and acts on no file it reads), and how Edit replaces, `replace` (the line-ends
layer's, tools/line_ends.py, keeps them). What Write and Edit will change, and the diff they made
(`ToolResult.change`), are the preview layer's (tools/preview.py), which replaces as Edit does.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, Callable

from tools.base import Tool, ToolResult, counted, error, object_schema
from tools.workspace import in_kernel_folder, outside_workspace, resolve, shown, write_atomically

MAX_READ_BYTES = 10_000_000
READ_LIMIT = 2000
LINE_WIDTH = 2000
READ_MAX_CHARS = 90_000  # under the executor's MAX_RESULT_CHARS, so Read's own note says where to go on
Reader = Callable[..., tuple[str, bool]]  # (path, limit, errors="replace") → (text, whether cut)
Replace = Callable[[str, str, str, bool], tuple[str, int]]  # (text, old, new, every) → (text, count)


def _numbered(lines: list[str], start: int) -> list[str]:
    """The lines with their numbers, as many as fit in READ_MAX_CHARS (always the first)."""
    out, size = [], 0
    for number, line in enumerate(lines, start):
        entry = f"{number:6}\t{line[:LINE_WIDTH]}"
        size += len(entry) + 1
        if out and size > READ_MAX_CHARS:
            break
        out.append(entry)
    return out


def read_plain(path: Path, limit: int = MAX_READ_BYTES, errors: str = "replace") -> tuple[str, bool]:
    """The text of a regular file, at most `limit` bytes of it, and whether it was cut.

    Decoded as UTF-8 (`errors` as for bytes.decode), with its line ends as they are.
    Refuses the kernel's folders (/proc/kmsg gives each message to one reader) and all but regular
    files, keeps the access time of the user's own files, and breaks another process's lease on it.
    """
    if in_kernel_folder(path.resolve()):
        raise OSError(errno.EACCES, "it is the kernel's, and such files can act when read")
    if path.exists() and not path.is_file():
        raise OSError(errno.EINVAL, "it is not a regular file")
    try:  # O_NOATIME: only the file's owner (and root) may ask for it
        handle = os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NOATIME", 0)), "rb")
    except PermissionError:
        handle = open(path, "rb")
    with handle:
        data = handle.read(limit + 1)
    return data[:limit].decode("utf-8", errors=errors), len(data) > limit


def replaced_plainly(text: str, old: str, new: str, every: bool) -> tuple[str, int]:
    """`text` with `old` replaced by `new` (the first, or `every` one), and how often `old` occurs."""
    return text.replace(old, new, -1 if every else 1), text.count(old) if old else 0


def make_file_tools(workspace: Path, read_capped: Reader = read_plain,
                    replace: Replace = replaced_plainly) -> list[Tool]:
    """Read, Write and Edit in the workspace, reading with `read_capped` and replacing with `replace`."""
    def read(args: dict[str, Any]) -> ToolResult:
        path = resolve(workspace, args["file_path"])
        if path.is_dir():
            return error(f"{shown(workspace, path)} is a directory; use Glob or Bash ls to list it.")
        try:
            text, cut = read_capped(path)
        except OSError as exc:
            return error(f"Cannot read {shown(workspace, path)}: {exc.strerror}.")
        lines = text.splitlines()
        start = max(int(args.get("offset", 1)), 1)
        wanted = lines[start - 1:start - 1 + int(args.get("limit", READ_LIMIT))]
        chosen = _numbered(wanted, start)
        body = "\n".join(chosen)
        remaining = len(lines) - (start - 1 + len(chosen))
        more = f"\n… {remaining} more lines; read on with offset={start + len(chosen)}." if remaining > 0 else ""
        if len(chosen) < len(wanted):
            more += f" (A Read returns at most {READ_MAX_CHARS} characters.)"
        if cut and remaining <= 0:
            more += f"\n… the file is longer than {MAX_READ_BYTES} bytes; Read stops there (use Bash head/tail)."
        summary = (f"Read {len(chosen)} of {counted(len(lines), 'line')}" if remaining > 0 or start > 1
                   else f"Read {counted(len(lines), 'line')}")
        return ToolResult((body or "(empty file)") + more, summary=summary)

    def write(args: dict[str, Any]) -> ToolResult:
        path = resolve(workspace, args["file_path"])
        if refusal := outside_workspace(workspace, path):
            return error(refusal)
        existed = path.exists()
        try:
            write_atomically(path, args["content"])
        except OSError as exc:
            return error(f"Cannot write {shown(workspace, path)}: {exc.strerror}.")
        verb = "Overwrote" if existed else "Created"
        return ToolResult(f"{verb} {shown(workspace, path)} ({len(args['content'])} characters).",
                          summary=f"{verb} {shown(workspace, path)}: "
                                  f"{counted(len(args['content'].splitlines()), 'line')}")

    def edit(args: dict[str, Any]) -> ToolResult:
        path = resolve(workspace, args["file_path"])
        if refusal := outside_workspace(workspace, path):
            return error(refusal)
        try:
            text, cut = read_capped(path, errors="strict")
        except OSError as exc:
            return error(f"Cannot read {shown(workspace, path)}: {exc.strerror}.")
        except UnicodeDecodeError:
            return error(f"{shown(workspace, path)} is not UTF-8 text; Edit changes only text files.")
        if cut:
            return error(f"{shown(workspace, path)} is longer than {MAX_READ_BYTES} bytes; "
                         "Edit changes only smaller files.")
        after, count = replace(text, args["old_string"], args["new_string"], bool(args.get("replace_all")))
        if count == 0:
            return error("old_string was not found in the file; Read it and copy the text exactly.")
        if count > 1 and not args.get("replace_all"):
            return error(f"old_string occurs {count} times; add context to make it unique, or set replace_all.")
        write_atomically(path, after)
        return ToolResult(f"Edited {shown(workspace, path)}: {count if args.get('replace_all') else 1} "
                          "replacement(s).", summary=f"Edited {shown(workspace, path)}")

    path_arg = {"type": "string", "description": "Path, absolute or relative to the workspace."}
    return [
        Tool("Read", "Read a text file with line numbers. Use offset and limit for long files; "
             f"one Read returns at most {READ_MAX_CHARS:,} characters.",
             object_schema({"file_path": path_arg}, {"offset": {"type": "integer", "minimum": 1},
                                                     "limit": {"type": "integer", "minimum": 1}}),
             read, read_only=True),
        Tool("Write", "Create or overwrite a file inside the workspace with the given content.",
             object_schema({"file_path": path_arg, "content": {"type": "string"}}), write),
        Tool("Edit", "Replace old_string with new_string in a file inside the workspace. "
             "old_string must match exactly and be unique unless replace_all is true.",
             object_schema({"file_path": path_arg, "old_string": {"type": "string"},
                            "new_string": {"type": "string"}},
                           {"replace_all": {"type": "boolean"}}), edit),
    ]
