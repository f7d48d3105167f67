"""Type-ahead never answers a question (failure mode 13): keys typed while the model or a call worked are dropped.

A person types "y⏎" while the turn runs (here: while the model's reply is held
back), then the question is drawn. Each kind of question must still wait, say
that it ignored the keys, and take only what is typed once it is on the screen.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from tests.fake_chat_server import FakeChatServer
from tests.terminal import Terminal

PLAN = "1. Write made.txt"


def requests_reach(server: FakeChatServer, count: int) -> None:
    """Wait until the REPL's turn has sent `count` requests (the reply may still be held)."""
    deadline = time.monotonic() + 30
    while len(server.requests) < count:
        assert time.monotonic() < deadline, "the REPL never sent its request"
        time.sleep(0.02)


@pytest.fixture
def held(workspace):
    """A fake endpoint whose first reply waits for the gate, and the REPL talking to it."""
    server, gate = FakeChatServer(), threading.Event()
    url = server.start()
    terminal = Terminal.start(workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    yield server, gate, terminal
    gate.set()
    terminal.close()
    server.stop()


def type_during_the_turn(server, gate, terminal, message: str, keys: str) -> None:
    terminal.expect("›")
    terminal.sendline(message)
    requests_reach(server, 1)
    terminal.send(keys)
    gate.set()


def test_keys_typed_before_the_plan_review_cannot_approve_it(held, workspace):
    server, gate, terminal = held
    server.reply_tool_calls(("ExitPlanMode", {"plan": PLAN}), after=gate)
    server.reply_text("talk it over")
    type_during_the_turn(server, gate, terminal, "/plan make a file", "y\r")
    terminal.expect_text("Ignored 2 keys typed before this question was on the screen")
    terminal.expect("Approve this plan")
    terminal.sendline("n")
    terminal.expect("Plan rejected")
    assert not (workspace / ".stepagent").exists()


def test_keys_left_over_from_the_prompt_cannot_approve_the_plan(held, workspace):
    server, gate, terminal = held
    server.reply_tool_calls(("ExitPlanMode", {"plan": PLAN}))
    terminal.expect("›")
    terminal.send("/plan make a file\ry\r")
    terminal.expect_text("Ignored 2 keys")
    terminal.expect("Approve this plan")
    terminal.sendline("n")
    terminal.expect("Plan rejected")
    assert not (workspace / ".stepagent").exists()


def test_keys_typed_before_a_permission_question_cannot_allow_the_call(held, workspace):
    server, gate, terminal = held
    server.reply_tool_calls(("Write", {"file_path": "made.txt", "content": "x"}), after=gate)
    server.reply_text("fine, not written")
    type_during_the_turn(server, gate, terminal, "write it", "y\r")
    terminal.expect_text("Ignored 2 keys")
    terminal.expect("Allow")
    terminal.sendline("n")
    terminal.expect("fine, not written")
    assert not (workspace / "made.txt").exists()


def test_keys_typed_before_a_question_of_the_model_cannot_answer_it(held, workspace):
    server, gate, terminal = held
    question = {"question": "Which colour?", "header": "Colour",
                "options": [{"label": "Blue", "description": ""}, {"label": "Red", "description": ""}]}
    server.reply_tool_calls(("AskUserQuestion", {"questions": [question]}), after=gate)
    server.reply_text("noted")
    type_during_the_turn(server, gate, terminal, "ask me", "2\r")
    terminal.expect_text("Ignored 2 keys")
    terminal.expect("Enter skips")
    terminal.sendline("1")
    terminal.expect("noted")
    [result] = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert "Blue" in result["content"] and "Red" not in result["content"]
