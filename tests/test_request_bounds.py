"""A model request ends, whatever the server does: bounded in time and in size.

The real openai client against the fake server breaking its streams in time:
accepting and never answering, sending only keep-alive comments, one token at a
slow pace, a reply that never stops, and tool calls of the wrong shape. The
bounds are short knobs here (models/bounds.py); each failure is one line.
"""

from __future__ import annotations

import itertools
import json

import pytest

from models.base import ModelError
from models.bounds import RequestBounds
from models.openai_chat import OpenAIChatModel

MESSAGES = [{"role": "user", "content": "hi"}]


def token(text: str) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text},
                                               "finish_reason": None}]})


def model_for(server, **bounds: float) -> OpenAIChatModel:
    return OpenAIChatModel("fake-model", "k", server.url, retry_delay=0,
                           bounds=RequestBounds(**{"first_byte_seconds": 0.3, "idle_seconds": 0.3,
                                                   "deadline_seconds": 30.0, **bounds}))


def failure_of(model: OpenAIChatModel) -> str:
    with pytest.raises(ModelError) as failure:
        model.complete(MESSAGES, [], lambda piece: None)
    assert "\n" not in str(failure.value)
    return str(failure.value)


def test_a_server_that_never_answers_is_given_up_at_the_deadline(server):
    for _ in range(5):
        server.hang()
    said = failure_of(model_for(server, first_byte_seconds=5.0, deadline_seconds=0.6))
    assert "within 0.6 s" in said and "--timeout" in said
    assert len(server.requests) == 1, "the first attempt used the whole deadline"


def test_a_server_that_never_starts_is_retried_then_named(server):
    for _ in range(5):
        server.hang()
    notices = []
    model = model_for(server, first_byte_seconds=0.1)  # it never answers: any wait is waited out
    model.on_notice = notices.append
    said = failure_of(model)
    assert "did not answer in time" in said and len(server.requests) == 5
    assert "no answer within 0.1 s" in notices[0].text


def test_keep_alive_comments_alone_are_a_stalled_stream(server):
    server.reply_stream(itertools.repeat(": keep-alive"), pace=0.05)
    model = model_for(server)
    model.max_retries = 0
    said = failure_of(model)
    assert "stopped sending" in said and "no event for 0.3 s" in said


def test_slow_tokens_end_at_the_deadline(server):
    server.reply_stream(itertools.repeat(token("x")), pace=0.1)
    said = failure_of(model_for(server, deadline_seconds=0.8))
    assert "within 0.8 s" in said


def test_a_reply_that_never_stops_is_not_read_forever(server):
    server.reply_stream(itertools.repeat(token("blah " * 200)))
    said = failure_of(model_for(server, max_chars=200_000))
    assert "does not end" in said and "200,000 characters" in said


@pytest.mark.parametrize("tool_calls", [{"index": 0}, "Read", [["Read"]],
                                        [{"index": 0, "function": "Read"}],
                                        [{"index": 0, "function": {"name": "Read", "arguments": 7}}]])
def test_malformed_tool_calls_are_a_broken_reply_not_an_answer(server, tool_calls):
    for _ in range(2):
        server.reply_events("data: " + json.dumps({"choices": [{"index": 0, "delta": {
            "tool_calls": tool_calls}, "finish_reason": "tool_calls"}]}), "data: [DONE]")
    model = model_for(server)
    model.max_retries = 1
    assert "malformed tool call" in failure_of(model)
