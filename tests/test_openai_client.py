"""The real openai client against a local Chat Completions server."""

from __future__ import annotations

import json

import pytest

from models.base import ModelError
from models.openai_chat import OpenAIChatModel
from tests.harness import run_index

MESSAGES = [{"role": "user", "content": "hi"}]


def model_for(server, **options) -> OpenAIChatModel:
    return OpenAIChatModel("fake-model", "test-key", server.url, **options)


def test_text_streams_piece_by_piece(server):
    server.reply_text("Hel", "lo ", "world")
    pieces: list[str] = []
    reply = model_for(server).complete(MESSAGES, [], pieces.append)
    assert pieces == ["Hel", "lo ", "world"]
    assert reply.text == "Hello world" and reply.tool_calls == []
    assert server.requests[0]["stream"] is True and server.requests[0]["model"] == "fake-model"


def test_parallel_tool_calls_split_across_chunks_are_joined(server):
    server.reply_tool_calls(("Read", {"file_path": "a.py"}), ("Grep", {"pattern": "def x"}))
    reply = model_for(server).complete(MESSAGES, [], lambda piece: None)
    assert [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("call_0", "Read", {"file_path": "a.py"}), ("call_1", "Grep", {"pattern": "def x"})]


def test_a_500_is_retried_then_succeeds(server):
    server.fail(500)
    server.reply_text("recovered")
    slept: list[float] = []
    reply = model_for(server, sleep=slept.append).complete(MESSAGES, [], lambda piece: None)
    assert reply.text == "recovered" and len(server.requests) == 2
    assert slept == [1.0], "the first retry waits the default second (told, not waited out here)"


def test_a_401_is_one_clear_line_about_the_key(server):
    server.fail(401, "Incorrect API key provided")
    with pytest.raises(ModelError) as failure:
        model_for(server).complete(MESSAGES, [], lambda piece: None)
    assert "OPENAI_API_KEY" in str(failure.value) and "\n" not in str(failure.value)
    assert len(server.requests) == 1, "a bad key is not retried"


def test_an_unknown_model_names_the_model(server):
    server.fail(404, "The model does not exist")
    with pytest.raises(ModelError, match="fake-model"):
        model_for(server).complete(MESSAGES, [], lambda piece: None)


def test_a_refused_connection_names_the_endpoint():
    model = OpenAIChatModel("m", "k", "http://127.0.0.1:9/v1", max_retries=0)
    with pytest.raises(ModelError, match="cannot connect to http://127.0.0.1:9/v1"):
        model.complete(MESSAGES, [], lambda piece: None)


def test_headless_session_against_the_server_denies_a_write_while_planning(server, workspace, capsys,
                                                                          monkeypatch):
    server.reply_tool_calls(("Write", {"file_path": "x.txt", "content": "x"}),
                            ("Read", {"file_path": "missing.txt"}))
    server.reply_text("The plan is to ", "write x.txt.")
    code, out, err = run_index(capsys, monkeypatch, "--mode", "plan", "-p", "plan it",
                               OPENAI_API_KEY="test-key", OPENAI_BASE_URL=server.url,
                               OPENAI_MODEL="fake-model")
    assert code == 0, err
    assert out.strip() == "The plan is to write x.txt."
    assert not (workspace / "x.txt").exists()
    first, second = server.requests
    assert first["messages"][0]["content"].startswith("# Plan Mode (ACTIVE)")
    assert {t["function"]["name"] for t in first["tools"]} >= {"Read", "Write", "ExitPlanMode"}
    results = [m for m in second["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == ["call_0", "call_1"]
    assert "plan-mode-guard" in results[0]["content"]


def test_headless_reports_a_bad_key_and_exits_non_zero(server, workspace, capsys, monkeypatch):
    server.fail(401)
    code, out, err = run_index(capsys, monkeypatch, "-p", "hi", OPENAI_API_KEY="bad",
                               OPENAI_BASE_URL=server.url)
    assert code == 1
    assert out == "" and "OPENAI_API_KEY" in err


def test_each_request_carries_the_history_as_it_is_now_however_it_changed(server):
    """Messages are encoded once and reused (models/wire.py): growth and replacement both show."""
    model = model_for(server)
    history = [{"role": "user", "content": "first"}]
    sent = []
    for change in (lambda: None,
                   lambda: history.extend([{"role": "assistant", "content": "ok"},
                                           {"role": "user", "content": "second"}]),
                   lambda: history.__setitem__(slice(None), [{"role": "user", "content": "summary"}]),
                   lambda: history.append({"role": "user", "content": "third"})):
        change()
        server.reply_text("ok")
        model.complete([{"role": "system", "content": f"prompt {len(sent)}"}, *history], [],
                       lambda piece: None)
        sent.append(server.requests[-1]["messages"])
        assert sent[-1] == [{"role": "system", "content": f"prompt {len(sent) - 1}"}, *history]
    assert [len(messages) for messages in sent] == [2, 4, 2, 3]


def test_a_refused_connection_on_this_machine_is_retried_once_not_four_times():
    notices = []
    model = OpenAIChatModel("m", "k", "http://127.0.0.1:9/v1", retry_delay=0.0)
    model.on_notice = notices.append
    with pytest.raises(ModelError, match="cannot connect to http://127.0.0.1:9/v1"):
        model.complete(MESSAGES, [], lambda piece: None)
    assert [notice.text for notice in notices] == ["cannot connect, retrying in 0.0 s, attempt 2/2"]
