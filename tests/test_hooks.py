"""The hook registry and the plan-mode guard on their own, with fake tools and states.

The end-to-end tests (test_plan_mode.py, test_permissions.py) go through the
assembled agent, where the guard happens to be registered first; these call the
registry and the hooks directly, so each rule is tested alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from hooks.permission_ask import permission_ask
from hooks.plan_mode_guard import NAME, plan_mode_guard
from hooks.registry import HookRegistry, ToolCallEvent, Verdict
from state import PermissionMode, StateView
from tests.harness import Session, call, turn
from tools.base import Judgement, Tool, ToolResult, object_schema
from tools.bash.judgements import READ_ONLY, unsafe

ALL_MODES = list(PermissionMode)


def fake_tool(name: str = "Fake", **flags: Any) -> Tool:
    return Tool(name, "a fake tool", object_schema({}), lambda args: ToolResult("ran"), **flags)


def view(plan_mode: bool, mode: PermissionMode = PermissionMode.BUILD) -> StateView:
    return StateView(plan_mode, mode, "sess_test")


def event(tool: Tool | None = None, plan_mode: bool = False,
          mode: PermissionMode = PermissionMode.BUILD, **args: Any) -> ToolCallEvent:
    return ToolCallEvent(tool or fake_tool(), args, view(plan_mode, mode))


class Recorder:
    """A hook that records each call and answers with a fixed reason."""

    def __init__(self, reason: str | None):
        self.reason = reason
        self.seen: list[ToolCallEvent] = []

    def __call__(self, call: ToolCallEvent) -> str | None:
        self.seen.append(call)
        return self.reason


# The registry


def test_no_hooks_or_no_reasons_allow_the_call():
    assert HookRegistry().check(event()) == Verdict("allow")
    registry = HookRegistry()
    registry.on_pre_tool_use("quiet-deny", Recorder(None), "deny")
    registry.on_pre_tool_use("quiet-ask", Recorder(None), "ask")
    assert registry.check(event()) == Verdict("allow", "", "")


def test_a_deny_registered_after_an_ask_still_wins_and_the_user_is_not_asked():
    registry = HookRegistry()
    ask = Recorder("may I?")
    registry.on_pre_tool_use("asker", ask, "ask")
    registry.on_pre_tool_use("denier", Recorder("no"), "deny")
    assert registry.check(event()) == Verdict("deny", "denier", "no")
    assert ask.seen == [], "no question is put while a deny hook refuses"


def test_an_ask_hook_speaks_only_when_every_deny_hook_lets_the_call_pass():
    registry = HookRegistry()
    deny = Recorder(None)
    registry.on_pre_tool_use("asker", Recorder("may I?"), "ask")
    registry.on_pre_tool_use("denier", deny, "deny")
    call = event(path="x")
    assert registry.check(call) == Verdict("ask", "asker", "may I?")
    assert deny.seen == [call], "each hook sees the call itself"


def test_hooks_of_one_kind_answer_in_registration_order():
    registry = HookRegistry()
    registry.on_pre_tool_use("first", Recorder("first reason"), "deny")
    registry.on_pre_tool_use("second", Recorder("second reason"), "deny")
    assert registry.check(event()) == Verdict("deny", "first", "first reason")


def test_a_hook_denies_unless_told_to_ask():
    registry = HookRegistry()
    registry.on_pre_tool_use("plain", Recorder("stop"))
    assert registry.check(event()).decision == "deny"


# The plan-mode guard


@pytest.mark.parametrize("mode", ALL_MODES)
def test_while_planning_a_tool_that_writes_is_denied_in_every_mode(mode):
    reason = plan_mode_guard(event(fake_tool("Scribble"), plan_mode=True, mode=mode))
    assert reason is not None
    assert NAME in reason and "plan-mode-allowlist" in reason and "Scribble" in reason
    assert "ExitPlanMode" in reason, "the denial says how to go on"


@pytest.mark.parametrize("flags", [{"read_only": True}, {"allowed_in_plan_mode": True},
                                   {"judge": lambda args: READ_ONLY}])
def test_while_planning_what_cannot_change_anything_passes(flags):
    assert plan_mode_guard(event(fake_tool(**flags), plan_mode=True)) is None


def test_a_tool_that_needs_the_user_is_still_denied_unless_marked_safe_for_planning():
    assert plan_mode_guard(event(fake_tool(requires_user=True), plan_mode=True)) is not None


def test_the_guard_asks_the_tools_judge_about_this_call_and_teaches_with_its_answer():
    judged: list[dict] = []

    def judge(args: dict) -> Judgement:
        judged.append(args)
        return READ_ONLY if args["command"] == "ls" else unsafe("writes a file", "> x", "ls")

    tool = fake_tool("Shell", judge=judge)
    assert plan_mode_guard(event(tool, plan_mode=True, command="ls")) is None
    reason = plan_mode_guard(event(tool, plan_mode=True, command="ls > x"))
    assert judged == [{"command": "ls"}, {"command": "ls > x"}]
    assert "writes a file" in reason and "'> x'" in reason and "Read-only alternative: ls" in reason


@pytest.mark.parametrize("mode", ALL_MODES)
def test_outside_plan_mode_the_guard_lets_everything_pass_and_exit_refuses_by_itself(mode, tmp_path):
    assert plan_mode_guard(event(fake_tool("Scribble"), mode=mode)) is None
    session = Session(tmp_path, [turn("", call("ExitPlanMode", plan="1. go")), turn("ok")],
                      mode=mode.value)
    session.run()
    assert [d.decision for d in session.decisions] == ["allow"]
    assert "exit-only-in-plan-mode" in session.tool_results()[0]
    assert not session.shown_plans and not session.state.plan_mode


def test_exit_plan_mode_passes_the_guard_while_planning():
    exit_tool = fake_tool("ExitPlanMode", allowed_in_plan_mode=True, requires_user=True)
    assert plan_mode_guard(event(exit_tool, plan_mode=True)) is None


# The permission-mode question


def test_build_asks_before_a_write_and_names_the_rule_and_the_mode():
    question = permission_ask(event(fake_tool("Write")))
    assert question is not None
    assert "Write" in question and "writes" in question and "build mode" in question


def test_build_does_not_ask_for_what_cannot_change_anything():
    assert permission_ask(event(fake_tool(read_only=True))) is None
    assert permission_ask(event(fake_tool(judge=lambda args: READ_ONLY))) is None


def test_edit_lets_workspace_edits_through_but_asks_for_other_writes():
    edit = PermissionMode.EDIT
    assert permission_ask(event(fake_tool("Write"), mode=edit)) is None
    assert permission_ask(event(fake_tool("Edit"), mode=edit)) is None
    shell = fake_tool("Shell", judge=lambda args: unsafe("runs a program", "x"))
    assert "edit mode" in permission_ask(event(shell, mode=edit))


@pytest.mark.parametrize("mode", ALL_MODES)
def test_session_state_tools_and_tools_that_need_the_user_never_ask(mode):
    assert permission_ask(event(fake_tool(allowed_in_plan_mode=True), mode=mode)) is None
    assert permission_ask(event(fake_tool(requires_user=True), mode=mode)) is None


def test_yolo_asks_nothing():
    assert permission_ask(event(fake_tool("Write"), mode=PermissionMode.YOLO)) is None


def test_a_tools_plan_mode_hint_joins_its_denial_and_no_hint_adds_nothing():
    hinted = plan_mode_guard(event(fake_tool("Remember", plan_mode_hint="Note it in the plan."),
                                   plan_mode=True))
    plain = plan_mode_guard(event(fake_tool("Scribble"), plan_mode=True))
    assert hinted.endswith(" Note it in the plan.")
    assert hinted.removesuffix(" Note it in the plan.").replace("Remember", "Scribble") == plain


def test_an_ask_hooks_allow_ends_only_the_ask_hooks_and_never_lifts_a_denial():
    registry = HookRegistry()
    registry.on_pre_tool_use("guard", lambda e: "no" if e.state.plan_mode else None, "deny")
    registry.on_pre_tool_use("question", lambda e: "sure?", "ask")
    registry.on_pre_tool_use("user", lambda e: Verdict("allow", "user"), "ask", before="question")
    registry.on_pre_tool_use("late-deny", lambda e: "also no" if e.args.get("bad") else None, "deny")
    assert [hook.name for hook in registry.hooks] == ["guard", "user", "question", "late-deny"]
    assert registry.check(event()).decision == "allow", "no question after the user's allow"
    assert registry.check(event(plan_mode=True)) == Verdict("deny", "guard", "no")
    assert registry.check(event(bad=True)) == Verdict("deny", "late-deny", "also no")


def test_a_deny_hook_can_only_deny_with_a_verdict():
    registry = HookRegistry()
    registry.on_pre_tool_use("loose", lambda e: Verdict("allow", "loose"), "deny")
    registry.on_pre_tool_use("asks", lambda e: Verdict("ask", "asks", "?"), "deny")
    registry.on_pre_tool_use("guard", lambda e: "no", "deny")
    assert registry.check(event()) == Verdict("deny", "guard", "no")
