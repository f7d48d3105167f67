"""The bottom toolbar on a real screen (tmux) 80 and 120 columns wide: it fits, keeping the mode,
the todos, the context and the model whole, and gives up its least important parts first."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.terminal import Screen

MODEL = "org/planner-large-2025"
TODOS = [{"content": "Read the loader", "status": "completed", "activeForm": "Reading the loader"},
         {"content": "Trace the merge", "status": "in_progress",
          "activeForm": "Tracing where the settings files are merged"},
         {"content": "Write the plan", "status": "pending"}]


def toolbar_line(screen: Screen, wanted: str) -> str:
    """The toolbar as the screen shows it (the last line with the PLAN badge), once it holds `wanted`."""
    def toolbar(shown: str) -> str | None:
        lines = [line for line in shown.splitlines() if " PLAN " in line]
        return lines[-1].rstrip() if lines and wanted in lines[-1] else None

    return screen.wait_until(toolbar, f"a toolbar with {wanted!r}", timeout=30, capture=screen.visible)


@pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is not installed")
@pytest.mark.parametrize("columns", [80, 120])
def test_the_toolbar_fits_the_terminal_and_keeps_what_matters(columns, workspace, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"title": MODEL, "turns": [
        {"tool_calls": [{"name": "TodoWrite", "arguments": {"todos": TODOS}}]}, {"text": "Looked around."}]}))
    screen = Screen(tmp_path, workspace, "--script", str(script), "--mode", "plan", columns=columns)
    try:
        screen.wait_for("›")
        screen.keys("look around", "Enter")
        screen.wait_for("Looked around.")
        line = toolbar_line(screen, "todos 1/3")
    finally:
        screen.close()
    assert line.endswith(MODEL), f"the end of the toolbar was cut: {line!r}"
    assert "todos 1/3" in line and "context 0%" in line, line
    assert ("/help" in line) == ("read-only research" in line) == (columns == 120), \
        "at 80 columns the keys go, and the mode's words after them"
