"""The lesson's functions one at a time, with fakes: these tests judge the practice
exercises (step42_plan_mode/practice.py), so each names the one behaviour it checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.prompt import PromptContext, build_system_prompt, plan_mode_section
from hooks.plan_mode_guard import plan_mode_guard
from hooks.registry import HookRegistry, ToolCallEvent
from session.plan_revisions import saved_plan
from state import AppState, PermissionMode, StateView
from tools.base import Judgement, Tool, ToolResult, object_schema
from tools.bash.classifier.sed import judge_sed
from tools.plan_mode import make_plan_mode_tools
from ui.modes import select
from ui.plan_review import plan_review


def fake_tool(name: str = "Fake", **flags) -> Tool:
    return Tool(name, "a fake tool", object_schema({}), lambda args: ToolResult("ran"), **flags)


def planning(on: bool = True) -> StateView:
    return StateView(on, PermissionMode.YOLO, "sess_test")


def guard(tool: Tool, plan_mode: bool = True, **args) -> str | None:
    return plan_mode_guard(ToolCallEvent(tool, args, planning(plan_mode)))


def test_guard_denies_an_unmarked_tool_while_planning():
    reason = guard(fake_tool())
    assert reason and "plan-mode-guard" in reason and "Fake" in reason


def test_guard_passes_read_only_and_session_state_tools():
    assert guard(fake_tool(read_only=True)) is None
    assert guard(fake_tool(allowed_in_plan_mode=True)) is None


def test_guard_asks_the_tools_own_judge():
    judged = fake_tool(judge=lambda args: Judgement(args["safe"], "rule-x", "tok"))
    assert guard(judged, safe=True) is None
    reason = guard(judged, safe=False)
    assert reason and "rule-x" in reason and "tok" in reason


def test_guard_lets_everything_through_outside_plan_mode():
    assert guard(fake_tool(), plan_mode=False) is None
    assert guard(fake_tool(judge=lambda args: Judgement(False, "rule-x")), plan_mode=False) is None


def test_registry_runs_deny_hooks_before_ask_hooks_whatever_the_order():
    registry = HookRegistry()
    registry.on_pre_tool_use("asker", lambda event: "may I?", "ask")
    registry.on_pre_tool_use("denier", lambda event: "no", "deny")
    verdict = registry.check(ToolCallEvent(fake_tool(), {}, planning()))
    assert (verdict.decision, verdict.hook) == ("deny", "denier")


def test_registry_allows_when_no_hook_objects():
    registry = HookRegistry()
    registry.on_pre_tool_use("quiet", lambda event: None, "deny")
    assert registry.check(ToolCallEvent(fake_tool(), {}, planning())).decision == "allow"


def prompt_of(state: AppState) -> str:
    return build_system_prompt(PromptContext(state, Path("/w"), ("Read",)))


def test_plan_section_comes_first_only_while_planning():
    state = AppState()
    assert plan_mode_section(PromptContext(state, Path("/w"), ())) is None
    state.enter_plan_mode("test")
    assert prompt_of(state).startswith("# Plan Mode (ACTIVE)")


def test_prompt_returns_to_its_start_after_entering_and_leaving():
    state = AppState()
    start = prompt_of(state)
    for _ in range(5):
        state.enter_plan_mode("test")
        state.leave_plan_mode("test")
    assert prompt_of(state) == start


def exit_tool(tmp_path: Path, answer: str) -> tuple[Tool, AppState]:
    state = AppState()
    state.enter_plan_mode("test")
    tools = {t.name: t for t in make_plan_mode_tools(tmp_path, state, lambda plan: plan_review(answer))}
    return tools["ExitPlanMode"], state


def test_exit_approved_saves_the_plan_and_leaves_plan_mode(tmp_path):
    tool, state = exit_tool(tmp_path, "y")
    result = tool.handler({"plan": "1. do it"})
    assert not state.plan_mode and not result.is_error and not result.end_turn
    saved = saved_plan(tmp_path, state.session_id)
    assert saved is not None and saved.read_text() == "1. do it\n"


def test_exit_feedback_stays_in_plan_mode_and_follows_up(tmp_path):
    tool, state = exit_tool(tmp_path, "use French")
    result = tool.handler({"plan": "1. do it"})
    assert state.plan_mode and result.follow_up == "use French" and not result.end_turn
    assert saved_plan(tmp_path, state.session_id) is None


def test_exit_refuses_outside_plan_mode_without_asking(tmp_path):
    shown: list[str] = []
    state = AppState()
    tools = {t.name: t for t in make_plan_mode_tools(tmp_path, state, lambda plan: shown.append(plan))}
    result = tools["ExitPlanMode"].handler({"plan": "1. do it"})
    assert result.is_error and "exit-only-in-plan-mode" in result.content
    assert not shown and saved_plan(tmp_path, state.session_id) is None


def test_exit_rejected_ends_the_turn_in_plan_mode(tmp_path):
    tool, state = exit_tool(tmp_path, "n")
    result = tool.handler({"plan": "1. do it"})
    assert state.plan_mode and result.end_turn
    assert saved_plan(tmp_path, state.session_id) is None


def test_review_answers_map_to_outcomes():
    assert [plan_review(a).outcome for a in ("y", "YES", "n", "", "be brief")] == [
        "approve", "approve", "reject", "reject", "feedback"]


def test_entering_and_leaving_report_whether_anything_changed():
    state = AppState()
    seen = []
    state.events.subscribe(seen.append)
    assert state.enter_plan_mode("a") and not state.enter_plan_mode("b")
    assert state.plan_mode
    assert state.leave_plan_mode("c") and not state.leave_plan_mode("d")
    assert not state.plan_mode
    assert [event.cause for event in seen] == ["a", "c"]


def test_leaving_plan_mode_returns_to_the_permission_mode_before():
    state = AppState(permission_mode=PermissionMode.EDIT)
    select(state, "plan", "test")
    select(state, "plan", "again")
    assert state.mode_label == "plan"
    state.leave_plan_mode("test")
    assert state.mode_label == "edit"


@pytest.mark.parametrize("args", [["-n", "1,20p", "f"], ["s/a/b/", "f"], ["-E", "-e", "/x/d", "f"]])
def test_sed_that_only_prints_is_read_only(args):
    assert judge_sed(args).read_only


@pytest.mark.parametrize("args, token", [(["-i", "s/a/b/", "f"], "-i"), (["s/a/b/w out", "f"], "w"),
                                         (["--in-place", "1d", "f"], "--in-place"),
                                         (["-n", "1e date", "f"], "e")])
def test_sed_that_writes_or_runs_is_refused_with_its_token(args, token):
    judgement = judge_sed(args)
    assert not judgement.read_only and token in judgement.token
