"""Glob and Grep: read-only search, run by ripgrep so they respect .gitignore and
stay fast on large trees (see bench/search.py for the figures).

What the model sends never lands in rg's option position: patterns and globs
are joined to their option (`--glob=…`, `--regexp=…`) and a file name comes
after `--`, so `--pre=PROG` as a pattern or a file named `-x` stays text, and
`--no-config` keeps a ripgrep config file from adding options.

While planning, ripgrep runs in a read-only view of the filesystem (bubblewrap,
where it is available): even relatime updates a file's access time when it is
read, and plan mode promises that no file's times change. Without bubblewrap
they may change; the doctor's table says so.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from state import AppState
from tools.base import Tool, ToolResult, counted, error, object_schema
from tools.bash.sandbox.bwrap import read_only_view_argv
from tools.bash.sandbox.status import Layers, detect_layers
from tools.paths import resolve, shown

MAX_RESULTS = 200
TIMEOUT_SECONDS = 60
NOTHING_SEARCHED = "No files were searched"


def ripgrep() -> str:
    """The rg that came with this environment's ripgrep wheel, else the one on PATH."""
    beside_python = Path(sys.executable).with_name("rg")
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which("rg")
    if not found:
        raise FileNotFoundError("ripgrep (rg) is not installed; install the requirements first.")
    return found


def run_ripgrep(arguments: list[str], cwd: Path, prefix: list[str] | None = None) -> tuple[list[str], str]:
    """Rg's output lines and its error text ('' when it ran cleanly).

    A `prefix` runs it inside a sandbox."""
    try:
        done = subprocess.run([*(prefix or []), ripgrep(), "--no-config", "--color", "never",
                               *arguments], cwd=cwd,
                              capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [], str(exc)
    if done.returncode > 1 and NOTHING_SEARCHED not in done.stderr:
        return [], done.stderr.strip() or f"rg exited with {done.returncode}"
    return done.stdout.splitlines(), ""


def _capped(lines: list[str], what: str) -> str:
    if not lines:
        return f"No {what} found."
    text = "\n".join(lines[:MAX_RESULTS])
    if len(lines) > MAX_RESULTS:
        text += f"\n… {len(lines) - MAX_RESULTS} more {what}; narrow the pattern or the path."
    return text


def glob_arguments(pattern: str) -> list[str]:
    """rg's arguments for Glob (bench/search.py runs rg directly with the same)."""
    return ["--files", "--hidden", "--glob=!.git", f"--glob={pattern}"]


def grep_arguments(pattern: str, glob: str | None = None, file: str | None = None) -> list[str]:
    """rg's arguments for Grep: the pattern, an optional glob filter, an optional single file."""
    filters = [f"--glob={glob}"] if glob else []
    target = ["--", file] if file else []
    return ["--line-number", "--no-heading", "--hidden", "--glob=!.git", *filters,
            f"--regexp={pattern}", *target]


def make_search_tools(workspace: Path, state: AppState | None = None,
                      layers: Callable[[], Layers] = detect_layers) -> list[Tool]:
    """Glob and Grep, both run by ripgrep in the workspace; read-only view while `state` plans."""
    def where(args: dict[str, Any]) -> Path:
        return resolve(workspace, args.get("path") or ".")

    def search(arguments: list[str], cwd: Path) -> tuple[list[str], str]:
        bwrap = layers().bwrap if state and state.plan_mode else None
        return run_ripgrep(arguments, cwd, read_only_view_argv(bwrap, cwd) if bwrap else None)

    def glob(args: dict[str, Any]) -> ToolResult:
        root = where(args)
        if not root.is_dir():
            return error(f"{shown(workspace, root)} is not a directory.")
        lines, problem = search(glob_arguments(args["pattern"]), root)
        if problem:
            return error(f"Glob failed: {problem}")
        return ToolResult(_capped(sorted(lines), "files"), summary=counted(len(lines), "file"))

    def grep(args: dict[str, Any]) -> ToolResult:
        root = where(args)
        if not root.exists():
            return error(f"{shown(workspace, root)} does not exist.")
        if not (root.is_dir() or root.is_file()):
            return error(f"{shown(workspace, root)} is not a folder or a regular file; Grep "
                         "searches only those (reading a FIFO or a device acts on it).")
        file = None if root.is_dir() else root.name
        lines, problem = search(grep_arguments(args["pattern"], args.get("glob"), file),
                                     root if root.is_dir() else root.parent)
        if problem:
            return error(f"Grep failed: {problem}")
        return ToolResult(_capped(lines, "matching lines"), summary=counted(len(lines), "match"))

    optional_path = {"path": {"type": "string", "description": "Folder to search (default: workspace)."}}
    return [
        Tool("Glob", "List files matching a glob pattern such as '**/*.py', respecting .gitignore.",
             object_schema({"pattern": {"type": "string"}}, optional_path), glob, read_only=True),
        Tool("Grep", "Search file contents for a regular expression (ripgrep syntax); "
             "prints file:line:text. Narrow with glob, e.g. '*.py'.",
             object_schema({"pattern": {"type": "string"}},
                           {**optional_path, "glob": {"type": "string"}}), grep, read_only=True),
    ]
