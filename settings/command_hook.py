"""Running one command hook: JSON on its standard input, its exit code and output back.

A hook is user code and runs outside the plan-mode sandbox, as the user, in the workspace,
through bash, with STEPAGENT_PROJECT_DIR (and CLAUDE_PROJECT_DIR, for hooks written for
Claude Code) set to the workspace. It cannot hang the agent: it runs in a process group
of its own, and at its timeout the whole group is killed; whatever it leaves running in
that group when it exits is stopped too. Its output is read up to MAX_OUTPUT bytes per
stream (the rest is drained and dropped), so a hook cannot fill the memory either.
What it prints is returned as text; it reaches the screen only through the console's
sanitiser, and the model only through the caps in settings/hook_answer.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

MAX_OUTPUT = 64 * 1024
DRAIN_AFTER_EXIT = 2.0  # seconds to wait for pipes a process outside the group still holds


@dataclass(frozen=True)
class HookRun:
    """What one run of a hook gave: its exit code (None if it never exited), its output."""

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: str = ""


def run_command(command: str, payload: dict[str, Any], workspace: Path, timeout: float) -> HookRun:
    """Run `command` with `payload` as JSON on its standard input, at most `timeout` seconds."""
    env = {**os.environ, "STEPAGENT_PROJECT_DIR": str(workspace), "CLAUDE_PROJECT_DIR": str(workspace)}
    try:
        process = subprocess.Popen(["bash", "-c", command], cwd=workspace, env=env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return HookRun(None, error=f"could not start ({exc.strerror or exc})")
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [_thread(_read_capped, process.stdout, out), _thread(_read_capped, process.stderr, err)]
    _thread(_write, process.stdin, json.dumps(payload).encode())
    timed_out = False
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(process.pid)
        process.wait()
    for reader in readers:
        reader.join(DRAIN_AFTER_EXIT)
    return HookRun(None if timed_out else process.returncode, _text(out), _text(err), timed_out)


def _thread(target: Any, *args: Any) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, daemon=True)
    thread.start()
    return thread


def _write(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except OSError:  # a hook that does not read its input is free not to
        pass


def _read_capped(stream: IO[bytes], into: list[bytes]) -> None:
    kept = 0
    while piece := stream.read(8192):
        if kept < MAX_OUTPUT:
            into.append(piece[:MAX_OUTPUT - kept])
            kept += len(into[-1])


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:  # the group is already gone
        pass


def _text(pieces: list[bytes]) -> str:
    return b"".join(pieces).decode("utf-8", errors="replace")
