"""The lesson and the user's rules: a deny rule that blocks the lesson's Write is handled as a `n`
(the Write did not run, its todo goes back to pending, nothing is ticked), and a rule kept with
`p` during the run survives /lesson as the settings file's own rules do (/permissions lists it)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.test_lesson_pty import ALLOW, FILE, PLAN, answer, lesson, next_review, until  # noqa: F401


def test_a_write_a_deny_rule_blocks_is_not_checked_or_ticked(workspace: Path):
    home = Path(os.environ["STEPAGENT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"permissions": {"deny": [f"Write({FILE})"]}}))
    from tests.terminal import Terminal

    terminal = Terminal.start(workspace)
    try:
        terminal.expect("›")
        terminal.sendline("/plan add a greeting file")
        terminal.expect_text("Approve this plan?")
        terminal.sendline("y")
        terminal.expect_text("did not run")
        terminal.expect_text("nothing was written")
        terminal.expect("›")
        shown = terminal.child.before
        terminal.sendline("/todos")
        terminal.expect_text("Read the file back")
        listed = terminal.child.before
    finally:
        terminal.close()
    assert "Checking the result" not in shown and "tick off" not in shown
    assert not (workspace / FILE).exists()
    assert "☑" not in listed and "Create stepagent_lesson.txt" in listed


def test_a_rule_kept_with_p_survives_lesson(lesson, workspace: Path):
    lesson.sendline("/plan add a greeting file")
    next_review(lesson)
    answer(lesson, PLAN, "y")
    until(lesson, "Allow?")
    answer(lesson, ALLOW, "p")
    until(lesson, "Three time scales")
    lesson.sendline("/lesson")
    restarted = " ".join((until(lesson, "The lesson starts again") + until(lesson, "›")).split())
    assert "asks again for" not in restarted
    assert "The todo list is empty." in restarted and "Todo list is empty" not in restarted
    lesson.sendline("/permissions")
    listed = " ".join(until(lesson, "your answer, for this project").split())
    assert "allow Write your answer" in listed and "No permission rules" not in listed
