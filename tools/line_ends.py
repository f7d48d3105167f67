"""Edit keeps each file's line ends: the line-ends layer of the file tools (tools/files.py).

Read shows every line end as "\\n" (LF), so the old_string and new_string a model sends
speak that text, while a file may end its lines with CRLF, a lone CR (old Mac files), or
a mix of them. The core's Edit replaces text as the file holds it, so a multi-line
old_string is not found in a CRLF file. This layer's `replaced` matches old_string across
any line end, writes only the part of new_string that differs from old_string, and ends
each line it writes as the line it replaces did. A line added takes the end of the first
line replaced, else of the line before it, else of the file's first line; a UTF-8 byte
order mark stays at the start. The file's other bytes never move, and the preview layer
replaces with this same function (tools/preview.py), so the diff asked about is the bytes written. A
lone surrogate in the edit is refused: written as its escape, it would be six other characters.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

from tools.base import ToolResult, error
from tools.files import Reader, make_file_tools

if TYPE_CHECKING:
    from agent.loop import Agent

LINE_END = re.compile(r"\r\n|\r|\n")  # left to right, a CRLF is one end
BOM = "\ufeff"
CR = "\ud800"  # a lone CR while an edit is made: neither the file (UTF-8 text) nor the edit holds it
END = f"\r\n|{CR}|\n"


def line_ends_layer(agent: "Agent", read_capped: Reader) -> None:
    """The layer: Edit, reading with `read_capped`, matches across line ends and keeps them."""
    edit = next(tool for tool in make_file_tools(agent.workspace, read_capped, replaced) if tool.name == "Edit")
    agent.executor.tools["Edit"] = replace(edit, handler=partial(_refusing, edit.handler))


def _refusing(handler: Callable[[dict[str, Any]], ToolResult], args: dict[str, Any]) -> ToolResult:
    """The handler's result, or its refusal (`replaced`'s ValueError) as the call's error."""
    try:
        return handler(args)
    except ValueError as exc:
        return error(str(exc))


def replaced(text: str, old: str, new: str, every: bool) -> tuple[str, int]:
    """`text` with `old` replaced by `new` (the first, or `every` one), and how often `old` occurs.

    `text` is the file's own (its line ends and BOM kept); `old` and `new` are as Read shows it.
    ValueError for a lone surrogate in them, which no file can hold (the file is UTF-8 text).
    """
    if lone := re.search("[\ud800-\udfff]", old + new):
        raise ValueError(f"The edit holds a lone surrogate (U+{ord(lone[0]):04X}), which no file can hold.")
    bom = BOM if text.startswith(BOM) else ""
    body = re.sub("\r(?!\n)", CR, text[len(bom):])
    old, new = (LINE_END.sub("\n", part).removeprefix(bom) for part in (old, new))
    same = len(os.path.commonprefix([old, new]))
    tail = len(os.path.commonprefix([old[same:][::-1], new[same:][::-1]]))
    parts = old[:same], old[same:len(old) - tail], old[len(old) - tail:]
    pattern = re.compile("".join(f"({as_pattern(part)})" for part in parts))
    count = len(pattern.findall(body)) if old else 0
    if not count:
        return text, 0
    lines = new[same:len(new) - tail].split("\n")
    after = pattern.sub(partial(_written, lines, first_end(body)), body, count=0 if every else 1)
    # a lone CR the edit put right before an LF would read as one CRLF: a CR between keeps two ends
    return bom + after.replace(CR + "\n", CR + "\r\n").replace(CR, "\r"), count


def as_pattern(text: str) -> str:
    """A pattern for `text` as Read shows it: each "\\n" matches any line end."""
    return f"(?:{END})".join(map(re.escape, text.split("\n")))


def first_end(body: str) -> str:
    """The end of the file's first line; LF in a file of one line."""
    found = re.search(END, body)
    return found[0] if found else "\n"


def _written(lines: list[str], fallback: str, match: re.Match[str]) -> str:
    """The match with its middle (the part of old that differs) replaced by `lines`.

    The lines take the ends of the lines they replace, one for one; when there are more or
    fewer of them, all take the first of those ends, else the end of the line before them,
    else `fallback`.
    """
    ends = re.findall(END, match[2])
    if len(ends) != len(lines) - 1:
        ends = [(ends or re.findall(END, match[1])[-1:] or [fallback])[0]] * (len(lines) - 1)
    return match[1] + "".join(map(str.__add__, lines, ends + [""])) + match[3]
