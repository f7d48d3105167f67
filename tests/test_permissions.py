"""Permission modes outside plan: who is asked, and what a "no" does."""

from __future__ import annotations

import pytest

from tests.harness import Session, call, turn
from ui.modes import cycle

pytestmark = pytest.mark.usefixtures("on_each_system")  # tests/test_without_linux.py

WRITE = call("Write", file_path="a.txt", content="a")
UNSAFE_BASH = call("Bash", command="touch b.txt")
SAFE_BASH = call("Bash", command="ls")


def test_build_asks_before_write_and_unsafe_bash_but_not_safe_bash(workspace):
    session = Session(workspace, [turn("", WRITE, UNSAFE_BASH, SAFE_BASH), turn("ok")],
                      permission_answers=[True, False])
    session.run()
    assert len(session.questions) == 2
    assert (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()
    assert "declined" in session.tool_results()[1]
    assert [(d.tool, d.decision, d.asked) for d in session.decisions] == [
        ("Write", "allow", True), ("Bash", "deny", True), ("Bash", "allow", False)]


def test_edit_mode_writes_without_asking_but_asks_for_bash(workspace):
    session = Session(workspace, [turn("", WRITE, UNSAFE_BASH), turn("ok")], mode="edit",
                      permission_answers=[True])
    session.run()
    assert len(session.questions) == 1 and "Bash" in session.questions[0]
    assert (workspace / "a.txt").exists() and (workspace / "b.txt").exists()


def test_yolo_asks_nothing(workspace):
    session = Session(workspace, [turn("", WRITE, UNSAFE_BASH), turn("ok")], mode="yolo")
    session.run()
    assert session.questions == []
    assert (workspace / "a.txt").exists() and (workspace / "b.txt").exists()


def test_exit_plan_mode_reaches_the_user_in_yolo(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan="p")), turn("ok")],
                      mode="yolo", plan_answers=["y"])
    session.state.enter_plan_mode("test")
    session.run()
    assert session.shown_plans == ["p\n"] and session.questions == []


def test_shift_tab_cycles_plan_build_edit_yolo(workspace):
    session = Session(workspace, [])
    seen = []
    for _ in range(5):
        cycle(session.state, "Shift+Tab")
        seen.append(session.state.mode_label)
    assert seen == ["edit", "yolo", "plan", "build", "edit"]
