"""Harness overhead per model round trip, and whether it grows with the history.

    .venv/bin/python bench/loop_overhead.py

1. A 200-step scripted session: the model answers instantly and the tool does
   nothing, so what is left is the loop itself (prompt and tool schemas, the
   preparers: reminders and the compaction estimate, argument validation, hooks).
   Target: ≤ 2 ms per round trip, in build and in plan mode.
2. The same loop as a user runs it: the real openai client against the local
   server (tests/fake_chat_server.py) and the journal writing every event to the
   session store, in two sessions side by side, one with 20 messages of history and
   one with 1,600. The figure is the CPU time of the loop's thread per step (the
   server runs in threads of its own). Target: at 1,600 ≤ 1.5× at 20, flat.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from client_overhead import history
from common import Targets, conditions, ratio

from agent.assemble import assemble
from ui.product import product_layers
from models.openai_chat import OpenAIChatModel
from models.scripted import ScriptedModel
from session.journal import Journal
from session.live import Session
from session.store import SessionStore
from state import AppState
from tests.fake_chat_server import FakeChatServer
from tools.base import Tool, ToolResult, object_schema
from tools.plan_mode import PlanReview

STEPS = 200
TARGET = 0.002
SHORT, LONG = 20, 1_600
STEPS_PER_TURN, TURNS = 5, 15
GROWTH_TARGET = 1.5
WINDOW = 1_000_000  # the long history must not be compacted away


def with_noop(agent) -> None:
    agent.executor.tools["Noop"] = Tool("Noop", "does nothing", object_schema({"n": {"type": "integer"}}),
                                        lambda args: ToolResult("ok"), read_only=True)


def scripted(plan_mode: bool, workspace: Path) -> float:
    """Seconds per round trip over one scripted session of STEPS steps."""
    state = AppState()
    if plan_mode:
        state.enter_plan_mode("bench")
    turns = [{"text": "step", "tool_calls": [{"name": "Noop", "arguments": {"n": i}}]}
             for i in range(STEPS - 1)] + [{"text": "done"}]
    agent = assemble(workspace, state, ScriptedModel(turns), lambda plan: PlanReview("reject"),
                     lambda request: True, product_layers())
    agent.max_steps = STEPS
    with_noop(agent)
    start = time.perf_counter()
    outcome = agent.run_turn("go")
    elapsed = time.perf_counter() - start
    if outcome.ending != "answered":
        raise SystemExit(f"the scripted session ended early ({outcome.ending}); no figure")
    return elapsed / STEPS


def journaled(workspace: Path, store: SessionStore, server: FakeChatServer, length: int) -> Session:
    """A session with the real client and the journal, its history `length` messages long."""
    state = AppState()
    model = OpenAIChatModel("m", "k", server.url)
    agent = assemble(workspace, state, model, lambda plan: PlanReview("reject"), lambda request: True,
                     product_layers(store=store, window=(WINDOW, 0.8)))
    with_noop(agent)
    journal = Journal(store, state, workspace, warn=print)
    state.events.subscribe(journal.on_event)
    session = Session(agent, journal)
    for message in history(length):
        agent.add(message)
    if session.context_tokens() > WINDOW * 0.8:
        raise SystemExit("the long history would be compacted; no figure")
    return session


def main() -> int:
    print(conditions())
    targets = Targets()
    for plan_mode in (False, True):
        with tempfile.TemporaryDirectory(prefix="stepagent-bench-loop-") as workspace:
            per_step = min(scripted(plan_mode, Path(workspace)) for _ in range(3))
        mode = "plan" if plan_mode else "build"
        print(f"scripted model, {STEPS} steps, {mode} mode: {per_step * 1000:.3f} ms per round trip "
              f"{targets.check(f'loop ({mode})', per_step, TARGET, '2 ms')}")

    server = FakeChatServer()
    server.start()
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-loop-") as folder:
        workspace = Path(folder)
        store = SessionStore(workspace / "sessions.db")
        sessions = {length: journaled(workspace, store, server, length) for length in (SHORT, LONG)}

        def turn(length: int) -> None:
            for number in range(STEPS_PER_TURN - 1):
                server.reply_tool_calls(("Noop", {"n": number}))
            server.reply_text("done")
            outcome = sessions[length].agent.run_turn("go on")
            if outcome.ending != "answered":
                raise SystemExit(f"the session ended early ({outcome.ending}: {outcome.error}); no figure")
            server.requests.clear()
            server.spans.clear()

        turn(SHORT), turn(LONG)  # warm up: the openai import, the connection, the history seen once
        grown = ratio(lambda: turn(LONG), lambda: turn(SHORT), TURNS, clock=time.thread_time)
        store.close()
    server.stop()
    print(f"real client + journal, CPU per step: {SHORT} messages "
          f"{grown.reference / STEPS_PER_TURN * 1000:.2f} ms, {LONG} messages "
          f"{grown.measured / STEPS_PER_TURN * 1000:.2f} ms (median of {TURNS} turns in turn)")
    print(f"  {LONG} / {SHORT}: {grown} {targets.check('loop growth', grown.median, GROWTH_TARGET, '1.5×')}")
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
