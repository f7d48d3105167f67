"""The screen as a person reads it, in a pseudo-terminal and in tmux: what is shown before a
question, the result line of a call cancelled at its question, failures in red with their text,
and one copy of a long answer in the scrollback."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.fake_chat_server import FakeChatServer
from tests.terminal import Screen, Terminal

OLD = "def greet():\n    return 'hi'\n\nprint(greet())\n"
EDIT = {"name": "Edit", "arguments": {"file_path": "app.py", "old_string": "    return 'hi'",
                                      "new_string": "    return 'hello'"}}


def script(tmp_path: Path, *turns: dict) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": list(turns)}))
    return str(path)


def test_the_call_and_its_diff_are_on_screen_before_the_question(workspace, tmp_path):
    (workspace / "app.py").write_text(OLD)
    terminal = Terminal.start(workspace, "--script", script(
        tmp_path, {"tool_calls": [EDIT]},
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch made.txt"}}]},
        {"text": "all done"}))
    try:
        terminal.expect("›")
        terminal.sendline("greet louder")
        for shown in ["● Edit(app.py)", "app.py", "-    return 'hi'", "+    return 'hello'",
                      "Allow it in build mode", r"Allow? [y/a/p/u/N]"]:
            terminal.expect_text(shown)
        terminal.sendline("y")
        terminal.expect_text("Edited app.py: +1 −1")
        terminal.expect_text("● Bash(touch made.txt)")
        assert "hello" not in terminal.child.before, "the diff shown at the question is not repeated"
        for shown in ["touch made.txt", "Allow it in build mode",
                      "don't ask again for Bash(touch:*)", r"Allow? [y/a/p/u/N]"]:
            terminal.expect_text(shown)
        assert not (workspace / "made.txt").exists()
        terminal.sendline("n")
        terminal.expect_text("denied by you")
        terminal.expect_text("all done")
        assert (workspace / "app.py").read_text() == OLD.replace("'hi'", "'hello'")
    finally:
        terminal.close()


def test_a_change_nobody_was_asked_about_shows_its_diff_under_the_result(workspace, tmp_path):
    (workspace / "app.py").write_text(OLD)
    numbered = "".join(f"line {n}\n" for n in range(40))
    terminal = Terminal.start(workspace, "--mode", "edit", "--script", script(
        tmp_path, {"tool_calls": [EDIT, {"name": "Write", "arguments": {"file_path": "long.txt",
                                                                        "content": numbered}}]},
        {"text": "all done"}))
    try:
        terminal.expect("›")
        terminal.sendline("greet louder")
        for shown in ["Edited app.py: +1 −1", "-    return 'hi'", "+    return 'hello'",
                      "Created long.txt: 40 lines", "+line 0", "+line 14"]:
            terminal.expect_text(shown)
        terminal.expect_text("… 25 more lines (/diff shows all)")
        assert "+line 15" not in terminal.child.before, "a long change is cut short"
        terminal.expect_text("all done")
    finally:
        terminal.close()


def test_ctrl_c_at_a_question_shows_the_call_was_not_run_before_the_turn_ends(workspace, tmp_path):
    terminal = Terminal.start(workspace, "--script", script(
        tmp_path, {"tool_calls": [{"name": "Write", "arguments": {"file_path": "a.txt", "content": "x"}}]},
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "touch made.txt"}}]},
        {"text": "all done"}))
    first_of = re.compile("Not run: the user interrupted|Turn cancelled")
    try:
        terminal.expect("›")
        for message, call in [("write it", "● Write(a.txt)"), ("touch it", "● Bash(touch made.txt)")]:
            terminal.sendline(message)
            terminal.expect_text(call)
            terminal.expect_text(r"Allow? [y/")
            terminal.child.sendintr()
            terminal.expect(first_of)
            assert terminal.child.match.group(0) != "Turn cancelled", "the call's result line comes first"
            terminal.expect_text("Turn cancelled")
        terminal.sendline("go on")
        terminal.expect_text("all done")
        assert not (workspace / "a.txt").exists() and not (workspace / "made.txt").exists()
    finally:
        terminal.close()


def test_failures_are_red_with_their_text(workspace, tmp_path):
    terminal = Terminal.start(workspace, "--mode", "yolo", "--script", script(
        tmp_path, {"tool_calls": [{"name": "Read", "arguments": {"file_path": "missing.txt"}},
                                  {"name": "Bash", "arguments": {"command": "echo last words; exit 3"}}]},
        {"text": "all done"}))
    try:
        terminal.expect("›")
        terminal.sendline("go")
        terminal.expect(r"\x1b\[31m[^\x1b]*Cannot read missing.txt")
        terminal.expect_text("last words")
        terminal.expect(r"\x1b\[31m[^\x1b]*exit code 3")
        terminal.expect_text("all done")
    finally:
        terminal.close()


def long_answer(sections: int = 7) -> str:
    """About 150 lines of markdown, with a heading that appears once."""
    parts = ["# The Only Heading", ""]
    for n in range(1, sections + 1):
        parts += [f"## Part {n}", "", f"Prose for part {n} with **bold** words.", "",
                  "- one", "- two", "- three", "", "```python", f"def part_{n}():", "    return 1",
                  "```", "", "| a | b |", "|---|---|", f"| {n} | x |", "", "---", ""]
    return "\n".join(parts + ["The answer ends here."]) + "\n"


@pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is not installed")
@pytest.mark.slow
def test_a_long_answer_leaves_one_copy_in_the_scrollback(workspace, tmp_path):
    answer = long_answer()
    assert len(answer.splitlines()) > 100
    server = FakeChatServer()
    url = server.start()
    server.reply_text(*re.findall(r"\S+\s*|\s+", answer), pace=0.004)
    screen = Screen(tmp_path, workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url}, columns=100)
    try:
        screen.wait_for("›")
        screen.keys("explain", "Enter")
        screen.wait_for("The answer ends here.")
        shown = screen.wait_for("mode: build")
        assert shown.count("The Only Heading") == 1, shown
        assert shown.count("Part 3") == 1 and shown.count("def part_7") == 1
    finally:
        screen.close()
        server.stop()
