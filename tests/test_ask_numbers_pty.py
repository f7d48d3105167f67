"""AskUserQuestion in the REPL: a number that names no option asks again with a hint (it is not
sent as words), and the screen says what each answer was taken as, or that Ctrl-D skipped the rest."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.terminal import Terminal
from tests.test_ask_user_pty import SCRIPT, tool_results

THIRD = {"question": "Which shape?", "header": "Shape",
         "options": [{"label": "Round", "description": ""}, {"label": "Square", "description": ""}]}


def asking(tmp_path: Path) -> Path:
    script = json.loads(json.dumps(SCRIPT))
    script["turns"][0]["tool_calls"][0]["arguments"]["questions"].append(THIRD)
    path = tmp_path / "ask.json"
    path.write_text(json.dumps(script))
    return path


def test_an_unknown_number_asks_again_and_each_answer_is_shown(workspace: Path, tmp_path: Path):
    terminal = Terminal.start(workspace, "--mode", "yolo", "--script", str(asking(tmp_path)))
    try:
        terminal.expect("›")
        terminal.sendline("ask me")
        terminal.expect("2. Red")
        terminal.expect("Enter skips")
        terminal.sendline("3")
        terminal.expect_text("no option 3; choose 1–2 or type words")
        terminal.expect("Enter skips")
        terminal.sendline("2")
        terminal.expect_text("→ Red")
        terminal.expect("Which sizes?")
        terminal.expect("Enter skips")
        terminal.sendline("1,7")
        terminal.expect_text("no option 7; choose 1–2 or type words")
        terminal.expect("Enter skips")
        terminal.sendline("")
        terminal.expect_text("→ skipped")
        terminal.expect("Which shape?")
        terminal.expect("Enter skips")
        terminal.send("\x04")
        terminal.expect_text("→ skipped with Ctrl-D: 1 question")
        terminal.expect("thanks for answering")
        terminal.expect("›")
    finally:
        terminal.close()
    [result] = tool_results(Path(os.environ["STEPAGENT_HOME"]))
    assert '"Which colour?" → Red' in result and "→ 3" not in result and "1,7" not in result
    assert "Which sizes?" in result.split("They skipped:")[1] and "Which shape?" in result
