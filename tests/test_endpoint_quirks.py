"""Each server quirk, one at a time, through the real openai client and the fake server."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from models.base import ContextOverflow, ModelError, Usage
from models.endpoint import LLAMA_CPP, OLLAMA, VLLM, detect_family, is_local
from models.openai_chat import Notice, OpenAIChatModel
from models.quirks import Adaptations
from tests.fake_families import FAMILIES

MESSAGES = [{"role": "user", "content": "hi"}]


def model_for(server, notices: list[Notice] | None = None, **options) -> OpenAIChatModel:
    sink = notices.append if notices is not None else (lambda notice: None)
    return OpenAIChatModel("fake-model", "test-key", server.url, retry_delay=0, on_notice=sink,
                           **options)


def calls_of(reply):
    return [(call.name, json.loads(call.arguments)) for call in reply.tool_calls]


@pytest.mark.parametrize("family", ["ollama", "vllm", "glm", "openai"])
def test_two_calls_arrive_as_two_calls_however_they_are_streamed(server, family):
    server.family = FAMILIES[family]
    server.reply_tool_calls(("Read", {"file_path": "a.py"}), ("Grep", {"pattern": "x"}))
    reply = model_for(server).complete(MESSAGES, [], lambda piece: None)
    assert calls_of(reply) == [("Read", {"file_path": "a.py"}), ("Grep", {"pattern": "x"})]
    assert len({call.id for call in reply.tool_calls}) == 2 and all(c.id for c in reply.tool_calls)


def test_an_index_reused_for_a_second_call_starts_a_new_call(server):
    server.family = replace(FAMILIES["ollama"], call_index="zero")
    server.reply_tool_calls(("Read", {"file_path": "a"}), ("Read", {"file_path": "b"}))
    reply = model_for(server).complete(MESSAGES, [], lambda piece: None)
    assert calls_of(reply) == [("Read", {"file_path": "a"}), ("Read", {"file_path": "b"})]


def test_finish_reason_stop_with_tool_calls_still_runs_the_calls(server):
    server.family = FAMILIES["ollama"]
    server.reply_tool_calls(("TodoRead", {}))
    reply = model_for(server).complete(MESSAGES, [], lambda piece: None)
    assert reply.finish_reason == "stop" and calls_of(reply) == [("TodoRead", {})]


def test_empty_arguments_become_an_empty_object(server):
    server.family = FAMILIES["openai"]
    server.reply_tool_calls(("TodoRead", {}))
    assert model_for(server).complete(MESSAGES, [], lambda piece: None).tool_calls[0].arguments == "{}"


def test_arguments_sent_as_an_object_become_json_text(server):
    chunk = {"choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "c1", "function": {"name": "Read", "arguments": {"file_path": "x"}}}]},
        "finish_reason": "tool_calls"}]}
    server.reply_events(f"data: {json.dumps(chunk)}", "data: [DONE]")
    assert calls_of(model_for(server).complete(MESSAGES, [], lambda piece: None)) == [
        ("Read", {"file_path": "x"})]


def test_a_refused_parameter_is_dropped_once_remembered_and_announced(server):
    server.fail(400, "Unrecognized request argument supplied: stream_options")
    server.reply_text("one")
    server.reply_text("two")
    notices: list[Notice] = []
    model = model_for(server, notices)
    assert model.complete(MESSAGES, [], lambda piece: None).text == "one"
    assert model.complete(MESSAGES, [], lambda piece: None).text == "two"
    assert ["stream_options" in request for request in server.requests] == [True, False, False]
    assert [notice.kind for notice in notices] == ["adapted"]
    assert "stream_options" in notices[0].text and "stream_options" in model.describe_endpoint()


def test_a_parameter_error_that_names_nothing_drops_the_optional_parameters(server):
    server.family = FAMILIES["glm"]
    server.reply_text("ok")
    model = model_for(server, max_output_tokens=1000)
    assert model.complete(MESSAGES, [], lambda piece: None).text == "ok"
    assert len(server.requests) == 2
    assert "stream_options" not in server.requests[1] and "max_tokens" not in server.requests[1]


def test_max_tokens_becomes_max_completion_tokens_then_goes_if_neither_is_accepted(server):
    server.fail(400, "Unsupported parameter: 'max_tokens' is not supported with this model. "
                     "Use 'max_completion_tokens' instead.")
    server.fail(400, "Unrecognized request argument supplied: max_completion_tokens")
    server.reply_text("ok")
    model = model_for(server, max_output_tokens=4096)
    assert model.complete(MESSAGES, [], lambda piece: None).text == "ok"
    first, second, third = server.requests
    assert first["max_tokens"] == 4096 and second["max_completion_tokens"] == 4096
    assert "max_tokens" not in third and "max_completion_tokens" not in third


@pytest.mark.parametrize("family, status, message, hint", [
    (VLLM, 400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
     "the parser that matches the model"),
    (LLAMA_CPP, 500, "tools param requires --jinja flag", "start llama-server with --jinja"),
    (OLLAMA, 400, 'registry.ollama.ai/library/gemma:2b does not support tools', "tagged 'tools'"),
])
def test_a_server_without_tool_calling_is_one_line_with_the_fix_and_no_retries(server, family, status,
                                                                               message, hint):
    server.fail(status, message)
    with pytest.raises(ModelError) as failure:
        model_for(server, adaptations=Adaptations(family)).complete(
            MESSAGES, [{"type": "function"}], lambda piece: None)
    assert "cannot call tools" in str(failure.value) and "\n" not in str(failure.value)
    assert hint in str(failure.value), "the line says how to fix this server"
    assert len(server.requests) == 1


def test_reasoning_is_streamed_apart_from_the_answer_and_kept_in_the_message(server):
    server.family = FAMILIES["llamacpp"]
    server.reply(text=["Answer."], reasoning=["Let me ", "think."])
    pieces, thoughts = [], []
    reply = model_for(server, on_reasoning=thoughts.append).complete(MESSAGES, [], pieces.append)
    assert pieces == ["Answer."] and "".join(thoughts) == "Let me think."
    assert reply.as_message()["reasoning_content"] == "Let me think."


def _tool_turn_history(field: str) -> list[dict]:
    return [{"role": "user", "content": "go"},
            {"role": "assistant", "content": None, field: "I should read.",
             "tool_calls": [{"id": "c1", "type": "function",
                             "function": {"name": "Read", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "text"}]


def test_reasoning_is_sent_back_once_the_server_asks_for_it(server):
    server.family = FAMILIES["deepseek"]
    server.reply_text("done")
    notices: list[Notice] = []
    model = model_for(server, notices)
    assert model.complete(_tool_turn_history("reasoning_content"), [], lambda piece: None).text == "done"
    refused, accepted = server.requests
    assert "reasoning_content" not in refused["messages"][1]
    assert accepted["messages"][1]["reasoning_content"] == "I should read."
    assert [notice.kind for notice in notices] == ["adapted"]


def test_reasoning_is_left_out_once_the_server_refuses_it(server):
    server.fail(400, "The reasoning_content is an intermediate result for display purposes only and "
                     "will not be included in the context for inference. Please remove the "
                     "reasoning_content from your message to reduce network traffic.")
    server.reply_text("ok")
    model = OpenAIChatModel("deepseek-reasoner", "k", server.url.replace("127.0.0.1", "localhost"),
                            retry_delay=0)
    model.adaptations.reasoning_back = True
    assert model.complete(_tool_turn_history("reasoning_content"), [], lambda piece: None).text == "ok"
    assert "reasoning_content" not in server.requests[1]["messages"][1]


@pytest.mark.parametrize("body, limit", [
    ({"error": {"code": 400, "message": "request (9412 tokens) exceeds the available context size "
                "(8192 tokens), try increasing it", "type": "exceed_context_size_error",
                "n_prompt_tokens": 9412, "n_ctx": 8192}}, 8192),
    ({"error": {"message": "This model's maximum context length is 32768 tokens. However, you "
                "requested 40000 tokens.", "type": "invalid_request_error",
                "code": "context_length_exceeded"}}, 32768),
    ({"error": {"code": "1261", "message": "Prompt 超长"}}, None),
])
def test_a_context_overflow_is_its_own_error_with_the_limit(server, body, limit):
    server.fail(400, body=body)
    with pytest.raises(ContextOverflow) as overflow:
        model_for(server).complete(MESSAGES, [], lambda piece: None)
    assert overflow.value.limit == limit and len(server.requests) == 1


@pytest.mark.parametrize("family, expected", [
    ("openai", Usage(120, 30, 64)), ("deepseek", Usage(120, 30, 64)),
    ("llamacpp", Usage(120, 30, None)), ("ollama", Usage(120, 30, None)),
])
def test_usage_is_read_wherever_the_family_puts_it(server, family, expected):
    server.family = FAMILIES[family]
    server.reply_text("hi")
    assert model_for(server).complete(MESSAGES, [], lambda piece: None).usage == expected


def test_a_missing_or_partial_usage_block_is_not_an_error(server):
    server.reply_events('data: {"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": null}]}',
                        'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], '
                        '"usage": {"completion_tokens": 3}}')
    server.reply_events('data: {"choices": [{"index": 0, "delta": {"content": "b"}, "finish_reason": "stop"}]}')
    model = model_for(server)
    assert model.complete(MESSAGES, [], lambda piece: None).usage == Usage(None, 3, None)
    assert model.complete(MESSAGES, [], lambda piece: None).usage is None


def test_keepalive_comments_and_a_missing_done_marker_are_fine(server):
    server.reply_events(": keep-alive", ": keep-alive",
                        'data: {"choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}')
    assert model_for(server).complete(MESSAGES, [], lambda piece: None).text == "x"
    assert len(server.requests) == 1


def test_a_server_that_ignores_stream_and_sends_one_json_reply_is_read(server):
    server.fail(200, body={"choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": "whole"}}],
                           "usage": {"prompt_tokens": 5, "completion_tokens": 1}})
    reply = model_for(server).complete(MESSAGES, [], lambda piece: None)
    assert reply.text == "whole" and reply.usage == Usage(5, 1, None)


def test_a_429_is_retried_after_the_server_s_delay_and_the_retry_is_announced(server):
    server.fail(429, "Rate limit reached", headers={"Retry-After": "2"})
    server.reply_text("ok")
    notices: list[Notice] = []
    slept: list[float] = []
    model = model_for(server, notices, sleep=slept.append)
    assert model.complete(MESSAGES, [], lambda piece: None).text == "ok"
    assert slept == [2.0]
    assert [notice.text for notice in notices] == ["HTTP 429, retrying in 2 s, attempt 2/5"]


@pytest.mark.parametrize("broken", [
    {"events": ('data: {"choices": [{"index": 0, "delta": {"content": "par"}, "finish_reason": null}]}',),
     "cut": True},
    {"events": ('data: {"choices": [{"index": 0, "delta": {"content": "par"}, "finish_reason": null}]}',
                "data: [DONE]")},
    {"events": ('data: {"choices": [{"index": 0, "delta": {"content": "par"}',)},
    {"events": ('data: {"error": {"message": "Internal error while generating", "code": 500}}',)},
])
def test_a_broken_stream_is_retried_like_a_5xx(server, broken):
    server.reply_events(*broken["events"], cut=broken.get("cut", False))
    server.reply_text("whole")
    notices: list[Notice] = []
    reply = model_for(server, notices).complete(MESSAGES, [], lambda piece: None)
    assert reply.text == "whole" and len(server.requests) == 2
    assert [notice.kind for notice in notices] == ["retry"] and "attempt 2/5" in notices[0].text


def test_after_the_retries_one_line_says_the_stream_kept_breaking(server):
    for _ in range(3):
        server.reply_events('data: {"choices": [{"index": 0, "delta": {"content": "x"}}]}', cut=True)
    with pytest.raises(ModelError) as failure:
        model_for(server, max_retries=2).complete(MESSAGES, [], lambda piece: None)
    message = str(failure.value)
    assert "cannot connect" not in message and "running" not in message and "\n" not in message
    assert "middle of its replies" in message and len(server.requests) == 3


@pytest.mark.parametrize("url, family", [
    ("https://api.openai.com/v1", "openai"), ("https://api.deepseek.com", "deepseek"),
    ("https://open.bigmodel.cn/api/paas/v4/", "glm"), ("https://api.z.ai/api/paas/v4", "glm"),
    ("http://localhost:11434/v1", "ollama"), ("http://127.0.0.1:8000/v1", "vllm"),
    ("http://localhost:8080/v1", "llamacpp"), ("http://gpu-box:8000/v1", "generic"),
    ("https://openrouter.ai/api/v1", "generic"),
])
def test_the_family_is_detected_from_the_base_url(url, family):
    assert detect_family(url).key == family


def test_only_the_user_s_own_machine_counts_as_local():
    assert is_local("http://localhost:11434/v1") and is_local("http://127.0.0.1:8080")
    assert not is_local("https://api.deepseek.com") and not is_local("http://gpu-box:8000/v1")


def test_a_connection_cut_after_the_finish_reason_loses_nothing(server):
    server.reply_events('data: {"choices": [{"index": 0, "delta": {"content": "all"}, "finish_reason": "stop"}]}',
                        cut=True)
    notices: list[Notice] = []
    assert model_for(server, notices).complete(MESSAGES, [], lambda piece: None).text == "all"
    assert notices == [] and len(server.requests) == 1
