"""Model per phase, through the whole product: the real openai client against the local Chat
Completions server. While plan mode is on every request (a sub-agent's too) carries the plan
model, after approval the session's; the choice is journaled, kept by --continue, by /clear's
new session and by /resume; a name the endpoint does not know is one line and nothing is sent."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from agent.assemble import assemble
from ui.product import product_layers
from models.openai_chat import OpenAIChatModel
from session.journal import Journal, read_session
from session.live import Session
from session.store import SessionStore
from state import AppState
from tests.fake_chat_server import FakeChatServer
from tests.harness import run_index
from tests.product_run import run_product
from tools.plan_mode import PlanReview
from ui.slash import run_slash_command

CATALOG = [{"id": "builder", "object": "model"}, {"id": "planner", "object": "model"}]


def stepagent(server: FakeChatServer, workspace: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "k"}
    return run_product("--model", "builder", *args, cwd=workspace, env=env)


def in_this_process(server: FakeChatServer, capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    """`stepagent` in this process: for a run whose session is not opened again in the test
    (the session's lock is held until the process ends)."""
    return run_index(capsys, monkeypatch, "--model", "builder", *args, OPENAI_BASE_URL=server.url,
                     OPENAI_API_KEY="k")


def sent_models(server: FakeChatServer) -> list[tuple[str, str]]:
    """Each request's model, and whose it was: the session's agent or a sub-agent."""
    def whose(body: dict) -> str:
        first = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return "sub-agent" if first.startswith("You are a sub-agent") else "agent"
    return [(body["model"], whose(body)) for body in server.requests]


def test_p_plans_on_the_plan_model_and_builds_on_the_session_model_sub_agents_alike(server, workspace,
                                                                                  capsys, monkeypatch):
    server.models = CATALOG
    server.reply_tool_calls(("Agent", {"description": "look", "prompt": "look around",
                                       "subagent_type": "explore"}))
    server.reply_text("found it")
    server.reply_tool_calls(("ExitPlanMode", {"plan": "1. write a.txt"}))
    server.reply_tool_calls(("Agent", {"description": "write", "prompt": "write a.txt",
                                       "subagent_type": "general"}))
    server.reply_tool_calls(("Write", {"file_path": "a.txt", "content": "hi"}))
    server.reply_text("wrote it")
    server.reply_text("done")
    code, _, err = in_this_process(server, capsys, monkeypatch, "--plan-model", "planner", "--mode",
                                   "plan", "--approve-plan=edit", "-p", "add a.txt")
    assert code == 0, err
    assert sent_models(server) == [("planner", "agent"), ("planner", "sub-agent"), ("planner", "agent"),
                                   ("builder", "agent"), ("builder", "sub-agent"),
                                   ("builder", "sub-agent"), ("builder", "agent")]
    assert (workspace / "a.txt").read_text() == "hi"
    assert "started in plan mode · planner" in err and "started · builder" in err


def test_a_resumed_planning_session_keeps_its_plan_model_until_a_flag_says_otherwise(server, workspace):
    server.models = CATALOG
    server.reply_tool_calls(("ExitPlanMode", {"plan": "1. write a.txt"}))
    planned = stepagent(server, workspace, "--plan-model", "planner", "--mode", "plan", "-p", "plan it")
    assert planned.returncode == 4, planned.stderr
    server.reply_text("still planning")
    continued = stepagent(server, workspace, "--continue", "-p", "go on")
    assert continued.returncode == 0, continued.stderr
    assert "plan model → planner (by resume)" in continued.stderr
    server.reply_text("planning on the session's model")
    dropped = stepagent(server, workspace, "--continue", "--plan-model", "off", "-p", "again",
                        "--output-format", "json")
    assert dropped.returncode == 0, dropped.stderr
    assert [model for model, _ in sent_models(server)] == ["planner", "planner", "builder"]
    store = SessionStore(workspace.parent / "home" / "sessions.db")
    restored = read_session(store, json.loads(dropped.stdout)["session_id"])
    assert restored.plan_mode and restored.plan_model == ""


def test_a_plan_model_the_endpoint_does_not_know_is_one_line_and_nothing_is_sent(server, workspace,
                                                                                capsys, monkeypatch):
    server.models = CATALOG
    code, _, err = in_this_process(server, capsys, monkeypatch, "--plan-model", "plannr", "-p", "hi")
    assert code == 2
    assert err.splitlines() == [
        "stepagent: no model 'plannr' at this endpoint; available, nearest first: planner, builder"]
    assert server.requests == []


def live_session(server: FakeChatServer, workspace: Path, store: SessionStore) -> Session:
    state = AppState()
    model = OpenAIChatModel("builder", "k", server.url, retry_delay=0.0)
    agent = assemble(workspace, state, model, lambda plan: PlanReview("reject"), lambda request: False,
                     product_layers(store=store))
    journal = Journal(store, state, workspace, warn=print)
    state.events.subscribe(journal.on_event)
    return Session(agent, journal)


def test_the_repl_command_chooses_shows_clears_and_clear_and_resume_keep_it(server, workspace, tmp_path):
    server.models = CATALOG
    store = SessionStore(tmp_path / "sessions.db")
    live = live_session(server, workspace, store)
    assert run_slash_command("/model plan", live).message.startswith("No plan model")
    bad = run_slash_command("/model plan plannr", live)
    assert bad.is_error and bad.message == run_slash_command("/model plannr", live).message
    assert "\n" not in bad.message
    assert run_slash_command("/model plan planner", live).message.startswith("Plan model → planner")
    assert live.agent.model.name == "builder", "not planning yet"
    run_slash_command("/plan", live)
    assert live.agent.model.name == "planner"
    moved = run_slash_command("/model builder", live).message
    assert "after approval" in moved and live.agent.model.name == "planner"
    assert "  ◆ plan model → planner (by /model plan planner)" in live.trace()
    first = live.agent.state.session_id
    run_slash_command("/clear", live)
    server.reply_text("ok")
    live.agent.run_turn("plan again")
    assert server.requests[-1]["model"] == "planner"
    assert read_session(store, live.agent.state.session_id).plan_model == "planner", \
        "the new session begins with the plan model it inherited"
    run_slash_command("/model plan off", live)
    assert live.agent.model.name == "builder"
    run_slash_command(f"/resume {first}", live)
    assert live.agent.model.name == "planner" and live.agent.state.plan_mode
    assert run_slash_command("/model plan", live).message.startswith("Plan model: planner")


def test_model_alone_at_an_endpoint_it_cannot_reach_says_so_in_one_sentence(workspace, tmp_path):
    state = AppState()
    model = OpenAIChatModel("builder", "k", "http://127.0.0.1:9/v1", retry_delay=0.0)
    agent = assemble(workspace, state, model, lambda plan: PlanReview("reject"), lambda request: False,
                     product_layers())
    shown = run_slash_command("/model", Session(agent, Journal(None, state, workspace, warn=print)))
    assert shown.is_error
    assert shown.message == "Model: builder; cannot reach http://127.0.0.1:9/v1 to list its models."


def test_model_and_plan_model_are_refused_alike_by_the_offline_lesson(workspace, capsys, monkeypatch):
    refused = {}
    for flag in ("--model", "--plan-model"):
        code, out, err = run_index(capsys, monkeypatch, flag, "foo", "-p", "hi")
        assert code == 2 and out == "", (flag, out)
        assert len(err.splitlines()) == 1 and "cannot switch to foo" in err, err
        refused[flag] = err
    assert refused["--model"] == refused["--plan-model"]
