"""The provider matrix: one plan-mode session against each endpoint family's fake server.

The session is the lesson in small: research, a write denied while planning, a
todo, ExitPlanMode approved, an approved write, an answer. It runs through the
real openai client, the real tools and hooks, against a fake server streaming
and refusing the way that family's server does (tests/fake_families.py).
Then the endpoint behaviours that need the whole program: context overflow
compacts and retries, ListModels, `--model` checked at start, a local server
without a key, and what a headless run shows where.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from agent.assemble import assemble
from models.openai_chat import Notice, OpenAIChatModel
from state import AppState
from tests.fake_chat_server import FakeChatServer
from tests.fake_families import FAMILIES
from tests.harness import assert_valid_history, run_index
from tools.todos import todos_of
from ui.modes import select
from ui.plan_review import plan_review
from ui.product import product_layers

ADAPTS = {"glm": "stream_options", "deepseek": "reasoning"}


def session_on(server: FakeChatServer, workspace: Path, mode: str = "plan"):
    notices: list[Notice] = []
    model = OpenAIChatModel("fake-model", "test-key", server.url, retry_delay=0,
                            on_notice=notices.append)
    state = AppState()
    select(state, mode, "test")
    agent = assemble(workspace, state, model, lambda plan: plan_review("y"),
                     lambda question: True, product_layers())
    return agent, state, notices


@pytest.fixture(params=sorted(FAMILIES))
def family_server(request):
    fake = FakeChatServer(family=FAMILIES[request.param])
    fake.start()
    yield fake
    fake.stop()


def test_the_plan_mode_session_passes_on_every_endpoint_family(family_server, workspace):
    server = family_server
    (workspace / "README.md").write_text("A project that needs a greeting.\n")
    server.reply(reasoning=["The user wants ", "a greeting file."], text=["Let me look."],
                 calls=[("Grep", {"pattern": "greeting"}),
                        ("Write", {"file_path": "hello.txt", "content": "too early"})])
    server.reply(calls=[("TodoWrite", {"todos": [{"content": "Write hello.txt", "status": "pending"}]}),
                        ("ExitPlanMode", {"plan": "1. Write hello.txt with a greeting."})])
    server.reply(calls=[("Write", {"file_path": "hello.txt", "content": "hello\n"})])
    server.reply(text=["Done: ", "hello.txt written."])
    agent, state, notices = session_on(server, workspace)

    outcome = agent.run_turn("add a greeting file")

    assert (outcome.ending, outcome.text) == ("answered", "Done: hello.txt written.")
    assert (workspace / "hello.txt").read_text() == "hello\n"
    results = [m["content"] for m in agent.messages if m["role"] == "tool"]
    assert "README.md" in results[0] and "plan-mode-guard" in results[1]
    assert not state.plan_mode and [todo.content for todo in todos_of(state)] == ["Write hello.txt"]
    assert_valid_history(agent.messages)
    assert [notice.kind for notice in notices] == (["adapted"] if server.family.name in ADAPTS else [])
    if notices:
        assert ADAPTS[server.family.name] in notices[0].text
    answered = [r for r in server.requests if r["messages"][-1]["role"] != "system"]
    assert len(answered) == len(server.requests) and len(server.requests) == 4 + len(notices)


def test_a_context_overflow_compacts_and_the_request_is_sent_again(workspace):
    server = FakeChatServer(family=FAMILIES["llamacpp"])
    server.start()
    try:
        server.fail(400, body={"error": {"code": 400, "type": "exceed_context_size_error",
                                         "message": "request (9000 tokens) exceeds the available "
                                                    "context size (8192 tokens), try increasing it",
                                         "n_prompt_tokens": 9000, "n_ctx": 8192}})
        server.reply_text("Summary: the user said hi.")
        server.reply_text("Hello again.")
        agent, state, notices = session_on(server, workspace, mode="build")
        outcome = agent.run_turn("hi")
    finally:
        server.stop()
    assert (outcome.ending, outcome.text) == ("answered", "Hello again.")
    _overflowed, summary, retried = server.requests
    assert "tools" not in summary and len(summary["messages"]) == 2
    assert "[user] hi" in summary["messages"][1]["content"]
    assert "Summary: the user said hi." in retried["messages"][1]["content"]


@pytest.mark.parametrize("family, expected", [
    ("vllm", "Qwen/Qwen2.5-Coder-7B-Instruct  (vllm)  context 32k tokens"),
    ("glm", "model_catalog_unavailable"),
])
def test_list_models_shows_the_catalog_or_says_there_is_none(workspace, family, expected):
    server = FakeChatServer(family=FAMILIES[family])
    server.start()
    try:
        server.reply_tool_calls(("ListModels", {}))
        server.reply_text("ok")
        agent, state, notices = session_on(server, workspace, mode="plan")
        agent.model.name = "Qwen/Qwen2.5-Coder-7B-Instruct"
        agent.run_turn("which models?")
    finally:
        server.stop()
    result = next(m["content"] for m in agent.messages if m["role"] == "tool")
    assert expected in result
    if family == "vllm":
        assert result.endswith("[current]")


def run_joined(capsys, monkeypatch, *args: str, **env: str) -> tuple[int, str, str]:
    """run_index, its stderr's whitespace (a wrapped line) read as single spaces."""
    code, out, err = run_index(capsys, monkeypatch, *args, **env)
    return code, out, " ".join(err.split())


def test_an_unknown_model_name_stops_at_start_with_the_nearest_ids(server, workspace, capsys,
                                                                   monkeypatch):
    server.models = [{"id": name, "object": "model"} for name in ("gpt-4o", "gpt-4o-mini", "o3")]
    code, out, err = run_joined(capsys, monkeypatch, "--model", "gpt-4o-mimi", "-p", "hi",
                               OPENAI_API_KEY="k", OPENAI_BASE_URL=server.url)
    assert code == 2 and out == ""
    assert "gpt-4o-mimi" in err and "nearest first: gpt-4o-mini, gpt-4o, o3" in err
    assert server.requests == []


def test_a_model_name_is_resolved_to_the_catalog_s_id(server, workspace, capsys, monkeypatch):
    server.family = FAMILIES["ollama"]
    server.reply_text("hi")
    code, out, err = run_joined(capsys, monkeypatch, "--model", "Qwen2.5-Coder", "-p", "hi",
                               OPENAI_API_KEY="k", OPENAI_BASE_URL=server.url)
    assert code == 0, err
    assert server.requests[0]["model"] == "qwen2.5-coder:latest"


def test_a_local_server_needs_no_key(server, workspace, capsys, monkeypatch):
    server.reply_text("Hello from the local server.")
    code, out, err = run_joined(capsys, monkeypatch, "-p", "hi", OPENAI_BASE_URL=server.url)
    assert code == 0, err
    assert out.strip() == "Hello from the local server." and "offline lesson" not in err


def test_headless_keeps_retries_and_reasoning_off_stdout(server, workspace, capsys, monkeypatch):
    server.family = FAMILIES["deepseek"]
    server.fail(429, "Rate limit reached", headers={"Retry-After": "0"})
    server.reply(reasoning=["secret ", "thoughts"], text=["The answer."])
    code, out, err = run_joined(capsys, monkeypatch, "-p", "hi", OPENAI_API_KEY="k",
                               OPENAI_BASE_URL=server.url)
    assert code == 0, err
    assert out.strip() == "The answer."
    assert "HTTP 429, retrying in 0.0 s, attempt 2/5" in err and "secret thoughts" in err


def test_doctor_names_the_endpoint_and_the_parameters_it_dropped(server, workspace, capsys,
                                                                 monkeypatch):
    server.family = FAMILIES["glm"]
    server.reply_text("OK")
    code, out, err = run_joined(capsys, monkeypatch, "--doctor", OPENAI_BASE_URL=server.url)
    shown = " ".join(out.split())
    assert code == 0, err
    assert "model endpoint" in shown and "OpenAI-compatible" in shown and "stream_options" in shown
    assert server.requests[-1]["tools"][0]["function"]["name"] == "Ping"


def test_doctor_says_when_the_server_cannot_call_tools(server, workspace, capsys, monkeypatch):
    server.fail(500, "tools param requires --jinja flag")
    code, out, err = run_joined(capsys, monkeypatch, "--doctor", OPENAI_BASE_URL=server.url)
    shown = " ".join(out.split())
    assert "cannot call tools" in shown and "--jinja" in shown


def test_doctor_fails_when_the_endpoint_does_not_answer(workspace, capsys, monkeypatch):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/v1"
    code, out, err = run_joined(capsys, monkeypatch, "--doctor", OPENAI_BASE_URL=url)
    shown = " ".join(out.split())
    assert code == 1 and "cannot connect" in shown and "parameters dropped" not in shown


def test_doctor_with_the_offline_lesson_is_not_a_failure(workspace, capsys, monkeypatch):
    code, out, err = run_joined(capsys, monkeypatch, "--doctor")
    assert code == 0 and "OPENAI_BASE_URL" in out


def test_doctor_shows_a_missing_endpoint_as_not_active(server, workspace, capsys, monkeypatch):
    row = {}
    for env in ({}, {"OPENAI_BASE_URL": server.url}):
        server.reply_text("OK")
        code, out, err = run_joined(capsys, monkeypatch, "--doctor", **env)
        line = next(line for line in out.splitlines() if "model endpoint" in line)
        row[bool(env)] = line.split("│")[2].strip()
    assert row == {False: "no", True: "yes"}
