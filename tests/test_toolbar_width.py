"""The bottom toolbar on a real screen (tmux) 80 and 120 columns wide: it fits, keeping the mode,
the todos, the context and the model whole, and gives up its least important parts first."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from tests.test_approval_screen import ROOT, tmux, wait_for

MODEL = "org/planner-large-2025"
TODOS = [{"content": "Read the loader", "status": "completed", "activeForm": "Reading the loader"},
         {"content": "Trace the merge", "status": "in_progress",
          "activeForm": "Tracing where the settings files are merged"},
         {"content": "Write the plan", "status": "pending"}]


def toolbar_line(socket: str, wanted: str, timeout: float = 30) -> str:
    """The toolbar as the screen shows it (the last line with the PLAN badge), once it holds `wanted`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [line for line in tmux(socket, "capture-pane", "-p", "-t", "main").splitlines()
                 if " PLAN " in line]
        if lines and wanted in lines[-1]:
            return lines[-1].rstrip()
        time.sleep(0.05)
    raise AssertionError(f"no toolbar with {wanted!r}; the last was {lines[-1:]}")


@pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is not installed")
@pytest.mark.parametrize("columns", [80, 120])
def test_the_toolbar_fits_the_terminal_and_keeps_what_matters(columns, workspace, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"title": MODEL, "turns": [
        {"tool_calls": [{"name": "TodoWrite", "arguments": {"todos": TODOS}}]}, {"text": "Looked around."}]}))
    socket = f"stepagent-toolbar-{os.getpid()}-{tmp_path.name}"
    command = (f"cd {workspace} && STEPAGENT_HOME={tmp_path / 'home'} TERM=xterm-256color "
               f"{sys.executable} {ROOT / 'index.py'} --script {script} --mode plan")
    tmux(socket, "-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", str(columns), "-y", "30",
         command)
    try:
        wait_for(socket, "›")
        tmux(socket, "send-keys", "-t", "main", "look around", "Enter")
        wait_for(socket, "Looked around.")
        line = toolbar_line(socket, "todos 1/3")
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
    assert line.endswith(MODEL), f"the end of the toolbar was cut: {line!r}"
    assert "todos 1/3" in line and "context 0%" in line, line
    assert ("/help" in line) == ("read-only research" in line) == (columns == 120), \
        "at 80 columns the keys go, and the mode's words after them"
