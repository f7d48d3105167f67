"""The plan review in the real REPL (a pseudo-terminal) against the fake endpoint.

c builds in a fresh conversation whose request carries no earlier message; Ctrl+G
opens $EDITOR (a script here) and the edited plan is what is saved and what the
model is told about; s keeps the plan pending for /plan show and /plan approve; Ctrl-C
and a terminal that closes at the review approve nothing.
"""

from __future__ import annotations

import io
import os
import sqlite3
import stat

import pexpect

from session.journal import UNANSWERED_AT_END
from tests.fake_chat_server import FakeChatServer
from tests.hostile_text import visible
from tests.terminal import Terminal
from tests.product_run import run_product

PLAN = "1. Write made.txt"


def at_the_review(workspace, server: FakeChatServer, **env: str) -> Terminal:
    """The REPL with the plan PLAN on screen, waiting for its review."""
    url = server.start()
    terminal = Terminal.start(workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url, **env})
    terminal.expect("›")
    terminal.sendline("/plan make a file")
    terminal.expect("Approve this plan")
    return terminal


def plan_file(workspace):
    return next((workspace / ".stepagent" / "plans").glob("plan-*.md"), None)


def test_c_builds_in_a_fresh_conversation_that_holds_only_the_plan(workspace):
    server = FakeChatServer()
    server.reply_tool_calls(("ExitPlanMode", {"plan": PLAN}))
    server.reply_text("building it")
    terminal = at_the_review(workspace, server)
    try:
        terminal.sendline("c")
        terminal.expect("building it")
        terminal.expect("›")
    finally:
        terminal.close()
        server.stop()
    fresh = server.requests[-1]["messages"]
    assert {m["role"] for m in fresh} == {"system", "user"}, "no earlier reply or tool result"
    assert not any("make a file" in m["content"] for m in fresh), "no earlier message"
    assert fresh[1]["content"].startswith("The user approved your plan.")
    assert fresh[1]["content"].endswith(PLAN + "\n")


def approved_after_the_editor(workspace, tmp_path, plan: str, *shown: str) -> FakeChatServer:
    """Ctrl+G at the review of `plan` with an editor that appends a step, `shown` seen, then y."""
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "2. Run the tests\\n" >> "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    server = FakeChatServer()
    server.reply_tool_calls(("ExitPlanMode", {"plan": plan}))
    server.reply_text("building the edited plan")
    terminal = at_the_review(workspace, server, EDITOR=str(editor), VISUAL="")
    try:
        terminal.send("\x07")
        terminal.expect_text("edited by you")
        for text in shown:
            terminal.expect_text(text)
        terminal.expect("Approve this plan")
        terminal.sendline("y")
        terminal.expect("building the edited plan")
    finally:
        terminal.close()
        server.stop()
    return server


def test_ctrl_g_edits_the_plan_in_the_editor_and_the_edit_is_what_is_approved(workspace, tmp_path):
    server = approved_after_the_editor(workspace, tmp_path, PLAN)
    assert plan_file(workspace).read_text() == PLAN + "\n2. Run the tests\n"
    result = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "+2. Run the tests" in result and "edited the plan" in result


def test_a_plan_with_a_lone_surrogate_is_reviewed_edited_and_saved_as_shown(workspace, tmp_path):
    """The screen draws the surrogate as its escape; that text is what the editor gets and the file holds."""
    approved_after_the_editor(workspace, tmp_path, "1. \ud800 step", "1. \\ud800 step")
    assert plan_file(workspace).read_bytes() == b"1. \\ud800 step\n2. Run the tests\n"


def test_a_plan_that_hides_text_in_invisible_characters_shows_every_one_before_the_question(workspace):
    """Tag characters and zero-width ones draw nothing: a plan could carry steps the user never
    saw into the build (and into c's fresh conversation). The review shows each one."""
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "run sh")
    server = FakeChatServer()
    server.reply_tool_calls(("ExitPlanMode", {"plan": f"1. Write made.txt{hidden}\n2. Done\u200b"}))
    url = server.start()
    terminal = Terminal.start(workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    try:
        terminal.expect("›")
        terminal.child.logfile_read = io.StringIO()
        terminal.sendline("/plan make a file")
        terminal.expect("Approve this plan")
        screen = visible(terminal.child.logfile_read.getvalue())
    finally:
        terminal.close()
        server.stop()
    assert hidden not in screen and "\u200b" not in screen
    assert "1. Write made.txt\\U000e0072\\U000e0075" in screen and "2. Done\\u200b" in screen
    assert "This plan contains invisible characters" in screen


def test_s_saves_for_later_then_plan_show_and_plan_approve(workspace):
    server = FakeChatServer()
    server.reply_tool_calls(("ExitPlanMode", {"plan": PLAN}))
    server.reply_text("building after a later approval")
    terminal = at_the_review(workspace, server)
    try:
        terminal.sendline("s")
        terminal.expect("Plan saved for later")
        terminal.expect("›")
        terminal.sendline("/plan show")
        terminal.expect("awaiting approval")
        terminal.expect("Write made.txt")
        terminal.sendline("/plan approve")
        terminal.expect_text("revision 1, awaiting approval")
        terminal.expect("Approve this plan")
        assert "Unchanged since" not in terminal.child.before, "the same revision, not a new one"
        terminal.sendline("y")
        terminal.expect("building after a later approval")
    finally:
        terminal.close()
        server.stop()
    said = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"]
    assert any(text.startswith("The user approved your plan.") for text in said)
    assert plan_file(workspace).read_text() == PLAN + "\n"
    db = sqlite3.connect(os.path.join(os.environ["STEPAGENT_HOME"], "sessions.db"))
    assert list(db.execute("SELECT number, outcome FROM plan_revisions")) == [(1, "approve")]


def test_ctrl_c_at_the_review_cancels_the_turn_and_approves_nothing(workspace):
    server = FakeChatServer()
    server.reply_tool_calls(("ExitPlanMode", {"plan": PLAN}))
    terminal = at_the_review(workspace, server)
    try:
        terminal.child.sendintr()
        terminal.expect_text("Turn cancelled")
        terminal.expect("›")
        server.reply_text("still planning")
        terminal.sendline("why?")
        terminal.expect("still planning")
    finally:
        terminal.close()
        server.stop()
    assert plan_file(workspace) is None
    request = server.requests[-1]["messages"]
    assert [m for m in request if m["role"] == "tool"][-1]["content"] == (
        "Not run: the user interrupted the turn (Ctrl-C).")
    assert "Plan mode is active" in request[0]["content"]


def test_a_review_cut_off_by_the_terminal_closing_says_so_on_resume(workspace):
    terminal = Terminal.start(workspace)
    try:
        terminal.expect("›")
        terminal.sendline("/plan add a greeting file")
        terminal.expect("Approve this plan")
        terminal.child.close(force=False)
    finally:
        terminal.close()
    resumed = Terminal.start(workspace, "--continue", columns=250)  # the notice on one line
    try:
        resumed.expect_text("The plan review was cut off when the session ended, so nothing was "
                            "approved and plan mode is on. To review the plan, say so, and the "
                            "model presents it again.")
        resumed.expect("›")
        resumed.sendline("go on")
        resumed.expect("Approve this plan")
    finally:
        resumed.close()


def test_the_terminal_closing_at_the_review_approves_nothing(workspace):
    from tests.test_question_left_pty import resumed_after_the_terminal_closed

    server = FakeChatServer()
    server.reply_tool_calls(("ExitPlanMode", {"plan": PLAN}))
    terminal = at_the_review(workspace, server)
    try:
        terminal.child.close(force=False)  # the pty goes away: SIGHUP, then end of input
        terminal.close()
        assert plan_file(workspace) is None
        db = sqlite3.connect(os.path.join(os.environ["STEPAGENT_HOME"], "sessions.db"))
        outcomes = [row[0] for row in db.execute("SELECT outcome FROM plan_revisions")]
        modes = [row[0] for row in db.execute(
            "SELECT json_extract(payload, '$.plan_mode') FROM entries WHERE kind = 'mode'")]
        assert "approve" not in outcomes and modes[-1] == 1
        told = resumed_after_the_terminal_closed(workspace, server)["messages"]
        assert [m for m in told if m["role"] == "tool"][-1]["content"] == UNANSWERED_AT_END
        assert "Plan mode is active" in told[0]["content"]
    finally:
        terminal.close()
        server.stop()


def test_resuming_a_planning_session_with_another_mode_says_plan_mode_was_left(workspace, tmp_path):
    import json
    import subprocess
    import sys

    from tests.terminal import ROOT

    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "still planning"}, {"text": "resumed"}]))

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_product("--script", str(script), *args, cwd=workspace)

    assert run("--mode", "plan", "-p", "think").returncode == 0
    resumed = run("--continue", "--mode", "build", "-p", "go on")
    assert "--mode build left plan mode, and no plan was approved" in resumed.stderr
    db = sqlite3.connect(os.path.join(os.environ["STEPAGENT_HOME"], "sessions.db"))
    causes = [row[0] for row in db.execute(
        "SELECT json_extract(payload, '$.cause') FROM entries WHERE kind = 'mode' "
        "AND json_extract(payload, '$.plan_mode') = 0")]
    assert causes[-1] == "--mode build"
