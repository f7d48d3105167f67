"""AskUserQuestion in the real REPL (a pseudo-terminal) and in -p."""

from __future__ import annotations

import json
import os
from pathlib import Path

from session.store import SessionStore
from tests.terminal import Terminal
from tests.product_run import run_product

QUESTIONS = [{"question": "Which colour?", "header": "Colour",
              "options": [{"label": "Blue (Recommended)", "description": "calm"},
                          {"label": "Red", "description": "loud"}]},
             {"question": "Which sizes?", "header": "Sizes", "multiSelect": True,
              "options": [{"label": "S", "description": ""}, {"label": "M", "description": ""}]}]
SCRIPT = {"turns": [{"text": "", "tool_calls": [{"name": "AskUserQuestion",
                                                 "arguments": {"questions": QUESTIONS}}]},
                    {"text": "thanks for answering"}]}


def tool_results(home: Path) -> list[str]:
    store = SessionStore(home / "sessions.db")
    [info] = store.sessions(Path.cwd())
    return [e.payload["content"] for e in store.entries(info.id)
            if e.kind == "message" and e.payload.get("role") == "tool"]


def test_yolo_still_asks_and_a_number_picks_an_empty_line_skips(workspace, tmp_path):
    script = tmp_path / "ask.json"
    script.write_text(json.dumps(SCRIPT))
    terminal = Terminal.start(workspace, "--mode", "yolo", "--script", str(script))
    try:
        terminal.expect("›")
        terminal.sendline("ask me")
        terminal.expect("Which colour?")
        terminal.expect("2. Red")
        terminal.expect("Enter skips")
        terminal.sendline("2")
        terminal.expect("Which sizes?")
        terminal.expect("Enter skips")
        terminal.sendline("")
        terminal.expect("thanks for answering")
        terminal.expect("›")
    finally:
        terminal.close()
    [result] = tool_results(Path(os.environ["STEPAGENT_HOME"]))
    assert "Red" in result and "Which sizes?" in result and "Blue" not in result


def test_headless_resolves_at_once_with_no_answers(workspace, tmp_path):
    script = tmp_path / "ask.json"
    script.write_text(json.dumps(SCRIPT))
    done = run_product("--mode", "yolo", "--script", str(script), "-p", "ask me", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "thanks for answering"
    [result] = tool_results(Path(os.environ["STEPAGENT_HOME"]))
    assert "-p" in result and "Red" not in result
