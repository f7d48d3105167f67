"""The offline lesson follows the user: each answer at the plan review leads somewhere else,
and what the lesson says matches what happened (files, results, the mode)."""

from __future__ import annotations

import json

from agent.approval import PermissionAnswer
from step42_plan_mode.lesson_model import load_lesson
from tests.harness import Session
from tools.todos import todos_of
from ui.modes import select

FILE = "stepagent_lesson.txt"


CTRL_C = "<Ctrl-C>"


class Answers(list):
    """The user's answers in order; CTRL_C presses Ctrl-C at that question."""

    def pop(self, index=-1):
        answer = super().pop(index)
        if answer == CTRL_C:
            raise KeyboardInterrupt
        return answer


def lesson(workspace, plan_answers=(), permission_answers=(), planning=False) -> Session:
    session = Session(workspace, [], Answers(plan_answers), Answers(permission_answers))
    session.agent.model = session.model = load_lesson()
    if planning:
        session.state.enter_plan_mode("/plan")
    return session


def said(session: Session) -> str:
    return "\n".join(m["content"] or "" for m in session.agent.messages if m["role"] == "assistant")


def called(session: Session) -> list[str]:
    return [c["function"]["name"] for m in session.agent.messages if m["role"] == "assistant"
            for c in m.get("tool_calls") or []]


def test_approve_plans_first_then_writes_after_asking_in_build_mode(workspace):
    session = lesson(workspace, ["y"], [True])
    outcome = session.run("add a greeting file")
    assert outcome.ending == "answered"
    assert session.model.steps_taken == ["start", "try_early", "present", "write_build", "check",
                                         "tick_off", "done"]
    assert (workspace / FILE).read_text().startswith("Hello from stepagent")
    assert len(session.questions) == 1, "build mode asked before the Write"
    assert [d.decision for d in session.decisions if d.tool == "Write"] == ["deny", "allow"]


def test_plan_mode_already_on_is_noticed_and_not_entered_again(workspace):
    session = lesson(workspace, ["y"], [True], planning=True)
    session.run("add a greeting file")
    assert session.model.steps_taken[0] == "start_planning"
    assert "EnterPlanMode" not in called(session)
    assert (workspace / FILE).exists()


def test_e_approves_into_edit_mode_and_the_write_runs_without_a_question(workspace):
    session = lesson(workspace, ["e"])
    session.run("add a greeting file")
    assert "write_edit" in session.model.steps_taken
    assert session.questions == [] and (workspace / FILE).exists()
    approval = next(r for r in session.tool_results() if r.startswith("The user approved"))
    assert "You are in edit mode" in approval, "the model is told the mode it carries on in"


def test_feedback_gets_a_revised_plan_and_a_new_review_then_the_file_carries_it(workspace):
    session = lesson(workspace, ["greet Ada by name", "y"], [True])
    session.run("add a greeting file")
    assert session.model.steps_taken[:4] == ["start", "try_early", "present", "revise"]
    assert len(session.shown_plans) == 2
    assert "greet Ada by name" not in session.shown_plans[0]
    assert "greet Ada by name" in session.shown_plans[1]
    assert "greet Ada by name" in (workspace / FILE).read_text()


def test_reject_ends_the_turn_and_the_next_message_gets_a_plan_that_heeds_it(workspace):
    session = lesson(workspace, ["n"])
    outcome = session.run("add a greeting file")
    assert outcome.ending == "ended_by_tool" and outcome.tool == "ExitPlanMode"
    assert session.model.steps_taken[-1] == "present" and not (workspace / FILE).exists()
    assert session.state.plan_mode
    session.plan_answers.append("y")
    session.permission_answers.append(True)
    session.run("call the greeting cheerful")
    assert session.model.steps_taken[3:5] == ["after_reject", "write_build"]
    assert "call the greeting cheerful" in session.shown_plans[1]
    assert (workspace / FILE).exists()


def test_ctrl_c_at_the_plan_question_then_a_message_presents_the_plan_again(workspace):
    session = lesson(workspace, [CTRL_C, "n"])
    assert session.run("add a greeting file").ending == "interrupted"
    assert session.state.plan_mode and session.model.steps_taken[-1] == "present"
    session.run("go on")
    assert session.model.steps_taken[-1] == "after_interrupt"
    assert "go on" not in session.shown_plans[-1], "a word to carry on is not a note on the plan"


def test_a_declined_write_is_said_and_nothing_written_and_go_on_asks_again(workspace):
    session = lesson(workspace, ["y"], [PermissionAnswer(False, feedback="not in this folder")])
    session.run("add a greeting file")
    assert session.model.steps_taken[-3:] == ["write_build", "undo_todo", "write_declined"]
    assert [todo.status for todo in todos_of(session.state)] == ["pending", "pending"], "none in progress"
    assert "not in this folder" in said(session).splitlines()[-1]
    assert not (workspace / FILE).exists()
    session.permission_answers.append(True)
    session.run("go on")
    assert session.model.steps_taken[-4:] == ["write_again", "check", "tick_off", "done"]
    assert (workspace / FILE).exists()


def test_leaving_plan_mode_yourself_writes_without_a_plan_and_says_none_was_saved(workspace):
    session = lesson(workspace, ["n"], [True])
    session.run("add a greeting file")
    select(session.state, "build", "/mode build")
    session.run("just do it")
    assert session.model.steps_taken[-3:] == ["write_without_plan", "check", "done_without_plan"]
    assert not (workspace / ".stepagent" / "plans").exists()


def test_after_the_end_the_lesson_says_it_is_over(workspace):
    session = lesson(workspace, ["y"], [True])
    session.run("add a greeting file")
    session.run("what now?")
    assert session.model.steps_taken[-1] == "over"
    assert called(session).count("Write") == 2, "nothing more was done"


def test_slash_lesson_starts_the_lesson_again_from_a_fresh_conversation(workspace, tmp_path):
    from session.store import SessionStore
    from tests.harness import journaled
    from ui.slash import run_slash_command

    session, live = journaled(workspace, SessionStore(tmp_path / "s.db"), [], plan_answers=["e"])
    session.agent.model = session.model = load_lesson()
    session.run("add a greeting file")
    assert session.model.steps_taken[-1] == "done" and session.state.mode_label == "edit"
    first_id = session.state.session_id
    outcome = run_slash_command("/lesson", live)
    assert not outcome.is_error and first_id in outcome.message
    assert session.agent.messages == [] and session.state.mode_label == "build"
    session.permission_answers.append(True)
    session.plan_answers.append("y")
    session.run("again")
    assert session.model.steps_taken[-7:] == ["start", "try_early", "present", "write_build", "check",
                                              "tick_off", "done"]


def test_slash_lesson_with_a_real_model_says_how_to_take_the_lesson(workspace, tmp_path):
    from session.store import SessionStore
    from tests.harness import journaled
    from ui.slash import run_slash_command

    session, live = journaled(workspace, SessionStore(tmp_path / "s.db"), [{"text": "hi"}])
    session.run("hello")
    outcome = run_slash_command("/lesson", live)
    assert outcome.is_error and "OPENAI_API_KEY" in outcome.message
    assert len(session.agent.messages) == 2, "the conversation is left as it is"


def test_ctrl_c_at_the_write_question_then_a_message_asks_again(workspace):
    session = lesson(workspace, ["y"], [CTRL_C, True])
    assert session.run("add a greeting file").ending == "interrupted"
    assert not (workspace / FILE).exists() and not session.state.plan_mode
    session.run("go on")
    assert session.model.steps_taken[-4:] == ["write_again", "check", "tick_off", "done"]
    assert (workspace / FILE).exists()


def test_slash_lesson_forgets_the_dont_ask_again_rules_so_build_mode_asks_again(workspace, tmp_path):
    from session.store import SessionStore
    from tests.harness import journaled
    from ui.slash import run_slash_command

    session, live = journaled(workspace, SessionStore(tmp_path / "s.db"), [], plan_answers=["y"],
                              permission_answers=[PermissionAnswer(True, remember=True)])
    session.agent.model = session.model = load_lesson()
    session.run("add a greeting file")
    assert [r.tool for r in session.permission_requests] == ["Write"]
    outcome = run_slash_command("/lesson", live)
    assert "Write" in outcome.message, "the user is told which rule was forgotten"
    session.plan_answers.append("y")
    session.permission_answers.append(True)
    session.run("again")
    assert [r.tool for r in session.permission_requests] == ["Write", "Write"], \
        "the lesson says build mode asks before each change: it does"


def test_an_approved_plan_becomes_the_todo_list_and_every_step_is_ticked_off(workspace):
    session = lesson(workspace, ["this is my note", "y"], [True])
    session.run("add a greeting file")
    todos = todos_of(session.state)
    assert len(todos) == 3 and all(todo.status == "completed" for todo in todos), "create, check, the note"
    assert all(todo.active_form for todo in todos), "each step has its active form"
    written = [json.loads(c["function"]["arguments"])["todos"] for m in session.agent.messages
               if m["role"] == "assistant" for c in m.get("tool_calls") or [] if c["function"]["name"] == "TodoWrite"]
    assert [[item["status"] for item in todos][:2] for todos in written] == [
        ["in_progress", "pending"], ["completed", "in_progress"], ["completed", "completed"]]
    assert (workspace / FILE).read_text().count("this is my note") == 1


def test_without_a_plan_or_without_todowrite_the_lesson_writes_no_todos(workspace):
    session = lesson(workspace, [], [True], planning=False)
    session.state.enter_plan_mode("/plan")
    session.run("add a greeting file")
    select(session.state, "build", "/mode")
    session.run("go on")
    assert (workspace / FILE).exists() and todos_of(session.state) == ()
    assert "TodoWrite" not in called(session)
    (workspace / FILE).unlink()
    offline = lesson(workspace, ["y"], [True])
    del offline.agent.executor.tools["TodoWrite"]
    offline.run("add a greeting file")
    assert "TodoWrite" not in called(offline) and offline.model.steps_taken[-1] == "done"


def test_a_file_already_there_is_read_while_planning_and_kept_when_the_plan_is_built(workspace):
    (workspace / FILE).write_text("Your note on the plan: an earlier one\n")
    session = lesson(workspace, ["y"], [True])
    session.run("add a greeting file")
    written = (workspace / FILE).read_text()
    assert written.startswith("Your note on the plan: an earlier one\nHello from stepagent"), written
    assert session.model.steps_taken[-1] == "done"


def test_a_step_the_user_added_to_the_plan_is_on_the_todo_list(workspace, monkeypatch):
    from tests import harness
    from tools.plan_mode import PlanReview

    session = lesson(workspace, ["edited"], [True])
    monkeypatch.setattr(harness, "plan_review", lambda answer: PlanReview(  # Ctrl+G, then y
        "approve", plan=session.shown_plans[-1].replace("\nNo other", "3. Add a haiku\n\nNo other")))
    session.run("add a greeting file")
    todos = todos_of(session.state)
    assert len(todos) == 3 and "Add a haiku" in todos[2].content
    assert all(todo.status == "completed" for todo in todos)
    assert "Add a haiku" in (workspace / FILE).read_text()


def test_go_on_after_a_rejection_is_not_a_note_on_the_plan(workspace):
    session = lesson(workspace, ["n", "y"], [True])
    session.run("add a greeting file")
    session.run("go on")
    assert session.shown_plans[1] == session.shown_plans[0]
    assert "go on" not in (workspace / FILE).read_text()


def test_c_builds_in_a_fresh_conversation_and_still_keeps_the_file_already_there(workspace):
    (workspace / FILE).write_text("kept\n")
    session = lesson(workspace, ["c"], [True])
    session.run("add a greeting file")
    approval = session.agent.messages[-1]["content"]
    session.agent.messages = []  # as ui/repl.py's _build_fresh does
    session.run(approval)
    assert session.model.steps_taken[3:5] == ["reread", "write_build"]
    assert (workspace / FILE).read_text().startswith("kept\nHello from stepagent")
