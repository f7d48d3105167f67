"""Session state costs: a TodoWrite round trip, and resuming a session of 1,000 entries.

TodoWrite round trip: one scripted model step that calls TodoWrite with five
items, through the hooks, the handler and the journal into SQLite.
Resume: reading a stored session of 1,000 message entries and putting it back
into a fresh agent (Session.resume).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from common import ROOT, median_seconds  # noqa: F401

from agent.assemble import assemble
from models.scripted import ScriptedModel
from session.journal import Journal
from session.live import Session
from session.store import SessionStore
from state import AppState
from tools.plan_mode import PlanReview

RUNS = 21
TODOS = [{"content": f"Step {n}", "status": "in_progress" if n == 0 else "pending"} for n in range(5)]


def live_session(store: SessionStore, workspace: Path, turns: list[dict]) -> Session:
    state = AppState()
    agent = assemble(workspace, state, ScriptedModel(turns), lambda plan: PlanReview("reject"),
                     lambda request: True)
    journal = Journal(store, state, workspace, warn=print)
    state.events.subscribe(journal.on_event)
    return Session(agent, journal)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-session-") as folder:
        measure(Path(folder))


def measure(workspace: Path) -> None:
    """Both figures, with the session database in `workspace`."""
    store = SessionStore(workspace / "sessions.db")
    session = live_session(store, workspace, [])
    call = {"name": "TodoWrite", "arguments": {"todos": TODOS}}

    def todo_round_trip() -> None:
        session.agent.model = ScriptedModel([{"tool_calls": [call]}, {"text": "ok"}])
        session.agent.run_turn("update the list")

    todo_round_trip()
    per_turn = median_seconds(todo_round_trip, RUNS)
    print(f"TodoWrite round trip (model step + hooks + handler + journal to SQLite, then the "
          f"closing answer): {per_turn * 1000:.2f} ms (median of {RUNS})")

    stored = live_session(store, workspace, [])
    for number in range(500):
        stored.agent.add({"role": "user", "content": f"message {number} " + "x" * 200})
        stored.agent.add({"role": "assistant", "content": f"answer {number} " + "y" * 200})
    session_id = stored.agent.state.session_id
    count = len(store.entries(session_id))
    resume = median_seconds(lambda: live_session(store, workspace, []).resume(session_id), RUNS)
    print(f"resume a session of {count} entries: {resume * 1000:.1f} ms (median of {RUNS})")


if __name__ == "__main__":
    main()
