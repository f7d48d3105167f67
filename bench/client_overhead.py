"""What one request costs the client as the history grows: 20 messages against 1,600.

    .venv/bin/python bench/client_overhead.py

The real client (models/openai_chat.py) sends one streamed request to the local
server (tests/fake_chat_server.py) as the agent loop does: a fresh system prompt,
then the history, which grows by a tool call and its result before each request.
The two sessions take turns. The figure is the CPU time of the calling thread
only, so it is the client's work: shaping, encoding, sending and reading the
reply. The server runs in threads of its own and keeps no request bodies, so
freeing them is not counted against the client either. For the record it also
prints what the SDK's own `chat.completions.create` would add by checking every
message against its types. Target: at 1,600 messages ≤ 1.5× the cost at 20.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from common import Targets, conditions, ratio, samples, spread

from models.openai_chat import OpenAIChatModel
from tests.fake_chat_server import FakeChatServer

RUNS = 31
SHORT, LONG = 20, 1_600
TARGET = 1.5


def history(length: int) -> list[dict[str, Any]]:
    """A session's history of `length` messages: a request, then tool calls and their results."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Review the parser and fix the bug."}]
    number = 0
    while len(messages) < length:
        call_id = f"call_{number}"
        messages.append({"role": "assistant", "content": f"Reading part {number}.",
                         "tool_calls": [{"id": call_id, "type": "function",
                                         "function": {"name": "Read",
                                                      "arguments": f'{{"file_path": "src/p{number}.py"}}'}}]})
        messages.append({"role": "tool", "tool_call_id": call_id,
                         "content": f"def part_{number}(tokens):\n    return [t for t in tokens]\n" * 6})
        number += 1
    return messages[:length] if messages[length - 1]["role"] != "assistant" else messages[:length - 1]


def sdk_transform_seconds(messages: list[dict[str, Any]]) -> float:
    """What the SDK's create() spends checking the messages against its types before sending."""
    from openai._utils import maybe_transform
    from openai.types.chat import completion_create_params

    body = {"model": "m", "messages": messages, "stream": True}
    return min(samples(lambda: maybe_transform(body, completion_create_params.CompletionCreateParamsStreaming),
                       3))


class Conversation:
    """A session's side of the requests: the history, its client, one more call per request."""

    def __init__(self, server: FakeChatServer, length: int):
        self.server, self.history = server, history(length)
        self.model = OpenAIChatModel("m", "k", server.url)
        self.calls = 0

    def request(self) -> None:
        """The next step's request: a call and its result appended, then sent as the loop sends it."""
        call_id = f"call_next_{self.calls}"
        self.calls += 1
        self.history += [{"role": "assistant", "content": "", "tool_calls": [
                             {"id": call_id, "type": "function",
                              "function": {"name": "Read", "arguments": '{"file_path": "next.py"}'}}]},
                         {"role": "tool", "tool_call_id": call_id, "content": "print('next')\n"}]
        self.server.reply_text("Done.")
        self.model.complete([{"role": "system", "content": "You are a coding agent."}, *self.history],
                            [], lambda piece: None)


def main() -> int:
    print(conditions())
    server = FakeChatServer(records=False)
    server.start()
    short, long = Conversation(server, SHORT), Conversation(server, LONG)
    short.request()  # warm up: the openai import, the connection, the history seen once
    long.request()
    targets = Targets()
    lengths = len(short.history), len(long.history)
    measured = ratio(long.request, short.request, RUNS, clock=time.thread_time)
    print(f"client CPU per request: {lengths[0]}–{len(short.history)} messages "
          f"{measured.reference * 1000:.2f} ms, {lengths[1]}–{len(long.history)} messages "
          f"{measured.measured * 1000:.2f} ms (median of {RUNS} in turn)")
    print(f"  {LONG} messages / {SHORT}: {measured} "
          f"{targets.check('client overhead', measured.median, TARGET, f'{TARGET}×')}")
    transform = sdk_transform_seconds(long.history)
    print(f"  for the record, the SDK's type check of {len(long.history)} messages alone: "
          f"{transform * 1000:.1f} ms (not paid: the request goes out as JSON bytes)")
    wall = samples(long.request, 5)
    print(f"  wall-clock per request at {len(long.history)} messages, server included: {spread(wall)}")
    server.stop()
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
