"""AskUserQuestion's auto-continue in the real REPL (--ask-timeout): the countdown shows
and counts down, then the model hears that nobody answered; a key stops it for good;
a resumed session shows the same deadline.

These tests wait for a real countdown, so they keep it short: --ask-timeout 2 is a
silent grace of 0.4 s and a visible countdown of 1.6 s (the flag's own arithmetic), time
enough to see the seconds go down (2, then 1 for the last second) and to press a key
before the deadline.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from session.store import SessionStore
from tests.terminal import Screen, Terminal

QUESTION = {"question": "Which colour?", "header": "Colour",
            "options": [{"label": "Blue", "description": "calm"},
                        {"label": "Red", "description": "loud"}]}
ASK = {"text": "", "tool_calls": [{"name": "AskUserQuestion", "arguments": {"questions": [QUESTION]}}]}
SCRIPT = {"turns": [ASK, {"text": "carrying on"}]}
TIMEOUT = 2.0
VISIBLE = TIMEOUT * 4 / 5  # from the line's first showing to the deadline
COUNTING = re.compile(r"No answer by (\d\d:\d\d:\d\d): continuing without answers in (\d+) s")
NONE_ANSWERED = "The user answered none of the questions"

pytestmark = pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is not installed")


def tool_results(workspace: Path) -> list[str]:
    store = SessionStore(Path(os.environ["STEPAGENT_HOME"]) / "sessions.db")
    return [e.payload["content"] for info in store.sessions(workspace) for e in store.entries(info.id)
            if e.kind == "message" and e.payload.get("role") == "tool"]


def script(tmp_path: Path, name: str, body: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return path


def asked_with_a_countdown(workspace: Path, tmp_path: Path) -> Screen:
    """The REPL in tmux with a short auto-continue, after the model has asked its question."""
    screen = Screen(tmp_path, workspace, "--script", str(script(tmp_path, "s.json", SCRIPT)),
                    "--ask-timeout", str(TIMEOUT))
    try:
        screen.wait_for("›")
        screen.keys("ask me", "Enter")
    except BaseException:
        screen.close()
        raise
    return screen


def test_the_countdown_shows_counts_down_and_resolves_with_no_answers(workspace, tmp_path):
    screen = asked_with_a_countdown(workspace, tmp_path)
    try:
        screen.wait_for("Enter skips")
        seconds_seen = set()

        def ended(shown: str) -> str | None:
            seconds_seen.update(int(left) for _, left in COUNTING.findall(shown))
            return shown if "continuing without answers." in shown else None

        screen.wait_until(ended, "the countdown's end")
        screen.wait_for("carrying on")
    finally:
        screen.close()
    assert len(seconds_seen) >= 2, f"the seconds left were shown and went down: {seconds_seen}"
    [result] = tool_results(workspace)
    assert NONE_ANSWERED in result and "deadline" in result


def test_any_key_stops_the_countdown_for_good(workspace, tmp_path):
    screen = asked_with_a_countdown(workspace, tmp_path)
    try:
        screen.wait_for("continuing without answers in")
        visible = time.monotonic()
        screen.keys("2")
        screen.wait_for("Countdown stopped")
        time.sleep(max(0.0, visible + VISIBLE + 1 - time.monotonic()))  # past the deadline, to see it hold
        assert "continuing without answers." not in screen.text()
        assert "carrying on" not in screen.text()
        screen.keys("Enter")
        screen.wait_for("carrying on")
    finally:
        screen.close()
    [result] = tool_results(workspace)
    assert "Red" in result and NONE_ANSWERED not in result


def test_a_resumed_session_shows_the_same_deadline(workspace, tmp_path):
    """The second run's own timeout is far off: only the first run's deadline can end its wait
    (at once if it passed while the second was starting)."""
    first = Terminal.start(workspace, "--script", str(script(tmp_path, "s.json", SCRIPT)),
                           "--ask-timeout", "2")
    try:
        first.expect("›")
        first.sendline("ask me")
        first.expect(r"No answer by (\d\d:\d\d:\d\d)")
        deadline = first.child.match.group(1)
    finally:
        first.close()
    again = script(tmp_path, "again.json", {"turns": [ASK, {"text": "carrying on"}]})
    second = Terminal.start(workspace, "--script", str(again), "--continue", "--ask-timeout", "600")
    try:
        second.expect("›")
        second.sendline("ask again")
        second.expect_text(f"No answer by {deadline}: continuing without answers.")
        second.expect("carrying on")
    finally:
        second.close()
    results = tool_results(workspace)
    assert NONE_ANSWERED in results[-1]
