"""Glob and Grep: read-only search, run by ripgrep so they respect .gitignore and
stay fast on large trees (see bench/search.py for the figures).

What the model sends never lands in rg's option position: patterns and globs
are joined to their option (`--glob=…`, `--regexp=…`) and a file name comes
after `--`, so `--pre=PROG` as a pattern or a file named `-x` stays text, and
`--no-config` keeps a ripgrep config file from adding options.

In every mode ripgrep runs bounded in memory, time and output (tools/ripgrep.py),
and where bubblewrap runs, in a read-only view holding only the searched tree
(tools/ignore_files.py says why: a cloned repository's ignore files, and the
`.git` files ripgrep follows to git's info/exclude, can lead to a FIFO,
/proc/kmsg or /dev/zero). Being read-only, the view also leaves access
times alone, as plan mode promises. Without bubblewrap those times may change
(the doctor's table says so), and a search whose ignore files (or `.git` files) lead to anything
but a regular file is refused; so is one, even in the view, of a tree outside
the workspace (a parent folder holds the clone's links and what they point at). The kernel's folders (/, /proc, /sys, /dev) are
never searched: their files act when read.

A search shows nothing a Read would be denied: `search_layer` asks the agent's deny
hooks (the user's `Read(.env)` rule among them) about each file found, and leaves out
those they refuse, saying how many. Which file a line came from is read exactly: rg
ends each name with a NUL (`--null`, Glob's too), since a name may hold a newline
and would otherwise end in a line that names another file; such a name is shown
quoted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from hooks.registry import ToolCallEvent
from tools.base import Tool, ToolResult, counted, error, object_schema
from tools.bash.sandbox.bwrap import search_view_argv
from tools.bash.sandbox.status import Layers, detect_layers
from tools.ignore_files import ignore_tree, read_as_ignore_file, stray_ignore_file
from tools.leases import lease_on, leased_in
from tools.ripgrep import LINES, NAMED_LINES, NAMES, TIMEOUT_SECONDS, Found, ripgrep, run_ripgrep
from tools.quiet_links import resolve_quietly
from tools.workspace import in_kernel_folder, shown

if TYPE_CHECKING:
    from agent.loop import Agent

MAX_RESULTS = 200


def _capped(found: Found, what: str, order=list) -> str:
    """The first MAX_RESULTS lines, and how many more there are (or at least are)."""
    if not found.lines:
        return f"No {what} found."
    lines = order(found.lines)
    text = "\n".join(lines[:MAX_RESULTS])
    more = len(lines) - MAX_RESULTS
    if not found.complete:
        text += (f"\n… the search stopped after {len(lines)} {what}, there are more; "
                 "narrow the pattern or the path.")
    elif more > 0:
        text += f"\n… {more} more {what}; narrow the pattern or the path."
    return text


def _summary(found: Found, noun: str) -> str:
    return ("" if found.complete else "more than ") + counted(len(found.lines), noun)


IGNORE_FILES_EVERYWHERE = ["--hidden", "--glob=!.git", "--no-require-git"]  # .gitignore outside git too


def glob_arguments(pattern: str) -> list[str]:
    """rg's arguments for Glob (bench/search.py runs rg directly with the same)."""
    return ["--files", "--null", *IGNORE_FILES_EVERYWHERE, *only_names(pattern)]


def only_names(glob: str) -> list[str]:
    """rg's arguments that keep the files `glob` matches and still leave out what ignore files hide.

    rg's `--glob` overrides every ignore rule (`--glob=*.py` lists the .py files
    .gitignore hides), a file type does not: a pattern that names no folder
    (once a leading `**/` is dropped) is matched as a type. One that names a
    folder, or excludes (`!`), stays a glob."""
    name = re.sub(r"^(\*\*/)+", "", glob)
    if "/" in name or glob.startswith("!"):
        return [f"--glob={glob}"]
    return [f"--type-add=pattern:{name}", "--type=pattern"]


def grep_arguments(pattern: str, glob: str | None = None, file: str | None = None,
                   leave_out: tuple[Path, ...] = ()) -> list[str]:
    """rg's arguments for Grep: the pattern, a glob filter, a single file, files to leave out.

    Each but the pattern is optional; the files left out are relative to the
    searched folder, and their globs come last because later globs win."""
    filters = only_names(glob) if glob else []
    filters += [f"--glob=!/{_literal(path)}" for path in leave_out]
    target = ["--", file] if file else ["--null"]
    return ["--line-number", "--no-heading", *IGNORE_FILES_EVERYWHERE, *filters,
            f"--regexp={pattern}", *target]


def _literal(path: Path) -> str:
    """`path` as a glob that matches only itself."""
    return re.sub(r"([*?\[\]{}\\!])", r"\\\1", path.as_posix())


def _named_line(line: str) -> tuple[str, str]:
    """A `--null` record (`path NUL line:text`) as its path and the line as shown (`path:line:text`).

    A record without its NUL has no name to check (''): it is left out."""
    path, null, rest = line.partition("\0")
    return (path, f"{_name(path)}:{rest}") if null else ("", line)


def _name(path: str) -> str:
    """A file name as shown: quoted as a JSON string when it holds a newline or another control
    character, so a name cannot pass for lines of output."""
    return path if path.isprintable() else json.dumps(path, ensure_ascii=False)


def _without_hidden(found: Found, folder: Path, hidden: Callable[[Path], bool],
                    split: Callable[[str], tuple[str, str]]) -> tuple[Found, str]:
    """The lines of files `hidden` lets through, as shown, and a note of how many files it hid."""
    verdicts: dict[str, bool] = {}
    kept = []
    for line in found.lines:
        path, shown_line = split(line)
        if path not in verdicts:
            verdicts[path] = not path or hidden(folder / path)
        if not verdicts[path]:
            kept.append(shown_line)
    left_out = sum(verdict for path, verdict in verdicts.items() if path)
    note = f"\n(left out: {counted(left_out, 'file')} your permission rules keep from being read)" \
        if left_out else ""
    if found.dropped:
        note += f"\n(left out: {counted(found.dropped, 'result')} whose file name is too long to check)"
    return Found(kept, found.complete, found.problem), note


def _leased_note(leased: list[Path], workspace: Path) -> str:
    if not leased:
        return ""
    return (f"\n(left out: {', '.join(shown(workspace, path) for path in leased)}; another process "
            "holds a lease on each, and reading would break it and signal that process)")


def whole_system(folder: Path) -> str:
    """Why `folder` is not searched, '' when it may be.

    / and the kernel's folders are refused before anything under them is looked at: a look
    for leases would walk the whole disk.
    """
    if folder == Path("/") or in_kernel_folder(folder):
        return (f"{folder} is the whole file system or the kernel's own: its files act when read "
                "(/proc/kmsg blocks, /dev/zero never ends); search a folder below /")
    return ""


def make_search_tools(workspace: Path, layers: Callable[[], Layers] = detect_layers,
                      hidden: Callable[[Path], bool] = lambda path: False) -> list[Tool]:
    """Glob and Grep, both run by ripgrep in the workspace, in its bubblewrap view where there is one.

    A file for which `hidden` is true is left out of what they show."""
    def where(args: dict[str, Any]) -> Path:
        return resolve_quietly(workspace, args.get("path") or ".")

    def search(arguments: list[str], cwd: Path, leased: list[Path], ends: bytes) -> Found:
        ignore_file = next((path for path in leased if read_as_ignore_file(path)), None)
        if ignore_file:
            return Found(problem=f"{ignore_file}: another process holds a lease on it, and ripgrep "
                         "would open it as an ignore file (breaking the lease). Search a folder without it.")
        bwrap, tree = layers().bwrap, ignore_tree(cwd, workspace)
        stray = "" if bwrap and tree == workspace.resolve() else stray_ignore_file(cwd, TIMEOUT_SECONDS)
        if bwrap and not stray:
            return run_ripgrep(arguments, cwd, search_view_argv(bwrap, tree, ripgrep(), cwd), ends=ends)
        if stray:
            return Found(problem=f"{stray}; ripgrep would open it as an ignore file. Search a "
                         "folder without it.")
        return run_ripgrep(arguments, cwd, ends=ends)

    def glob(args: dict[str, Any]) -> ToolResult:
        root = where(args)
        if not root.is_dir():
            return error(f"{shown(workspace, root)} is not a directory.")
        if refused := whole_system(root):
            return error(f"Glob failed: {refused}")
        found = search(glob_arguments(args["pattern"]), root, leased_in(root), ends=NAMES)
        if found.problem:
            return error(f"Glob failed: {found.problem}")
        found, note = _without_hidden(found, root, hidden, lambda line: (line, _name(line)))
        return ToolResult(_capped(found, "files", sorted) + note, summary=_summary(found, "file"))

    def grep(args: dict[str, Any]) -> ToolResult:
        root = where(args)
        if not root.exists():
            return error(f"{shown(workspace, root)} does not exist.")
        if not (root.is_dir() or root.is_file()):
            return error(f"{shown(workspace, root)} is not a folder or a regular file; Grep "
                         "searches only those (reading a FIFO or a device acts on it).")
        file = None if root.is_dir() else root.name
        folder = root if root.is_dir() else root.parent
        if refused := whole_system(folder):
            return error(f"Grep failed: {refused}")
        leased = leased_in(folder) if file is None else []
        held = "" if file is None else lease_on(root.stat())
        if held:
            return error(f"Grep refused {shown(workspace, root)}: {held}.")
        found = search(grep_arguments(args["pattern"], args.get("glob"), file,
                                      tuple(path.relative_to(folder) for path in leased)), folder, leased,
                       ends=LINES if file else NAMED_LINES)
        if found.problem:
            return error(f"Grep failed: {found.problem}")
        found, note = _without_hidden(found, folder, hidden,
                                      lambda line: (file, line) if file else _named_line(line))
        return ToolResult(_capped(found, "matching lines") + _leased_note(leased, workspace) + note,
                          summary=_summary(found, "match"))
    optional_path = {"path": {"type": "string", "description": "Folder to search (default: workspace)."}}
    return [
        Tool("Glob", "List files matching a glob pattern such as '**/*.py', respecting .gitignore.",
             object_schema({"pattern": {"type": "string"}}, optional_path), glob, read_only=True),
        Tool("Grep", "Search file contents for a regular expression (ripgrep syntax); "
             "prints file:line:text. Narrow with glob, e.g. '*.py'.",
             object_schema({"pattern": {"type": "string"}},
                           {**optional_path, "glob": {"type": "string"}}), grep, read_only=True),
    ]


def search_layer(agent: "Agent") -> None:
    """The layer: Glob and Grep for the agent, searching in a read-only view where bubblewrap runs.

    They leave out the files the agent's deny hooks would refuse a Read of."""
    def hidden(path: Path) -> bool:
        read = agent.executor.tools.get("Read")
        event = ToolCallEvent(read, {"file_path": str(path)}, agent.state.view()) if read else None
        return event is not None and agent.executor.hooks.first(event, "deny") is not None

    tools = make_search_tools(agent.workspace, hidden=hidden)
    agent.executor.tools.update({tool.name: tool for tool in tools})
