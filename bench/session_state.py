"""Session state costs: a TodoWrite round trip, resuming a session, and a keystroke after it.

TodoWrite round trip: one scripted model step that calls TodoWrite with five
items, through the hooks, the handler and the journal into SQLite.
Resume: reading a stored session of 1,000 message entries and putting it back
into a fresh agent (Session.resume).
Keystroke: what the prompt's bottom toolbar costs on each key (ui/prompt.py:
`toolbar`, rendered as prompt-toolkit renders it) after resuming a session of
10,000 entries whose server reported no usage, side by side with a fresh
session's. Target: ≤ 1.5× (the context share is a running estimate).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from common import Targets, conditions, median_seconds, ratio
from prompt_toolkit.formatted_text import to_formatted_text

from agent.assemble import assemble
from ui.product import product_layers
from models.scripted import ScriptedModel
from session.journal import Journal
from session.live import Session
from session.store import SessionStore
from state import AppState
from tools.plan_mode import PlanReview
from ui.prompt import toolbar

RUNS = 21
KEYSTROKES, BATCH = 41, 25  # pairs of batches: one key alone is too short to time
KEYSTROKE_TARGET = 1.5
TODOS = [{"content": f"Step {n}", "status": "in_progress" if n == 0 else "pending"} for n in range(5)]


def live_session(store: SessionStore, workspace: Path, turns: list[dict]) -> Session:
    state = AppState()
    agent = assemble(workspace, state, ScriptedModel(turns), lambda plan: PlanReview("reject"),
                     lambda request: True, product_layers())
    journal = Journal(store, state, workspace, warn=print)
    state.events.subscribe(journal.on_event)
    return Session(agent, journal)


def main() -> int:
    print(conditions())
    targets = Targets()
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-session-") as folder:
        measure(Path(folder), targets)
    return targets.exit_code()


def stored_session(store: SessionStore, workspace: Path, exchanges: int) -> str:
    """The id of a stored session of `exchanges` user messages and answers."""
    stored = live_session(store, workspace, [])
    for number in range(exchanges):
        stored.agent.add({"role": "user", "content": f"message {number} " + "x" * 200})
        stored.agent.add({"role": "assistant", "content": f"answer {number} " + "y" * 200})
    return stored.agent.state.session_id


def keystroke(session: Session) -> None:
    """What one key costs at the prompt: the bottom toolbar, drawn as prompt-toolkit draws it."""
    state = session.agent.state
    to_formatted_text(toolbar(state, lambda: "model", session.context_line, todos=session.todos)())


def measure(workspace: Path, targets: Targets) -> None:
    """The figures, with the session database in `workspace`."""
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

    session_id = stored_session(store, workspace, 500)
    count = len(store.entries(session_id))
    resume = median_seconds(lambda: live_session(store, workspace, []).resume(session_id), RUNS)
    print(f"resume a session of {count} entries: {resume * 1000:.1f} ms (median of {RUNS})")

    resumed, fresh = live_session(store, workspace, []), live_session(store, workspace, [])
    resumed.resume(stored_session(store, workspace, 5_000))
    keystroke(resumed)
    keys = ratio(lambda: [keystroke(resumed) for _ in range(BATCH)],
                 lambda: [keystroke(fresh) for _ in range(BATCH)], KEYSTROKES)
    print(f"a keystroke's toolbar: fresh session {keys.reference / BATCH * 1e6:.0f} µs, after resuming "
          f"{len(resumed.agent.messages):,} entries {keys.measured / BATCH * 1e6:.0f} µs")
    print(f"  resumed / fresh: {keys} "
          f"{targets.check('keystroke', keys.median, KEYSTROKE_TARGET, f'{KEYSTROKE_TARGET}×')}")


if __name__ == "__main__":
    sys.exit(main())
