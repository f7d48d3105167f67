"""Bash as the core has it: a command run in the workspace, with no judge.

Without a judge, every call counts as one that could change the system, so the
plan-mode guard denies it while planning (default deny) and build and edit mode
ask before it. The core alone is safe with it: a plan cannot be broken through
a shell it does not let run. The hardening layer (tools/bash/layer.py:
`bash_layer`) replaces this tool with one that judges each command (the
read-only classifier) and runs plan-mode commands in the OS sandbox.

Each call's process group is killed when the call ends. What a command the
user allowed outside plan mode moved out of that group (`setsid … &`) keeps
running, into plan mode too: the core alone cannot find it; the Bash layer's
companion (tools/bash/stop_left_running.py) stops it when plan mode begins.
"""

from __future__ import annotations

import os
import signal
import subprocess
from contextlib import suppress
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolResult, object_schema

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600
PLAN_MODE_HINT = ("This Bash has no judge of what a command does, so no command runs while "
                  "planning: read files with Read instead.")
PARAMETERS = object_schema({"command": {"type": "string"}},
                           {"timeout": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT,
                                        "description": "Seconds (default 120)."}})


def timeout_of(args: dict[str, Any]) -> int:
    """The call's timeout in seconds: its own, at most MAX_TIMEOUT, else DEFAULT_TIMEOUT."""
    return min(int(args.get("timeout") or DEFAULT_TIMEOUT), MAX_TIMEOUT)


def make_plain_bash(workspace: Path) -> Tool:
    """Bash with no judge: the command runs in its own process group, killed when the call ends."""
    def run(args: dict[str, Any]) -> ToolResult:
        timeout = timeout_of(args)
        process = subprocess.Popen(["bash", "-c", args["command"]], cwd=workspace,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop_group(process.pid)
            output, _ = process.communicate()
            return ToolResult(f"The command timed out after {timeout} s and was stopped.\n"
                              f"{output.decode(errors='replace')}", is_error=True,
                              summary=f"timed out after {timeout} s")
        _stop_group(process.pid)
        summary = f"exit code {process.returncode}"
        return ToolResult(f"{output.decode(errors='replace')}\n[{summary}]",
                          is_error=process.returncode != 0, summary=summary)

    return Tool("Bash", "Run a bash command in the workspace and return its output and exit code.",
                PARAMETERS, run, plan_mode_hint=PLAN_MODE_HINT)


def _stop_group(group: int) -> None:
    """Kill what the call left in its process group (what left the group is the layer's to find)."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
