"""Every way out of a permission question or an AskUserQuestion, in the real REPL against the fake endpoint.

The plan review's table (step42_plan_mode/README.md) holds at the other two kinds of
question: /mode NAME and Shift+Tab switch the mode and leave the question unanswered,
/exit leaves it and then stepagent; each ends the turn (a sub-agent's question, its
parent's turn too), and the model reads why when the user speaks next. The call asked
about never runs (not even once plan mode is on), and planning never goes on outside plan
mode. Ctrl-C cancels the turn; Ctrl-D says no (skips, for the model's questions); a
closing terminal answers nothing, and the resumed session tells the model so.
"""

from __future__ import annotations

import json
import os
import sqlite3

import pexpect
import pytest

from session.journal import UNANSWERED_AT_END
from tests.fake_chat_server import FakeChatServer
from tests.product_run import run_product
from tests.terminal import Terminal

WRITE = ("Write", {"file_path": "made.txt", "content": "x"})
QUESTION = ("AskUserQuestion", {"questions": [{
    "question": "Which colour?", "header": "Colour",
    "options": [{"label": "Blue", "description": ""}, {"label": "Red", "description": ""}]}]})
SHIFT_TAB = "\x1b[Z"


def at_the_question(workspace, server: FakeChatServer, asked: tuple, message: str) -> Terminal:
    """The REPL with `asked`'s question on screen, the model's call made for `message`."""
    server.reply_tool_calls(asked)
    terminal = Terminal.start(workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.start()})
    terminal.expect("›")
    terminal.sendline(message)
    terminal.expect("Allow\\?" if asked is WRITE else "Enter skips")
    return terminal


def told_next(terminal: Terminal, server: FakeChatServer) -> dict:
    """The turn has ended at the prompt; the user speaks, and the request shows what the model read."""
    terminal.expect("›")
    assert len(server.requests) == 1, "the turn ended: no request followed the question"
    server.reply_text("understood")
    terminal.sendline("so")
    terminal.expect("understood")
    return server.requests[-1]


def tool_result(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "tool"][-1]["content"]


def journaled(kind: str) -> list[dict]:
    """The session store's entries of `kind` (messages, hook decisions…), oldest first."""
    db = sqlite3.connect(os.path.join(os.environ["STEPAGENT_HOME"], "sessions.db"))
    return [json.loads(row[0]) for row in db.execute("SELECT payload FROM entries WHERE kind = ?",
                                                     (kind,))]


@pytest.mark.parametrize("keys, mode", [("/mode plan\r", "plan"), (SHIFT_TAB, "edit")],
                         ids=["/mode", "shift-tab"])
def test_a_mode_switch_at_a_permission_question_runs_nothing_and_ends_the_turn(workspace, keys, mode):
    server = FakeChatServer()
    terminal = at_the_question(workspace, server, WRITE, "write it")
    try:
        terminal.send(keys)
        terminal.expect_text(f"{mode} mode")
        request = told_next(terminal, server)
    finally:
        terminal.close()
        server.stop()
    assert not (workspace / "made.txt").exists()
    left_by = keys.strip() if keys != SHIFT_TAB else "Shift+Tab"
    assert tool_result(request) == (f"Not run: the user left with {left_by} without saying whether "
                                    f"this call may run. You are now in {mode} mode. Stop here; the "
                                    "user speaks next.")
    assert ("Plan mode is active" in request["messages"][0]["content"]) == (mode == "plan")


def test_leaving_plan_mode_at_a_question_of_the_model_ends_the_turn(workspace):
    server = FakeChatServer()
    terminal = at_the_question(workspace, server, QUESTION, "/plan ask me")
    try:
        terminal.sendline("/mode build")
        request = told_next(terminal, server)
    finally:
        terminal.close()
        server.stop()
    assert tool_result(request) == ("The user left with /mode build without answering your "
                                    "questions. You are now in build mode. Stop here; the user "
                                    "speaks next.")
    assert "Plan mode is active" not in request["messages"][0]["content"]


@pytest.mark.parametrize("delegated, asked, told", [
    (False, WRITE, "Not run: the user left with /exit without saying whether this call may run."),
    (False, QUESTION, "The user left with /exit without answering your questions."),
    (True, WRITE, "The sub-agent (general: w) stopped: the user left with /exit without answering "
                  "its question.")], ids=["permission", "question", "sub-agent's permission"])
def test_exit_at_a_question_leaves_it_unanswered_then_stepagent(workspace, delegated, asked, told):
    """A sub-agent's question left ends its parent's turn too: the parent asks the model nothing more."""
    server = FakeChatServer()
    if delegated:
        server.reply_tool_calls(("Agent", {"description": "w", "prompt": "write it",
                                           "subagent_type": "general"}))
    terminal = at_the_question(workspace, server, asked, "go")
    try:
        terminal.sendline("/exit")
        terminal.child.expect(pexpect.EOF)
    finally:
        terminal.close()
        server.stop()
    assert len(server.requests) == 1 + delegated and not (workspace / "made.txt").exists()
    [result] = [m["content"] for m in journaled("message") if m["role"] == "tool"]
    assert result.startswith(told)


@pytest.mark.parametrize("asked, told", [
    (WRITE, "The user declined this call."), (QUESTION, "The user answered none of the questions.")],
    ids=["permission says no", "question skipped"])
def test_ctrl_d_at_a_question_is_no_answer_and_the_model_goes_on(workspace, asked, told):
    server = FakeChatServer()
    terminal = at_the_question(workspace, server, asked, "go")
    server.reply_text("carrying on")
    try:
        terminal.send("\x04")
        terminal.expect("carrying on")
    finally:
        terminal.close()
        server.stop()
    assert not (workspace / "made.txt").exists()
    assert tool_result(server.requests[-1]).startswith(told)


def test_ctrl_c_at_a_question_of_the_model_cancels_the_turn(workspace):
    server = FakeChatServer()
    terminal = at_the_question(workspace, server, QUESTION, "ask me")
    try:
        terminal.child.sendintr()
        terminal.expect_text("Turn cancelled")
        request = told_next(terminal, server)
    finally:
        terminal.close()
        server.stop()
    assert tool_result(request) == "Not run: the user interrupted the turn (Ctrl-C)."


def resumed_after_the_terminal_closed(workspace, server: FakeChatServer) -> dict:
    """The session continued with -p once its terminal closed: the request it sends."""
    server.reply_text("resumed")
    env = {**os.environ, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url}
    done = run_product("--continue", "-p", "go on", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    return server.requests[-1]


@pytest.mark.parametrize("asked, told", [
    (WRITE, "Not run: the session ended before this call started."),
    (QUESTION, UNANSWERED_AT_END)], ids=["permission", "question"])
def test_the_terminal_closing_at_a_question_answers_nothing(workspace, asked, told):
    server = FakeChatServer()
    terminal = at_the_question(workspace, server, asked, "go")
    try:
        terminal.child.close(force=False)  # the pty goes away: SIGHUP, then end of input
        terminal.close()
        assert len(server.requests) == 1 and not (workspace / "made.txt").exists()
        assert [d for d in journaled("hook") if d["tool"] == "Write" and d["decision"] == "allow"] == []
        assert tool_result(resumed_after_the_terminal_closed(workspace, server)) == told
    finally:
        terminal.close()
        server.stop()
