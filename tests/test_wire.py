"""The request body models/wire.py makes is the history as it is now, however the history changed.

The encoder keeps each conversation's history encoded between requests; whatever a
session does to its history between two requests (grow, rewind, compact, resume, a
sub-agent's conversation in between, reasoning no longer sent back), the bytes must
decode to exactly the shaped messages of this request.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings, strategies as st

from models.wire import RUNS_KEPT, WireEncoder

Message = dict[str, Any]
BODY = {"model": "m", "stream": True}


def plain(message: Message) -> Message:
    return message


def without_reasoning(message: Message) -> Message:
    return {key: value for key, value in message.items() if key != "reasoning_content"}


SHAPES = {False: plain, True: without_reasoning}


def decoded(encoder: WireEncoder, messages: list[Message], drops_reasoning: bool = False) -> Any:
    return json.loads(encoder.encode(BODY, messages, SHAPES[drops_reasoning], drops_reasoning))


def expected(messages: list[Message], drops_reasoning: bool = False) -> Any:
    return {"messages": [SHAPES[drops_reasoning](message) for message in messages], **BODY}


steps = st.lists(st.tuples(st.sampled_from(["grow", "rewind", "replace", "system", "shape"]),
                           st.integers(0, RUNS_KEPT + 2), st.integers(0, 4)),
                 min_size=1, max_size=40)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(steps)
def test_every_request_decodes_to_its_messages_whatever_happened_in_between(script):
    encoder = WireEncoder()
    histories: list[list[Message]] = [[] for _ in range(RUNS_KEPT + 3)]
    prompts = ["prompt"] * len(histories)
    made = 0
    drops_reasoning = False
    for action, which, count in script:
        history = histories[which]
        if action == "grow":
            for _ in range(count):
                made += 1
                history.append({"role": "assistant", "content": f"m{made}", "reasoning_content": "r"}
                               if made % 2 else {"role": "user", "content": f"m{made}"})
        elif action == "rewind":
            del history[len(history) - count:]
        elif action == "replace":
            history[:] = [dict(message) for message in history[count:]]
        elif action == "system":
            prompts[which] = f"prompt {made}"
        else:
            drops_reasoning = not drops_reasoning
        request = [{"role": "system", "content": prompts[which]}, *history]
        assert decoded(encoder, request, drops_reasoning) == expected(request, drops_reasoning)


def test_a_request_without_history_or_without_a_system_prompt():
    encoder = WireEncoder()
    assert decoded(encoder, []) == expected([])
    system = [{"role": "system", "content": "a"}, {"role": "system", "content": "b"}]
    assert decoded(encoder, system) == expected(system)
    bare = [{"role": "user", "content": "hi"}]
    assert decoded(encoder, bare) == expected(bare)
    assert json.loads(encoder.encode({}, bare, plain, None)) == {"messages": bare}


def test_each_history_message_is_encoded_once_across_interleaved_conversations():
    """The loop's and its sub-agents' conversations take turns on one model: none is re-encoded."""
    shaped: list[str] = []

    def counting(message: Message) -> Message:
        shaped.append(message["content"])
        return message

    encoder = WireEncoder()
    histories: list[list[Message]] = [[] for _ in range(RUNS_KEPT)]
    for turn in range(3):
        for number, history in enumerate(histories):
            history.append({"role": "user", "content": f"{number}.{turn}"})
            encoder.encode(BODY, [{"role": "system", "content": "s"}, *history], counting, None)
    assert sorted(shaped) == sorted(["s"] * 3 * RUNS_KEPT +
                                    [f"{number}.{turn}" for number in range(RUNS_KEPT) for turn in range(3)])
