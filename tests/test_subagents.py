"""Sub-agents on scripted models: they inherit plan mode, never get a way out of it,
run side by side, ask through the parent, and every call keeps exactly one result."""

from __future__ import annotations

import _thread
import threading

import pytest

import agent.subagents
from agent.assemble import assemble
from ui.product import product_layers
from agent.events import TokensUsed
from agent.subagents import SubAgentTokensUsed
from models.catalog import ModelInfo
from models.scripted import ScriptedModel
from session.store import SessionStore
from session.usage import UsageMeter
from state import AppState
from tests.harness import assert_valid_history, call, turn
from tests.subagent_kit import Hooked, Parent, Routed, snapshot
from tools.agent_tool import SUBAGENT_EXCLUDED
from tools.ask_user import Answers
from tools.plan_mode import PlanReview
from ui.modes import select

MUTATIONS = [call("Write", file_path="new.txt", content="x"),
             call("Edit", file_path="notes.md", old_string="hello", new_string="bye"),
             call("Bash", command="echo changed > notes.md")]


def agent_call(description: str, prompt: str, kind: str = "general", **more) -> dict:
    return call("Agent", description=description, prompt=prompt, subagent_type=kind, **more)


def test_a_sub_agent_started_while_planning_is_denied_every_change(workspace):
    (workspace / "notes.md").write_text("hello\n")
    before = snapshot(workspace)
    sub = ScriptedModel([turn("", *MUTATIONS), turn("nothing could be changed")])
    parent = Parent(workspace, [turn("", agent_call("try changes", "alpha: change notes")),
                                turn("parent done")], {"alpha": sub}, mode="yolo")
    parent.state.enter_plan_mode("test")
    assert parent.run().ending == "answered"
    assert snapshot(workspace) == before
    decisions = parent.sub_decisions()
    assert [(d.decision.tool, d.decision.decision, d.decision.hook) for d in decisions] == [
        ("Write", "deny", "plan-mode-guard"), ("Edit", "deny", "plan-mode-guard"),
        ("Bash", "deny", "plan-mode-guard")]
    assert {d.agent for d in decisions} == {"general: try changes"}
    sub_results = [m["content"] for m in sub.requests[1] if m["role"] == "tool"]
    assert all("plan-mode-guard" in result for result in sub_results)
    assert parent.tool_results() == ["nothing could be changed"]
    assert parent.state.plan_mode


def test_the_sub_agents_requests_carry_none_of_the_excluded_tools(workspace):
    sub = ScriptedModel([turn("", call("ExitPlanMode", plan="1. escape")), turn("stayed")])
    parent = Parent(workspace, [turn("", agent_call("look", "alpha")), turn("ok")], {"alpha": sub},
                    mode="plan")
    parent.run()
    offered = {schema["function"]["name"] for schema in sub.tool_schemas[0]}
    assert offered & SUBAGENT_EXCLUDED == set()
    assert {"Read", "Grep", "Glob", "Bash", "Write"} <= offered
    assert "no tool named 'ExitPlanMode'" in [m for m in sub.requests[1] if m["role"] == "tool"][0]["content"]
    assert parent.state.plan_mode, "a sub-agent has no way out of plan mode"
    parent_offered = {schema["function"]["name"] for schema in parent.model.parent.tool_schemas[0]}
    assert {"Agent", "AskUserQuestion", "ExitPlanMode"} <= parent_offered


def test_a_planning_sub_agent_is_told_it_cannot_leave_plan_mode(workspace):
    sub = ScriptedModel([turn("done")])
    parent = Parent(workspace, [turn("", agent_call("look", "alpha")), turn("ok")], {"alpha": sub},
                    mode="plan")
    parent.run()
    system = sub.requests[0][0]["content"]
    assert system.startswith("# Plan Mode (ACTIVE)")
    assert "ExitPlanMode" not in system
    assert parent.model.parent.requests[0][0]["content"].startswith("# Plan Mode (ACTIVE)")


def test_an_explore_sub_agent_is_read_only_even_in_yolo(workspace):
    (workspace / "notes.md").write_text("hello\n")
    before = snapshot(workspace)
    sub = ScriptedModel([turn("", *MUTATIONS, call("Read", file_path="notes.md")), turn("read it")])
    parent = Parent(workspace, [turn("", agent_call("research", "alpha", "explore")), turn("ok")],
                    {"alpha": sub}, mode="yolo")
    parent.run()
    assert snapshot(workspace) == before
    assert [d.decision.decision for d in parent.sub_decisions()] == ["deny", "deny", "deny", "allow"]
    assert not parent.state.plan_mode


def test_a_general_sub_agent_changes_things_when_its_parent_may(workspace):
    sub = ScriptedModel([turn("", call("Write", file_path="made.txt", content="by the sub-agent")),
                         turn("written")])
    parent = Parent(workspace, [turn("", agent_call("make", "alpha")), turn("ok")], {"alpha": sub},
                    mode="yolo")
    parent.run()
    assert (workspace / "made.txt").read_text() == "by the sub-agent"


def test_a_sub_agent_follows_its_parent_out_of_plan_mode_and_back(workspace):
    """Started while planning; the parent leaves plan mode during its run, then re-enters."""
    parent_state = {}
    sub = Hooked(ScriptedModel([
        turn("", call("Write", file_path="a.txt", content="while planning")),
        turn("", call("Write", file_path="b.txt", content="after the parent left")),
        turn("", call("Write", file_path="c.txt", content="after the parent came back")),
        turn("done")]),
        before={2: lambda: parent_state["state"].leave_plan_mode("test: plan approved"),
                3: lambda: parent_state["state"].enter_plan_mode("test: planning again")})
    parent = Parent(workspace, [turn("", agent_call("build", "alpha")), turn("ok")], {"alpha": sub},
                    mode="yolo")
    parent_state["state"] = parent.state
    parent.state.enter_plan_mode("test")
    parent.run()
    assert not (workspace / "a.txt").exists()
    assert (workspace / "b.txt").read_text() == "after the parent left", "not stuck in plan mode"
    assert not (workspace / "c.txt").exists()
    assert [d.decision.decision for d in parent.sub_decisions()] == ["deny", "allow", "deny"]
    prompts = [request[0]["content"] for request in sub.requests]  # built before each hook ran
    assert ["Plan Mode" in prompt for prompt in prompts] == [True, True, False, True]


def test_a_sub_agents_permission_question_reaches_the_user_labelled_on_the_main_thread(workspace):
    sub = ScriptedModel([turn("", call("Write", file_path="asked.txt", content="x")), turn("done")])
    parent = Parent(workspace, [turn("", agent_call("write a file", "alpha")), turn("ok")],
                    {"alpha": sub}, mode="build", permission_answers=[False])
    parent.run()
    [(question, thread)] = parent.questions
    assert "general: write a file" in question and "Write" in question
    assert thread == threading.main_thread().name
    assert not (workspace / "asked.txt").exists()
    assert [d.decision.asked for d in parent.sub_decisions()] == [True]


def barrier_model(barrier: threading.Barrier, answer: str) -> Hooked:
    return Hooked(ScriptedModel([turn(answer)]), before={1: lambda: barrier.wait(timeout=20)})


def test_three_agent_calls_in_one_reply_run_at_the_same_time(workspace):
    barrier = threading.Barrier(3)
    subs = {word: barrier_model(barrier, f"{word} found") for word in ("alpha", "beta", "gamma")}
    parent = Parent(workspace, [turn("", *(agent_call(w, w, "explore") for w in subs)), turn("ok")],
                    subs, mode="plan")
    assert parent.run().ending == "answered"
    assert parent.tool_results() == ["alpha found", "beta found", "gamma found"]
    assert_valid_history(parent.agent.messages)


def test_at_most_three_sub_agents_run_at_once_and_results_keep_call_order(workspace):
    running, peak, lock = [0], [0], threading.Lock()

    def counting(answer: str) -> Hooked:
        def enter() -> None:
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            threading.Event().wait(0.2)
            with lock:
                running[0] -= 1
        return Hooked(ScriptedModel([turn(answer)]), before={1: enter})

    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    subs = {word: counting(f"{word} found") for word in words}
    parent = Parent(workspace, [turn("", call("Read", file_path="missing.txt"),
                                     *(agent_call(w, w, "explore") for w in words),
                                     call("Glob", pattern="*")), turn("ok")], subs)
    parent.run()
    results = parent.tool_results()
    assert results[1:6] == [f"{w} found" for w in words]
    assert len(results) == 7
    assert peak[0] == 3
    assert_valid_history(parent.agent.messages)


def test_ctrl_c_cancels_every_sub_agent_and_each_history_stays_valid(workspace, monkeypatch):
    built = []
    real = agent.subagents.assemble

    def recording(*args, **kwargs):
        built.append(real(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(agent.subagents, "assemble", recording)
    barrier = threading.Barrier(3)

    def sleeper(then=lambda: None) -> Hooked:
        def start() -> None:
            barrier.wait(timeout=20)
            then()
        return Hooked(ScriptedModel([turn("", call("Bash", command="sleep 30")), turn("late")]),
                      before={1: start})

    interrupt_soon = lambda: threading.Timer(1.0, _thread.interrupt_main).start()
    subs = {"alpha": sleeper(), "beta": sleeper(), "gamma": sleeper(interrupt_soon)}
    parent = Parent(workspace, [turn("", *(agent_call(w, w, "general") for w in subs),
                                     call("Read", file_path="after.txt")), turn("never")], subs,
                    mode="yolo")
    outcome = parent.run()
    assert outcome.ending == "interrupted"
    assert_valid_history(parent.agent.messages)
    assert len(parent.tool_results()) == 4
    assert len(built) == 3
    for sub_agent in built:
        assert_valid_history(sub_agent.messages)
    assert sorted(f.ending for f in parent.finished()) == ["interrupted"] * 3


def test_a_named_model_is_checked_against_the_catalog(workspace):
    sub = ScriptedModel([turn("qwen here")])
    parent = Parent(workspace, [turn("", agent_call("a", "alpha", model="qwen2-7b"),
                                     agent_call("b", "beta", model="gpt-unknown")), turn("ok")],
                    {"alpha": sub})
    parent.model.catalog = [ModelInfo("meta-llama/Llama-3-8B"), ModelInfo("Qwen2-7B")]
    parent.run()
    first, second = parent.tool_results()
    assert first == "qwen here"
    assert "gpt-unknown" in second and "Qwen2-7B" in second and "meta-llama/Llama-3-8B" in second
    started = [e for e in parent.events if type(e).__name__ == "SubAgentStarted"]
    assert [e.model for e in started] == ["Qwen2-7B"], "case-insensitive, the catalog's spelling"


@pytest.mark.parametrize("mode", ["build", "plan"])
def test_agent_itself_is_allowed_in_every_mode(workspace, mode):
    sub = ScriptedModel([turn("fine")])
    parent = Parent(workspace, [turn("", agent_call("x", "alpha", "explore")), turn("ok")],
                    {"alpha": sub}, mode=mode)
    parent.run()
    assert parent.tool_results() == ["fine"]
    assert parent.questions == []


def test_a_sub_agents_reply_counts_as_spent_but_not_as_the_parents_context():
    meter = UsageMeter()
    meter.on_event(TokensUsed(1000, 50))
    meter.on_event(SubAgentTokensUsed("explore: look", TokensUsed(9000, 70)))
    assert (meter.session.input_tokens, meter.session.output_tokens, meter.session.replies) == (10000, 120, 2)
    assert meter.context_tokens == 1050


@pytest.mark.parametrize("mode", ["plan", "build"])
def test_a_sub_agent_offers_exactly_its_parents_tools_minus_the_four(workspace, tmp_path, mode):
    sub = ScriptedModel([turn("done")])
    model = Routed(ScriptedModel([turn("", agent_call("look", "alpha")), turn("ok")]), {"alpha": sub})
    state = AppState()
    select(state, mode, "test")
    agent = assemble(workspace, state, model, lambda plan: PlanReview("reject"), lambda request: False,
                     product_layers(tmp_path / "home", SessionStore(tmp_path / "sessions.db"),
                                    ask=lambda questionnaire: Answers()))
    agent.run_turn("go")
    parent_offered = {schema["function"]["name"] for schema in model.parent.tool_schemas[0]}
    sub_offered = {schema["function"]["name"] for schema in sub.tool_schemas[0]}
    assert SUBAGENT_EXCLUDED <= parent_offered
    assert sub_offered == parent_offered - SUBAGENT_EXCLUDED
    assert {"ReadSessionContext", "Remember", "ListModels"} <= sub_offered
