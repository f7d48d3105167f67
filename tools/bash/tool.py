"""Bash: run a shell command in the workspace.

Its `judge` is the read-only classifier (readonly_bash), which the hooks read:
the plan-mode guard lets only read-only commands through, and build mode asks
before any other. While planning, the command also runs inside the Landlock
sandbox (sandbox/landlock.py) with a private temporary folder that is removed
afterwards, and with git's config-driven programs (fsmonitor, hooks, pager)
switched off.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable

from state import AppState
from tools.base import Tool, ToolResult, error, object_schema
from tools.bash.sandbox import landlock
from tools.judgement import Judgement

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600
MAX_OUTPUT = 30_000
FLOOD_LIMIT = 10_000_000
NO_PROMPTS = {"GIT_PAGER": "cat", "PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
GIT_RUNS_NOTHING = {"GIT_OPTIONAL_LOCKS": "0", "GIT_CONFIG_COUNT": "2",
                    "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "false",
                    "GIT_CONFIG_KEY_1": "core.hooksPath", "GIT_CONFIG_VALUE_1": "/dev/null"}


def make_bash_tool(workspace: Path, state: AppState, classify: Callable[[str], Judgement],
                   sandbox_abi: Callable[[], int] = landlock.abi_version) -> Tool:
    def run(args: dict[str, Any]) -> ToolResult:
        command = args["command"]
        timeout = min(int(args.get("timeout") or DEFAULT_TIMEOUT), MAX_TIMEOUT)
        if not state.plan_mode:
            return _run(command, workspace, {**os.environ, **NO_PROMPTS}, timeout, None)
        env = {**os.environ, **NO_PROMPTS, **GIT_RUNS_NOTHING}
        if sandbox_abi() == 0:
            return _run(command, workspace, env, timeout, None)
        scratch = tempfile.mkdtemp(prefix="stepagent-bash-")
        ruleset = landlock.read_only_ruleset(scratch)
        try:
            return _run(command, workspace, {**env, "TMPDIR": scratch}, timeout, ruleset)
        finally:
            ruleset.close()
            shutil.rmtree(scratch, ignore_errors=True)

    return Tool("Bash", "Run a bash command in the workspace and return its output and exit code. "
                "While planning only read-only commands run (ls, cat, grep, find without actions, "
                "git status/log/diff/show…).",
                object_schema({"command": {"type": "string"}},
                              {"timeout": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT,
                                           "description": "Seconds (default 120)."}}),
                run, judge=lambda args: classify(args["command"]))


def _run(command: str, workspace: Path, env: dict[str, str], timeout: int,
         ruleset: landlock.ReadOnlyRuleset | None) -> ToolResult:
    process = subprocess.Popen(["bash", "-c", command], cwd=workspace, env=env,
                               encoding="utf-8", errors="replace",
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True,
                               preexec_fn=ruleset.restrict if ruleset else None)
    output = _CappedOutput(process)
    output.start()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        return error(f"The command timed out after {timeout} s and was stopped.\n{output.text()}")
    except BaseException:
        _kill(process)
        raise
    finally:
        output.join()
    status = "stopped: it printed more than 10 MB" if output.flooded else f"exit code {process.returncode}"
    return ToolResult(f"{output.text()}\n[{status}]", is_error=process.returncode != 0)


class _CappedOutput(threading.Thread):
    """Reads a command's output beside it: keeps the first MAX_OUTPUT characters and
    stops the command if it floods (`cat /dev/urandom` is read-only, and endless)."""

    def __init__(self, process: subprocess.Popen):
        super().__init__(daemon=True)
        self.process = process
        self.kept: list[str] = []
        self.total = 0
        self.flooded = False

    def run(self) -> None:
        for chunk in iter(lambda: self.process.stdout.read(8192), ""):
            if self.total < MAX_OUTPUT:
                self.kept.append(chunk[:MAX_OUTPUT - self.total])
            self.total += len(chunk)
            if self.total > FLOOD_LIMIT:
                self.flooded = True
                _kill(self.process)
                return

    def text(self) -> str:
        kept = "".join(self.kept).rstrip("\n") or "(no output)"
        if self.total > MAX_OUTPUT:
            kept += f"\n… output cut at {MAX_OUTPUT} of {self.total} characters."
        return kept


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
