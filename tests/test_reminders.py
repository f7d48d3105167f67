"""Reminder cadences, counted exactly."""

from __future__ import annotations

from agent.history import reminder_kind
from tests.harness import Session, call, turn
from tools.plan_mode import RULES, WORKFLOW


def kinds(session: Session) -> list[str]:
    return [reminder_kind(m) for m in session.agent.messages if reminder_kind(m)]


def reminders_of(session: Session, kind: str) -> list[str]:
    return [m["content"] for m in session.agent.messages if reminder_kind(m) == kind]


def test_todo_reminder_after_ten_assistant_messages_then_every_ten(workspace):
    session = Session(workspace, [turn("", call("Glob", pattern="*"))] * 24 + [turn("done")])
    session.run()
    positions = [i for i, m in enumerate(session.agent.messages) if reminder_kind(m) == "todo"]
    assert len(positions) == 2
    before_first = session.agent.messages[:positions[0]]
    assert sum(m["role"] == "assistant" for m in before_first) == 10
    between = session.agent.messages[positions[0]:positions[1]]
    assert sum(m["role"] == "assistant" for m in between) == 10


def test_todowrite_resets_the_todo_count_and_the_reminder_lists_the_todos(workspace):
    todo = call("TodoWrite", todos=[{"content": "Ship it", "status": "pending"}])
    session = Session(workspace, [turn("", call("Glob", pattern="*"))] * 8 + [turn("", todo)] +
                      [turn("", call("Glob", pattern="*"))] * 12 + [turn("done")])
    session.run()
    texts = reminders_of(session, "todo")
    assert len(texts) == 1
    assert "1. [pending] Ship it" in texts[0]


def test_no_todo_reminder_without_the_todowrite_tool(workspace):
    session = Session(workspace, [turn("", call("Glob", pattern="*"))] * 15 + [turn("done")])
    del session.executor.tools["TodoWrite"]
    session.run()
    assert "todo" not in kinds(session)


def test_plan_reminder_on_entry_then_every_five_user_messages_short_as_the_prompt_has_the_rules(workspace):
    session = Session(workspace, [turn(f"answer {n}") for n in range(30)], mode="plan")
    sent_at = []
    for number in range(1, 31):
        before = len(reminders_of(session, "plan-mode"))
        session.run(f"message {number}")
        if len(reminders_of(session, "plan-mode")) > before:
            sent_at.append(number)
    assert sent_at == [1, 6, 11, 16, 21, 26]
    texts = reminders_of(session, "plan-mode")
    assert not [text for text in texts if WORKFLOW in text or RULES in text]
    assert WORKFLOW in session.model.requests[-1][0]["content"]


def test_plan_ended_reminder_once_after_approval(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan="p")), turn("a"), turn("b")],
                      mode="plan", plan_answers=["y"])
    session.run()
    session.run("more")
    assert kinds(session).count("plan-ended") == 1


def test_reentering_plan_mode_points_at_the_saved_plan(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan="the old plan")), turn("ok"),
                                  turn("", call("EnterPlanMode")), turn("planning again")],
                      mode="plan", plan_answers=["y"])
    session.run()
    session.run("new idea")
    texts = reminders_of(session, "plan-mode")
    assert len(texts) == 2
    assert "saved at" not in texts[0]
    assert ".stepagent/plans/plan-sess_" in texts[1]
