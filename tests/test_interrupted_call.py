"""Ctrl-C while a call runs: the call started, so it is "interrupted while running", with its
output so far and a warning that its effects may stand, on the screen and for the model."""

from __future__ import annotations

import time

from tests.fake_chat_server import FakeChatServer
from tests.terminal import Terminal

# The output is in the pipe before effects.txt exists, so the file says both have happened.
COMMAND = "echo partial-output; echo started >> effects.txt; sleep 30; touch late.txt"


def test_ctrl_c_during_a_call_reports_it_interrupted_while_running(workspace):
    server = FakeChatServer()
    url = server.start()
    server.reply_tool_calls(("Bash", {"command": COMMAND}))
    server.reply_text("second turn answered")
    terminal = Terminal.start(workspace, "--mode", "yolo",
                              env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    try:
        terminal.expect("›")
        terminal.sendline("make effects")
        terminal.expect_text("Running Bash…")  # the call is on the screen: it has started
        deadline = time.monotonic() + 30
        while not (workspace / "effects.txt").exists():
            assert time.monotonic() < deadline, "the command never ran"
            time.sleep(0.05)
        terminal.child.sendintr()
        terminal.expect_text("Interrupted while running (Ctrl-C): its effects may stand")
        terminal.expect("Turn cancelled")
        terminal.sendline("go on")
        terminal.expect("second turn answered")
    finally:
        terminal.close()
        server.stop()
    result = next(m["content"] for m in server.requests[-1]["messages"] if m["role"] == "tool")
    assert result.startswith("Interrupted while running") and "effects may stand" in result
    assert "partial-output" in result and "Not run" not in result
    assert (workspace / "effects.txt").read_text() == "started\n"
    assert not (workspace / "late.txt").exists()
