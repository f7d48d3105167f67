"""The README's screenshots are what the console draws today (step42_plan_mode/screens.py)."""

from __future__ import annotations

import pytest

from step42_plan_mode import screens

DRAWN = screens.screens()


@pytest.mark.parametrize("name", sorted(DRAWN))
def test_the_committed_screenshot_is_what_the_console_draws_now(name):
    committed = (screens.FOLDER / name).read_text(encoding="utf-8")
    assert committed == DRAWN[name], (f"{name} is stale: run .venv/bin/python -m "
                                      "step42_plan_mode.screens and commit the pictures")


def test_the_screenshots_show_each_question_as_it_is_asked():
    assert "Allow?&#160;[y/n]" in DRAWN["edit-approval.svg"]
    assert "Approve&#160;this&#160;plan?&#160;[y/e/n]" in DRAWN["plan-review.svg"]
