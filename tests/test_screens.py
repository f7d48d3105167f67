"""The README's screenshots are what the console draws today (step42_plan_mode/screens.py), and its
picture of a session page is of the lesson's page as it is exported today (step42_plan_mode/page_screen.py)."""

from __future__ import annotations

import shutil
from functools import cache

import pytest

from step42_plan_mode import page_screen, screens
from tests.page_kit import share_differing

COMMITTED = sorted(path.name for path in screens.FOLDER.glob("*.svg"))
REDRAW_PAGE = "run .venv/bin/python -m step42_plan_mode.page_screen and commit the picture"


@cache
def drawn() -> dict[str, str]:
    """The screenshots as the console draws them now, drawn once by the worker that asks first."""
    return screens.screens()


@pytest.mark.parametrize("name", COMMITTED)
def test_the_committed_screenshot_is_what_the_console_draws_now(name):
    committed = (screens.FOLDER / name).read_text(encoding="utf-8")
    assert committed == drawn()[name], (f"{name} is stale: run .venv/bin/python -m "
                                        "step42_plan_mode.screens and commit the pictures")


def test_the_screenshots_show_each_question_as_it_is_asked():
    assert sorted(drawn()) == COMMITTED, "every screenshot drawn is committed, and only those"
    assert "Allow?&#160;[y/a/p/u/N]" in drawn()["edit-approval.svg"]
    assert "Approve&#160;this&#160;plan?&#160;[y/e/c/s/N]" in drawn()["plan-review.svg"]


@cache
def lesson_page() -> str:
    return page_screen.lesson_page()


def test_the_page_picture_was_drawn_from_the_lesson_page_exported_today():
    recorded = page_screen.recorded_digest(page_screen.PICTURE.read_bytes())
    assert recorded == page_screen.digest(lesson_page()), f"session-page.png is stale: {REDRAW_PAGE}"


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed (.ci/run installs it)")
def test_the_page_picture_is_what_chromium_draws_of_it_now(chromium):
    committed = page_screen.PICTURE.read_bytes()
    with chromium.sized(*page_screen.SIZE) as browser:
        share = share_differing(browser, committed, page_screen.draw(lesson_page(), browser))
    assert share <= 0.005, f"{share:.1%} of the picture's pixels differ: {REDRAW_PAGE}"
