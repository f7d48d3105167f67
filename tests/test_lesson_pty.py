"""The offline lesson in a real terminal, no key set: each answer at the plan review, read off
the screen as the learner reads it. What the lesson says must match what the screen shows."""

from __future__ import annotations

import io
import re

import pytest

from tests.terminal import Terminal

FILE = "stepagent_lesson.txt"
CODES = re.compile(r"\x1b\[[0-9;?<=>]*[A-Za-z~]|\x1b[()][A-Z0-9]|\x1b[=>]|\r")


def visible(text: str) -> str:
    """The text as a person reads it: colour and cursor codes removed."""
    return CODES.sub("", text)


@pytest.fixture
def lesson(workspace):
    terminal = Terminal.start(workspace)
    terminal.child.logfile_read = io.StringIO()
    terminal.read_up_to = 0
    terminal.expect_text("offline lesson model")
    terminal.expect("›")
    until(terminal, "›")
    yield terminal
    terminal.close()


def until(terminal: Terminal, text: str) -> str:
    """Wait for `text`; what the screen showed since the last wait, up to and with it, as read."""
    terminal.expect_text(text)
    screen = terminal.child.logfile_read.getvalue()
    shown, terminal.read_up_to = screen[terminal.read_up_to:], len(screen)
    return visible(shown)


def answer(terminal: Terminal, question: str, text: str) -> None:
    """Type `text` at the question on the screen, and wait until it is taken."""
    terminal.sendline(text)
    until(terminal, f"{question} {text}")


def next_review(terminal: Terminal) -> str:
    """Wait for a new plan panel and its question (not a redraw of the last question)."""
    return until(terminal, "Plan for approval") + until(terminal, "Approve this plan?")


PLAN = "[y/e/c/s/N]"
ALLOW = "[y/a/p/u/N]"


def test_plan_then_approve_writes_after_build_mode_asks(lesson, workspace):
    lesson.sendline("/plan add a greeting file")
    before_review = next_review(lesson)
    assert "EnterPlanMode(" not in before_review, "plan mode was on already: the lesson noticed"
    assert before_review.count("denied by plan-mode-guard") == 2
    assert not (workspace / FILE).exists()
    answer(lesson, PLAN, "y")
    asked = until(lesson, "Allow?")
    assert "build mode" in asked and "Write(stepagent_lesson.txt)" in asked
    # the status under the question: the mode, then the plan's first step in its active form
    lesson.child.expect(r"mode: build +· +todos 0/2: Creating stepagent_lesson\.txt +· +model: .* +· +context \d+%")
    answer(lesson, ALLOW, "y")
    finished = until(lesson, "›")
    assert "Created stepagent_lesson.txt: 1 line" in finished and "Read 1 line" in finished
    assert (workspace / FILE).read_text().startswith("Hello from stepagent")
    assert list((workspace / ".stepagent" / "plans").glob("plan-*.md"))
    assert "Three time scales" in finished
    lesson.sendline("/todos")
    listed = until(lesson, "☑ Read the file back to check its content")
    assert "☑ Create stepagent_lesson.txt with a one-line greeting" in listed


def test_feedback_gets_a_revised_plan_then_e_writes_without_a_question(lesson, workspace):
    lesson.sendline("add a greeting file")
    first = next_review(lesson)
    assert "EnterPlanMode(" in first, "build mode: the lesson enters plan mode itself"
    answer(lesson, PLAN, "greet Ada by name")
    revised = next_review(lesson)
    assert "Approved" not in revised and "Write(" not in revised, "no write after feedback"
    assert "greet Ada by name" in revised.split("Plan for approval")[-1], "the new plan heeds it"
    answer(lesson, PLAN, "e")
    finished = until(lesson, "›")
    assert "Allow?" not in finished, "edit mode accepts the edit without asking"
    assert "build mode" not in finished.split("Write(")[0], "the narration says edit mode, not build"
    assert "edit mode" in finished.split("Write(")[0]
    assert "greet Ada by name" in (workspace / FILE).read_text()


def test_reject_waits_and_ctrl_c_resumes_and_neither_writes(lesson, workspace):
    lesson.sendline("/plan add a greeting file")
    next_review(lesson)
    answer(lesson, PLAN, "n")
    rejected = until(lesson, "›")
    assert "Plan rejected" in rejected and "Write(" not in rejected.split("Plan rejected")[-1]
    lesson.sendline("make it cheerful")
    again = next_review(lesson)
    assert "make it cheerful" in again.split("Plan for approval")[-1]
    lesson.child.sendintr()
    cancelled = until(lesson, "›")
    assert "Turn cancelled" in cancelled
    lesson.sendline("go on")
    resumed = next_review(lesson)
    assert "Ctrl-C" in resumed and "Plan for approval" in resumed
    assert "make it cheerful" in resumed.split("Plan for approval")[-1], "the earlier note is kept"
    assert not (workspace / FILE).exists() and not (workspace / ".stepagent").exists()


def test_model_and_compact_say_what_the_offline_lesson_model_can_do(lesson):
    def said(until_text: str) -> str:
        return " ".join(until(lesson, until_text).split())

    lesson.sendline("/model")
    assert "no other models to list" in said("--model")
    lesson.sendline("/model gpt-4o")
    assert "cannot switch to gpt-4o" in said("--model")
    lesson.sendline("/model")
    assert "Model: offline lesson model" in said("--model"), "the name did not change"
    lesson.sendline("/compact")
    shown = said("README.md.")
    assert "Nothing was compacted" in shown and "cannot write a summary" in shown
    assert "lesson script" not in shown and "Summary" not in shown


def test_c_builds_the_plan_in_a_fresh_conversation_and_a_second_run_starts_without_todos(
        lesson, workspace):
    lesson.sendline("/plan add a greeting file")
    next_review(lesson)
    answer(lesson, PLAN, "greet Ada by name")
    next_review(lesson)
    answer(lesson, PLAN, "c")
    handed = until(lesson, "Allow?")
    old = re.search(r"kept as (sess_[0-9a-f]+)", handed).group(1)
    assert "EnterPlanMode(" not in handed and "Plan for approval" not in handed, "no replay"
    assert "Write(stepagent_lesson.txt)" in handed
    answer(lesson, ALLOW, "y")
    finished = until(lesson, "›")
    assert "Created stepagent_lesson.txt" in finished and "Three time scales" in finished
    assert "greet Ada by name" in (workspace / FILE).read_text(), "built from the plan handed over"
    lesson.sendline("/resume")
    assert old in until(lesson, "Resume one with")
    lesson.sendline("/lesson")
    until(lesson, "The lesson starts again")
    lesson.sendline("/plan add a greeting file")
    next_review(lesson)
    assert "todos" not in until(lesson, "model:"), "the last run's todos are not this one's"
