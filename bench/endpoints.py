"""What the endpoint layer costs: assembling a stream, and one reply through the local server.

    .venv/bin/python bench/endpoints.py

Prints the time to assemble a long streamed reply (text and split tool calls)
from its event lines, and the time of one whole reply through the real openai
client against the fake server for each endpoint family. Asserts nothing.
"""

from __future__ import annotations

import json

from common import median_seconds

from models.openai_chat import OpenAIChatModel
from models.stream import StreamAssembler, assemble
from tests.fake_chat_server import FakeChatServer, render
from tests.fake_families import FAMILIES

PIECES = 5_000
CALLS = [("Write", {"file_path": f"f{n}.py", "content": "x = 1\n" * 200}) for n in range(20)]


def stream_lines() -> list[str]:
    events = render(FAMILIES["openai"], {"text": ["word "] * PIECES, "calls": CALLS}, wants_usage=True)
    return [line for event in events for line in (event, "")]


def main() -> None:
    lines = stream_lines()
    seconds = median_seconds(lambda: assemble(lines, StreamAssembler()), runs=5)
    print(f"assemble {PIECES} text chunks + {len(CALLS)} split tool calls: {seconds * 1000:.1f} ms "
          f"({len(lines) // 2 / seconds:,.0f} events/s)")
    for name, family in sorted(FAMILIES.items()):
        server = FakeChatServer(family=family)
        server.start()
        model = OpenAIChatModel("m", "k", server.url, retry_delay=0)
        messages = [{"role": "user", "content": "hi"}]

        def one_reply() -> None:
            server.reply(text=["Hello ", "world."], calls=[("Read", {"file_path": "a.py"})],
                         reasoning=["thinking"])
            model.complete(messages, [], lambda piece: None)

        one_reply()  # warm up: openai import, connection, and any adaptation the family needs
        seconds = median_seconds(one_reply, runs=20)
        print(f"one reply via the openai client, {name:9}: {seconds * 1000:.1f} ms "
              f"({json.dumps(model.adaptations.describe())})")
        server.stop()


if __name__ == "__main__":
    main()
