"""Small words on the screen that must say what happened: leaving a permission question with
Shift+Tab is not a denial by the user, Ctrl-D at a plan reviewed again says what `n` says, and
saving a plan names what /plan approve does (reviews it again)."""

from __future__ import annotations

from tests.fake_chat_server import FakeChatServer
from tests.test_lesson_pty import PLAN, answer, lesson, next_review, until  # noqa: F401 (lesson: a fixture)
from tests.test_question_left_pty import SHIFT_TAB, WRITE, at_the_question

REJECTED = "Plan rejected. Plan mode stays on; tell the agent what you want."


def test_shift_tab_at_a_permission_question_says_the_user_left_it(workspace):
    server = FakeChatServer()
    terminal = at_the_question(workspace, server, WRITE, "write it")
    try:
        terminal.send(SHIFT_TAB)
        terminal.expect_text("you left the question with Shift+Tab")
        terminal.expect("›")
        assert "denied by you" not in terminal.child.before
    finally:
        terminal.close()
        server.stop()


def test_ctrl_d_at_a_plan_reviewed_again_says_what_n_says(lesson):
    lesson.sendline("/plan add a greeting file")
    next_review(lesson)
    answer(lesson, PLAN, "s")
    saved = " ".join(until(lesson, "›").split())
    assert "/plan approve reviews it again" in saved and "approves it" not in saved
    lesson.sendline("/plan approve")
    until(lesson, "Approve this plan?")
    lesson.send("\x04")
    assert REJECTED in " ".join(until(lesson, "›").split())
    lesson.sendline("make it short")
    next_review(lesson)
    answer(lesson, PLAN, "n")
    assert REJECTED in " ".join(until(lesson, "›").split())
