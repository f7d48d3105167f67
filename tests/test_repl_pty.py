"""The real REPL in a pseudo-terminal, typed at as a person would."""

from __future__ import annotations

import json

import pexpect
import pytest

from tests.fake_chat_server import FakeChatServer
from tests.terminal import Terminal
from tools.bash.sandbox.status import detect_layers

PLAN = "1. Write made.txt"
SCRIPT = {"title": "pty", "turns": [
    {"text": "trying early", "tool_calls": [{"name": "Write", "arguments": {"file_path": "made.txt", "content": "early"}}]},
    {"text": "presenting", "tool_calls": [{"name": "ExitPlanMode", "arguments": {"plan": PLAN}}]},
    {"text": "writing", "tool_calls": [{"name": "Write", "arguments": {"file_path": "made.txt", "content": "approved"}}]},
    {"text": "all done"}]}


@pytest.fixture
def repl(workspace, tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    terminal = Terminal.start(workspace, "--script", str(script))
    terminal.expect("›")
    yield terminal
    terminal.close()


def sandbox_notice() -> str:
    """The notice for this machine: the layers before "active." are on, the missing ones follow."""
    if detect_layers().bwrap:
        return r"Plan-mode sandbox: [\w, ]*bubblewrap[\w, ]* active\."
    return r"Missing: [^.]*bubblewrap"


def test_plan_denied_write_approve_then_write_lands(repl, workspace):
    repl.sendline("/plan make a file")
    repl.expect("mode → plan")
    repl.expect(sandbox_notice())
    repl.expect("denied by plan-mode-guard")
    repl.expect("Approve this plan")
    assert not (workspace / "made.txt").exists()
    repl.sendline("y")
    repl.expect(r"Allow\? \[")
    repl.sendline("y")
    repl.expect("all done")
    repl.expect("›")
    assert (workspace / "made.txt").read_text() == "approved"
    assert list((workspace / ".stepagent" / "plans").glob("plan-sess_*.md"))


def test_feedback_keeps_planning(repl, workspace):
    repl.sendline("/plan make a file")
    repl.expect("Approve this plan")
    repl.sendline("please also add tests")
    repl.expect("writing")
    repl.expect("denied by plan-mode-guard")
    repl.expect("›")
    assert not (workspace / "made.txt").exists()
    assert not (workspace / ".stepagent").exists()


def test_reject_ends_the_turn_and_the_user_speaks_next(repl, workspace):
    repl.sendline("/plan make a file")
    repl.expect("Approve this plan")
    repl.sendline("n")
    repl.expect("Plan rejected")
    repl.expect("›")
    repl.sendline("/mode build")
    repl.expect("mode → build")
    assert not (workspace / "made.txt").exists()


def test_shift_tab_shows_plan_in_the_toolbar_and_exit_leaves(repl):
    repl.send("\x1b[Z")
    repl.expect("mode → edit")
    repl.send("\x1b[Z")
    repl.send("\x1b[Z")
    repl.expect("PLAN")
    repl.send("\x1b[Z")
    repl.expect_text("(by Shift+Tab)")
    left = repl.child.before
    assert "build" in left and "yolo" not in left, "out of plan straight to build, not via yolo"
    repl.sendline("/exit")
    repl.expect(pexpect.EOF)


def test_ctrl_c_cancels_a_running_command_and_the_repl_goes_on(workspace, tmp_path):
    script = tmp_path / "slow.json"
    script.write_text(json.dumps({"turns": [
        {"text": "waiting", "tool_calls": [{"name": "Bash", "arguments": {"command": "sleep 30 && touch late.txt"}}]},
        {"text": "second turn answered"}]}))
    terminal = Terminal.start(workspace, "--script", str(script))
    try:
        terminal.expect("›")
        terminal.sendline("wait please")
        terminal.expect(r"Allow\? \[")
        terminal.sendline("y")
        terminal.expect("allowed by you")
        terminal.expect("Running")  # the command runs: Ctrl-C is a signal now, no longer a key the question reads
        terminal.child.sendintr()
        terminal.expect("Turn cancelled")
        terminal.sendline("go on")
        terminal.expect("second turn answered")
        assert not (workspace / "late.txt").exists()
    finally:
        terminal.close()


def test_a_multi_line_paste_is_one_message(workspace):
    server = FakeChatServer()
    url = server.start()
    server.reply_text("got both lines")
    terminal = Terminal.start(workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    try:
        terminal.expect("›")
        terminal.send("\x1b[200~first line\nsecond line\x1b[201~")
        terminal.send("\r")
        terminal.expect("got both lines")
        assert server.requests[0]["messages"][-1] == {"role": "user", "content": "first line\nsecond line"}
    finally:
        terminal.close()
        server.stop()


def test_a_first_message_on_the_command_line_is_echoed_and_runs_as_a_command(workspace, server):
    server.reply_text("looked around")
    terminal = Terminal.start(workspace, "/plan look around",
                              env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url})
    try:
        terminal.expect_text("› /plan look around")
        terminal.expect_text("mode → plan")
        terminal.expect_text("looked around")
        terminal.expect("›")
    finally:
        terminal.close()
    sent = [message["content"] for message in server.requests[0]["messages"] if message["role"] == "user"]
    assert "look around" in sent and not any("/plan" in text for text in sent), sent
