"""Sub-agent concurrency: Agent calls of one reply side by side, against one after another.

    .venv/bin/python bench/subagents.py

The real openai client talks to the local fake server, which streams each
sub-agent's answer slowly (a fixed pause between events, standing in for a
model's latency). For 3 and then 5 Agent calls the parent sends them all in one
reply (concurrent), then one per reply (serial), each three times. Printed:
the median wall time of each turn, the speed-up, the time one sub-agent request
took at the server, and the most requests open at once in any run (the
executor allows 3 sub-agents), seen by the server and counted in the client.
Asserts nothing.
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from common import ROOT  # noqa: F401  (puts the project on sys.path)

from agent.assemble import assemble
from ui.product import product_layers
from models.base import Reply
from models.openai_chat import OpenAIChatModel
from state import AppState
from tests.fake_chat_server import FakeChatServer
from tools.plan_mode import PlanReview

PACE = 0.05
RUNS = 3
TEXT = ["found ", "it ", "in ", "src/", "app.py"]


def agent_call(number: int) -> tuple[str, dict[str, str]]:
    return ("Agent", {"description": f"look {number}", "prompt": f"area {number}",
                      "subagent_type": "explore"})


def queue(server: FakeChatServer, calls: int, concurrent: bool) -> None:
    """The parent's replies and the sub-agents' slow answers, in the order they will be asked for."""
    if concurrent:
        server.reply_tool_calls(*[agent_call(n) for n in range(calls)])
        for _ in range(calls):
            server.reply_text(*TEXT, pace=PACE)
    else:
        for n in range(calls):
            server.reply_tool_calls(agent_call(n))
            server.reply_text(*TEXT, pace=PACE)
    server.reply_text("all reported")


def sub_agent_spans(server: FakeChatServer) -> list[tuple[float, float]]:
    while len(server.spans) < len(server.requests):
        time.sleep(0.01)
    return [(began, ended) for began, ended, body in server.spans
            if next(m["content"] for m in body["messages"] if m["role"] == "user")
            .startswith("You are a sub-agent")]


def most_in_flight(spans: list[tuple[float, float]]) -> int:
    """The largest number of spans open at one moment (an end before a start at the same instant)."""
    edges = sorted([(ended, -1) for _, ended in spans] + [(began, 1) for began, _ in spans])
    open_now = most = 0
    for _, step in edges:
        open_now += step
        most = max(most, open_now)
    return most


@dataclass
class Counted:
    """The real client, counting how many of its requests are open at once (on the client's side)."""

    model: OpenAIChatModel
    open_now: int = 0
    most: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def name(self) -> str:
        return self.model.name

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        with self.lock:
            self.open_now += 1
            self.most = max(self.most, self.open_now)
        try:
            return self.model.complete(messages, tools, on_text)
        finally:
            with self.lock:
                self.open_now -= 1


@dataclass(frozen=True)
class Figures:
    """One turn: its wall time, a sub-agent request's mean time, the most requests open at once."""

    wall: float
    request: float
    most_at_server: int
    most_in_client: int


def one_turn(calls: int, concurrent: bool) -> Figures:
    """Run one parent turn whose Agent calls come together or one per reply."""
    server = FakeChatServer()
    server.start()
    try:
        queue(server, calls, concurrent)
        with tempfile.TemporaryDirectory() as folder:
            model = Counted(OpenAIChatModel("fake-model", "test-key", server.url, retry_delay=0.0))
            agent = assemble(Path(folder), AppState(), model, lambda plan: PlanReview("reject"),
                             lambda request: False, product_layers())
            began = time.perf_counter()
            agent.run_turn("research")
            wall = time.perf_counter() - began
        spans = sub_agent_spans(server)
        return Figures(wall, sum(e - b for b, e in spans) / len(spans), most_in_flight(spans),
                       model.most)
    finally:
        server.stop()


def median_turn(calls: int, concurrent: bool) -> Figures:
    """The median turn of RUNS by wall time, with the most requests open at once in any of them."""
    runs = sorted((one_turn(calls, concurrent) for _ in range(RUNS)), key=lambda figures: figures.wall)
    middle = runs[len(runs) // 2]
    return replace(middle, most_at_server=max(run.most_at_server for run in runs),
                   most_in_client=max(run.most_in_client for run in runs))


def main() -> None:
    one_turn(1, True)  # warm up: the openai import and the first connection
    print(f"each sub-agent answer streamed with a {PACE * 1000:.0f} ms pause between events")
    for calls in (3, 5):
        together, apart = median_turn(calls, concurrent=True), median_turn(calls, concurrent=False)
        print(f"{calls} Agent calls: in one reply {together.wall:.2f} s, one per reply "
              f"{apart.wall:.2f} s (speed-up {apart.wall / together.wall:.1f}x); one sub-agent "
              f"request {together.request:.2f} s")
        print(f"   most requests open at once (limit 3): {together.most_at_server} sub-agent "
              f"requests at the server, {together.most_in_client} model requests in the client; "
              f"one per reply: {apart.most_at_server} and {apart.most_in_client}")


if __name__ == "__main__":
    main()
