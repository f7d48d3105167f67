"""Property tests: whatever a server streams, the client returns a Reply or raises a ModelError.

Seeded and bounded (derandomize, max_examples) so CI stays fast and repeatable.
Three levels: decoded chunks of any JSON shape into the assembler; any event
lines into the stream reader; and real HTTP through the openai client, with
the stream written in arbitrary pieces and cut at an arbitrary byte.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.base import ModelError, Reply
from models.openai_chat import OpenAIChatModel
from models.stream import StreamAssembler, StreamBroken, assemble
from tests.fake_chat_server import FakeChatServer, render
from tests.fake_families import FAMILIES

BOUNDED = settings(derandomize=True, max_examples=60, deadline=None,
                   suppress_health_check=[HealthCheck.function_scoped_fixture,
                                          HealthCheck.too_slow])
OVER_HTTP = settings(BOUNDED, max_examples=40)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(
        st.sampled_from(["choices", "delta", "content", "tool_calls", "index", "id", "function",
                         "name", "arguments", "finish_reason", "usage", "error", "reasoning",
                         "reasoning_content", "prompt_tokens"]), children, max_size=4),
    max_leaves=12)
tool_names = st.text(max_size=12)
arguments = st.one_of(st.dictionaries(st.text(max_size=5), json_values, max_size=3),
                      st.text(max_size=20))


@BOUNDED
@given(st.lists(json_values, max_size=8))
def test_any_chunks_make_a_reply_or_a_broken_stream(chunks):
    assembler = StreamAssembler()
    try:
        for chunk in chunks:
            assembler.feed(chunk)
        reply = assembler.reply()
    except StreamBroken:
        return
    assert isinstance(reply, Reply) and all(isinstance(c.arguments, str) for c in reply.tool_calls)
    assert len({call.id for call in reply.tool_calls}) == len(reply.tool_calls)


@BOUNDED
@given(st.lists(st.text(max_size=40), max_size=12))
def test_any_event_lines_make_a_reply_or_a_broken_stream(lines):
    try:
        reply = assemble(lines, StreamAssembler())
    except StreamBroken:
        return
    assert isinstance(reply, Reply) and isinstance(reply.text, str)


@pytest.fixture(scope="module")
def server():
    fake = FakeChatServer()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def model(server):
    return OpenAIChatModel("m", "k", server.url, max_retries=0)


def _expected(text: list[str], calls: list[tuple[str, object]]) -> tuple[str, list[tuple[str, str]]]:
    encoded = [(name, args if isinstance(args, str) else json.dumps(args)) for name, args in calls]
    return "".join(text), [(name, args if args.strip() else "{}") for name, args in encoded]


@OVER_HTTP
@given(text=st.lists(st.text(max_size=10), max_size=3),
       calls=st.lists(st.tuples(tool_names, arguments), max_size=3),
       sizes=st.lists(st.integers(min_value=1, max_value=64), max_size=6),
       cut=st.none() | st.floats(min_value=0, max_value=1, exclude_max=True))
def test_the_client_returns_the_reply_or_one_model_error_however_the_stream_is_cut(
        server, model, text, calls, sizes, cut):
    payload = "".join(f"{event}\n\n" for event in render(
        FAMILIES["openai"], {"text": text, "calls": calls}, wants_usage=True)).encode()
    if cut is not None:
        payload = payload[:int(len(payload) * cut)]
    server.reply_bytes(payload, cut=cut is not None, sizes=tuple(sizes))
    try:
        reply = model.complete([{"role": "user", "content": "hi"}], [], lambda piece: None)
    except ModelError:
        assert cut is not None, "a whole stream must not fail"
        return
    assert (reply.text, [(c.name, c.arguments) for c in reply.tool_calls]) == _expected(text, calls)


SSE_PIECES = [b"data: ", b"data: [DONE]", b"\n", b"\n\n", b": keep-alive", b"{", b"}", b"[", b"]",
              b'"choices": [{"delta": {"content": "x"}, "finish_reason": "stop"}]', b",", b'"error"',
              b'{"choices": []}', b"\xff\xfe", b"null"]
sse_like_bytes = st.lists(st.sampled_from(SSE_PIECES) | st.binary(max_size=6), max_size=30).map(b"".join)


@OVER_HTTP
@given(sse_like_bytes)
def test_any_bytes_from_the_server_are_a_reply_or_one_model_error(server, model, payload):
    server.reply_bytes(payload)
    try:
        model.complete([{"role": "user", "content": "hi"}], [], lambda piece: None)
    except ModelError as failure:
        assert "\n" not in str(failure)
