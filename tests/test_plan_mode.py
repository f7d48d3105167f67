"""Plan mode end to end on a scripted model: the three lines of defence and their outcomes."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from agent.events import ModeChanged, ToolFinished
from agent.prompt import PromptContext, plan_mode_section
from agent.subagents import planning_section
from session.plan_revisions import saved_plan
from state import AppState, PermissionMode
from tests.harness import Session, assert_valid_history, call, turn
from tools.plan_mode import REJECTED, RULES, WORKFLOW, PlanReview
from tools.workspace import PLANS_FOLDER, OutsideWorkspace, save_plan, write_inside
from ui.modes import select
from ui.plan_review import plan_review

pytestmark = pytest.mark.usefixtures("on_each_system")  # tests/test_without_linux.py

PLAN = "1. Create hello.txt\n2. Check it"
DESIGN_TOOL_NAMES = {"Read", "Write", "Edit", "Glob", "Grep", "Bash", "EnterPlanMode", "ExitPlanMode",
                     "TodoWrite", "TodoRead", "AskUserQuestion", "ListModels", "ReadSessionContext",
                     "Agent", "Remember", "Forget"}


def test_plan_mode_denies_write_allows_read_and_nothing_changes(workspace):
    (workspace / "notes.md").write_text("hello\n")
    session = Session(workspace, [
        turn("", call("Read", file_path="notes.md"), call("Write", file_path="x.txt", content="x"),
             call("Edit", file_path="notes.md", old_string="hello", new_string="bye")),
        turn("done")], mode="plan")
    session.run()
    read, write, edit = session.tool_results()
    assert "hello" in read
    assert "plan-mode-guard" in write and "ExitPlanMode" in write
    assert "plan-mode-guard" in edit
    assert not (workspace / "x.txt").exists()
    assert (workspace / "notes.md").read_text() == "hello\n"


def test_a_planning_sub_agent_is_not_told_of_an_exit_it_does_not_have():
    state = AppState()
    state.enter_plan_mode("test")
    main = plan_mode_section(PromptContext(state, Path("/w"), ("Read", "ExitPlanMode")))
    sub = planning_section(PromptContext(state, Path("/w"), ("Read",)))
    assert main and "ExitPlanMode" in main, "the main agent is told its way out"
    assert sub and "ExitPlanMode" not in sub and "Plan Mode" in sub


def test_each_plan_review_shows_its_own_line_and_an_approval_names_the_mode(workspace):
    shown = {}
    for answer in ("y", "e", "n", "please add tests"):
        session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN)), turn("ok")],
                          mode="plan", plan_answers=[answer])
        finished: list[ToolFinished] = []
        session.state.events.subscribe(lambda e: finished.append(e) if isinstance(e, ToolFinished) else None)
        session.run()
        shown[answer] = finished[0].summary
    assert all(shown.values()) and len(set(shown.values())) == 4, shown
    assert "build" in shown["y"] and "edit" in shown["e"]


def test_plan_mode_section_comes_first_in_the_system_prompt(workspace):
    session = Session(workspace, [turn("a"), turn("b")], mode="plan")
    session.run()
    system = session.last_request()[0]
    assert system["role"] == "system" and system["content"].startswith("# Plan Mode (ACTIVE)")
    select(session.state, "build", "test")
    session.run()
    assert "Plan Mode" not in session.last_request()[0]["content"]


def test_approve_saves_plan_leaves_plan_mode_and_write_then_runs(workspace):
    session = Session(workspace, [
        turn("", call("Write", file_path="hello.txt", content="early")),
        turn("", call("ExitPlanMode", plan=PLAN)),
        turn("", call("Write", file_path="hello.txt", content="hi")),
        turn("done")], mode="plan", plan_answers=["y"], permission_answers=[True])
    select(session.state, "edit", "test")
    session.state.enter_plan_mode("test")
    outcome = session.run()
    assert outcome.ending == "answered"
    assert (workspace / "hello.txt").read_text() == "hi"
    saved = saved_plan(workspace, session.state.session_id)
    assert saved is not None
    assert saved.read_text().strip() == PLAN
    approved = session.tool_results()[1]
    assert str(saved) in approved and PLAN in approved
    assert not session.state.plan_mode
    assert session.permission.value == "edit", "leaving plan returns to the mode in force before"
    assert session.questions == [], "edit mode writes without asking"


def test_feedback_keeps_plan_mode_and_arrives_as_a_user_message(workspace):
    session = Session(workspace, [
        turn("", call("ExitPlanMode", plan=PLAN)),
        turn("revised", call("ExitPlanMode", plan=PLAN + "\n3. Add tests")),
        turn("ok")], mode="plan", plan_answers=["please add tests", "y"])
    session.run()
    first_result = session.model.requests[1][-2]
    feedback = session.model.requests[1][-1]
    assert first_result["role"] == "tool" and "not approve" in first_result["content"]
    assert feedback == {"role": "user", "content": "please add tests"}
    assert len(session.shown_plans) == 2
    assert not session.state.plan_mode


def test_reject_ends_the_turn_and_plan_mode_stays_on(workspace):
    session = Session(workspace, [
        turn("", call("ExitPlanMode", plan=PLAN), call("Write", file_path="a.txt", content="a")),
        turn("never reached")], mode="plan", plan_answers=["n"])
    outcome = session.run()
    assert outcome.ending == "ended_by_tool"
    assert len(session.model.requests) == 1, "the model is not asked again after a rejection"
    assert session.state.plan_mode
    assert not (workspace / ".stepagent").exists(), "no plan file for a rejected plan"
    assert_valid_history(session.agent.messages)


def test_exit_plan_mode_outside_plan_mode_is_denied(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN)), turn("ok")],
                      mode="yolo")
    session.run()
    assert "plan mode is not active" in session.tool_results()[0]
    assert session.shown_plans == []


def test_enter_plan_mode_needs_no_approval_and_turns_the_guard_on(workspace):
    session = Session(workspace, [
        turn("", call("EnterPlanMode"), call("Write", file_path="a.txt", content="a")),
        turn("ok")])
    session.run()
    assert session.state.plan_mode and session.questions == []
    assert not (workspace / "a.txt").exists()


def test_user_leaving_plan_by_command_is_told_to_the_model_once(workspace):
    session = Session(workspace, [turn("a"), turn("b"), turn("c")], mode="plan")
    session.run()
    select(session.state, "build", "/mode build")
    session.run()
    session.run()
    reminders = [m for m in session.agent.messages if "Plan mode has ended" in str(m["content"])]
    assert len(reminders) == 1
    assert reminders[0] in session.model.requests[1]


def test_yolo_does_not_lift_plan_mode(workspace):
    session = Session(workspace, [turn("", call("Bash", command="touch made.txt")), turn("ok")],
                      mode="yolo")
    session.state.enter_plan_mode("test")
    session.run()
    assert "plan-mode-guard" in session.tool_results()[0]
    assert not (workspace / "made.txt").exists()


def test_failure_mode_1_prompt_is_identical_after_repeated_enter_and_exit(workspace):
    session = Session(workspace, [turn(str(i)) for i in range(12)])
    session.run()
    start = session.agent.system_prompt()
    for _ in range(5):
        session.state.enter_plan_mode("test")
        session.run()
        session.state.leave_plan_mode("test")
        session.run()
    assert session.agent.system_prompt() == start
    assert session.last_request()[0]["content"] == start
    assert session.agent.system_prompt().count("Plan Mode") == 0


def test_failure_mode_3_a_yes_cannot_override_a_plan_mode_denial(workspace):
    session = Session(workspace, [
        turn("", call("Write", file_path="a.txt", content="a"), call("Bash", command="rm -rf x")),
        turn("ok")], mode="plan", permission_answers=[True, True])
    (workspace / "x").mkdir()
    session.run()
    assert session.questions == [], "plan-mode denials are never turned into questions"
    assert not (workspace / "a.txt").exists() and (workspace / "x").exists()
    assert all(d.hook == "plan-mode-guard" for d in session.decisions)


def test_failure_mode_4_missing_plans_folder_is_created(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN)), turn("ok")],
                      mode="plan", plan_answers=["y"])
    assert not (workspace / ".stepagent").exists()
    session.run()
    assert saved_plan(workspace, session.state.session_id) is not None


def test_failure_mode_4_unwritable_plans_folder_still_leaves_plan_mode(workspace):
    (workspace / ".stepagent").write_text("a file where the folder should be")
    session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN)), turn("ok")],
                      mode="plan", plan_answers=["y"])
    session.run()
    assert not session.state.plan_mode
    assert "could not be saved" in session.tool_results()[0] and PLAN in session.tool_results()[0]


def test_failure_mode_4_rejection_is_not_an_error_to_retry(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN))] * 5,
                      mode="plan", plan_answers=["n"] * 5)
    session.run()
    assert len(session.shown_plans) == 1


def test_plan_file_name_replaces_unsafe_characters(workspace):
    saved = save_plan(workspace, "sess_a/../b c", PLAN)
    assert saved.parent == workspace / PLANS_FOLDER and saved.name == "plan-sess_a----b-c.md"


def test_failure_mode_8_interrupt_during_tools_leaves_a_valid_history(workspace):
    session = Session(workspace, [
        turn("", call("Read", file_path="a"), call("Write", file_path="b", content="b"),
             call("Read", file_path="c")),
        turn("after")], mode="yolo")

    def interrupted(args):
        raise KeyboardInterrupt

    tools = session.executor.tools
    tools["Write"] = replace(tools["Write"], handler=interrupted)
    outcome = session.run()
    assert outcome.ending == "interrupted"
    assert_valid_history(session.agent.messages)
    assert len(session.tool_results()) == 3
    session.run("next")
    assert_valid_history(session.model.requests[-1][1:])


def test_failure_mode_8_interrupt_while_streaming_keeps_history_valid(workspace):
    session = Session(workspace, [turn("one two three", call("Read", file_path="a")), turn("ok")])
    session.agent.on_text = lambda piece: (_ for _ in ()).throw(KeyboardInterrupt)
    assert session.run().ending == "interrupted"
    session.agent.on_text = lambda piece: None
    session.run("again")
    assert_valid_history(session.model.requests[-1][1:])


def test_failure_mode_8_step_limit_leaves_every_call_answered(workspace):
    session = Session(workspace, [turn("", call("Glob", pattern="*"))] * 10)
    session.agent.max_steps = 3
    outcome = session.run()
    assert outcome.ending == "step_limit"
    assert_valid_history(session.agent.messages)


def test_every_call_gets_one_result_for_bad_calls(workspace):
    session = Session(workspace, [turn("", {"name": "Nope", "arguments": {}},
                                       call("Read"), call("Read", file_path=3)), turn("ok")])
    session.model.turns[0]["tool_calls"].append({"name": "Write", "arguments": {"file_path": "x"}})
    session.run()
    results = session.tool_results()
    assert len(results) == 4
    assert "no tool named" in results[0]
    assert "file_path is required" in results[1]
    assert "must be string" in results[2]
    assert "content is required" in results[3]


def test_tool_schemas_sent_to_the_model_use_the_design_names(workspace):
    session = Session(workspace, [turn("ok")])
    session.run()
    sent = {t["function"]["name"]: t["function"]["parameters"] for t in session.model.tool_schemas[0]}
    assert all(t["function"]["description"] for t in session.model.tool_schemas[0])
    assert set(sent["Read"]["properties"]) == {"file_path", "offset", "limit"}
    assert set(sent["Edit"]["properties"]) == {"file_path", "old_string", "new_string", "replace_all"}
    assert sent["ExitPlanMode"]["required"] == ["plan"]
    assert set(sent["Bash"]["properties"]) == {"command", "timeout"}
    assert sent["Read"]["required"] == ["file_path"] and sent["Bash"]["required"] == ["command"]
    assert set(sent) <= DESIGN_TOOL_NAMES
    for name, schema in sent.items():
        assert set(schema["required"]) <= set(schema["properties"]), name
        assert schema["additionalProperties"] is False, name


def test_planted_stepagent_link_does_not_carry_the_plan_out(workspace, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace / ".stepagent").symlink_to(elsewhere)
    session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN)), turn("ok")],
                      mode="plan", plan_answers=["y"])
    session.run()
    assert list(elsewhere.iterdir()) == []
    assert not session.state.plan_mode
    assert "could not be saved" in session.tool_results()[0] and PLAN in session.tool_results()[0]


@pytest.mark.parametrize("link", [".stepagent", ".stepagent/plans", "plan"])
def test_own_files_are_never_written_through_a_link_out(workspace, tmp_path, link):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = workspace / PLANS_FOLDER / "plan-x.md"
    planted = target if link == "plan" else workspace / link
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.symlink_to(outside / "plan-x.md" if link == "plan" else outside)
    with pytest.raises(OutsideWorkspace):
        write_inside(workspace, target.relative_to(workspace), "secret plan")
    assert list(outside.iterdir()) == []
    assert saved_plan(workspace, "x") is None


def test_own_files_may_follow_a_link_that_stays_inside(workspace):
    (workspace / "real").mkdir()
    (workspace / ".stepagent").symlink_to(workspace / "real")
    assert save_plan(workspace, "x", PLAN) == workspace / "real" / "plans" / "plan-x.md"
    assert saved_plan(workspace, "x") == workspace / "real" / "plans" / "plan-x.md"


@pytest.mark.parametrize("answer, review", [
    ("y", PlanReview("approve")), (" YES ", PlanReview("approve")),
    ("e", PlanReview("approve", mode=PermissionMode.EDIT)), ("Edit", PlanReview("approve", mode=PermissionMode.EDIT)),
    ("n", PlanReview("reject")), ("No", PlanReview("reject")), ("  ", PlanReview("reject")),
    (" add tests ", PlanReview("feedback", "add tests"))])
def test_plan_answers_are_read_as_the_question_says(answer, review):
    assert plan_review(answer) == review


def test_enter_plan_mode_points_at_the_instructions_and_says_when_it_was_already_on(workspace):
    session = Session(workspace, [turn("", call("EnterPlanMode")), turn("", call("EnterPlanMode")),
                                  turn("ok")])
    session.run()
    first, second = session.tool_results()
    assert first.startswith("Plan mode is on.") and second.startswith("Plan mode was already on.")
    assert WORKFLOW in session.model.requests[1][0]["content"]
    assert not any(RULES in result for result in (first, second))


def test_the_audit_trail_names_the_tool_that_entered_and_the_approval_that_left(workspace):
    session = Session(workspace, [turn("", call("EnterPlanMode")),
                                  turn("", call("ExitPlanMode", plan=PLAN)), turn("ok")],
                      plan_answers=["y"])
    changes: list[ModeChanged] = []
    session.state.events.subscribe(lambda e: changes.append(e) if isinstance(e, ModeChanged) else None)
    session.run()
    assert changes == [ModeChanged(True, "build", "EnterPlanMode"),
                       ModeChanged(False, "build", "ExitPlanMode approval")]


def test_an_empty_plan_is_an_error_and_nothing_is_shown(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan="  \n ")), turn("ok")],
                      mode="plan", plan_answers=["y"])
    session.run()
    assert "plan is empty" in session.tool_results()[0]
    assert session.shown_plans == [] and session.state.plan_mode


def test_e_approves_into_edit_mode_and_the_trail_says_so(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN)), turn("ok")],
                      mode="plan", plan_answers=["e"])
    changes: list[ModeChanged] = []
    session.state.events.subscribe(lambda e: changes.append(e) if isinstance(e, ModeChanged) else None)
    session.run()
    assert session.state.mode_label == "edit"
    assert changes == [ModeChanged(False, "edit", "ExitPlanMode approval")], \
        "one change, straight into edit mode, never through build"


def test_a_rejection_tells_the_model_it_is_still_planning(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN)), turn("never")],
                      mode="plan", plan_answers=["n"])
    session.run()
    assert session.tool_results() == [REJECTED]


def git(workspace, *args: str) -> str:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.environ["PATH"],
           "HOME": str(workspace)}
    return subprocess.run(["git", *args], cwd=workspace, env=env, capture_output=True, text=True,
                          check=True).stdout


def test_an_approved_plan_never_shows_in_the_repository_status(workspace):
    git(workspace, "init", "-q")
    session = Session(workspace, [turn("", call("ExitPlanMode", plan=PLAN)), turn("ok")],
                      mode="plan", plan_answers=["y"])
    session.run()
    assert list((workspace / PLANS_FOLDER).glob("plan-*.md")), "the plan was saved"
    assert git(workspace, "status", "--porcelain", "--untracked-files=all") == ""
    git(workspace, "add", "--all")
    assert git(workspace, "diff", "--cached", "--name-only") == "", "git add --all takes nothing from it"


def test_a_stepagent_folder_the_user_made_is_left_as_it_is(workspace):
    (workspace / ".stepagent").mkdir()
    save_plan(workspace, "sess_x", PLAN)
    assert not (workspace / ".stepagent" / ".gitignore").exists()
