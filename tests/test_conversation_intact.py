"""After a turn stops early, "the conversation is intact" is said only when it is true.

True means the history in memory is a valid next request and the stored copy
replays to the same messages. Each case runs a REPL turn (`send_turn`, the
REPL's own) on a session journaled to a real store, reads the screen, then
reads the store back as a resume would.
"""

from __future__ import annotations

import io

from rich.console import Console

from agent.events import MessageAdded, ToolStarted
from session.journal import read_session
from session.store import SessionStore
from tests.harness import assert_valid_history, call, journaled, turn
from ui.console import ConsoleView
from ui.repl import send_turn

INTACT = "The conversation is intact"


def screen_after_a_turn(live, text: str = "go") -> str:
    """What the REPL shows after one turn."""
    screen = io.StringIO()
    send_turn(live, ConsoleView(Console(file=screen, width=300)), text, None)
    return " ".join(screen.getvalue().split())


def interrupt_on(kind, when=lambda event: True):
    """A listener that presses Ctrl-C at the first event of this kind (once)."""
    pressed = []

    def listener(event) -> None:
        if isinstance(event, kind) and when(event) and not pressed:
            pressed.append(event)
            raise KeyboardInterrupt
    return listener


def stored_messages(store: SessionStore, session) -> list[dict]:
    return read_session(store, session.state.session_id).messages


def test_ctrl_c_in_a_call_says_intact_and_the_store_holds_the_same_history(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    session, live = journaled(workspace, store, [turn("", call("Glob", pattern="*")), turn("done")])
    session.state.events.subscribe(interrupt_on(ToolStarted))
    shown = screen_after_a_turn(live)
    assert "Turn cancelled (Ctrl-C)" in shown and INTACT in shown
    assert stored_messages(store, session) == session.agent.messages
    assert_valid_history(session.agent.messages)


def test_ctrl_c_while_the_screen_draws_a_reply_still_stores_it_and_says_intact(workspace, tmp_path):
    """The console hears each event before the journal: a Ctrl-C there must not keep it from the store."""
    store = SessionStore(tmp_path / "sessions.db")
    session, live = journaled(workspace, store, [turn("", call("Glob", pattern="*")), turn("done")])
    session.state.events.listeners.insert(0, interrupt_on(
        MessageAdded, lambda event: bool(event.message.get("tool_calls"))))
    shown = screen_after_a_turn(live)
    assert INTACT in shown
    stored = stored_messages(store, session)
    assert stored == session.agent.messages and [m["role"] for m in stored] == ["user", "assistant", "tool"]
    assert_valid_history(stored)


def test_a_store_that_lost_a_reply_is_not_called_intact_and_is_written_no_further(workspace, tmp_path,
                                                                                  monkeypatch):
    store = SessionStore(tmp_path / "sessions.db")
    append = store.append

    def losing(session_id, kind, payload):  # a disk that drops a write and says nothing
        return 0 if payload.get("tool_calls") else append(session_id, kind, payload)

    monkeypatch.setattr(store, "append", losing)
    session, live = journaled(workspace, store, [turn("", call("Glob", pattern="*")), turn("done")])
    session.state.events.subscribe(interrupt_on(ToolStarted))
    shown = screen_after_a_turn(live)
    assert "Turn cancelled (Ctrl-C)" in shown and INTACT not in shown
    assert "saved copy" in shown and "orphan" in shown
    left = len(store.entries(session.state.session_id))
    assert live.store is None
    screen_after_a_turn(live, "more")
    assert len(store.entries(session.state.session_id)) == left, "nothing more is written after it"


def test_an_internal_error_says_intact_only_with_the_store_checked(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    session, live = journaled(workspace, store, [turn("", call("Glob", pattern="*")), turn("done")])

    def broken(event) -> None:
        if isinstance(event, MessageAdded) and event.message.get("tool_calls"):
            raise OSError("render failed")
    session.state.events.subscribe(broken)
    shown = screen_after_a_turn(live)
    assert "internal error" in shown and INTACT in shown
    assert stored_messages(store, session) == session.agent.messages


def test_a_write_the_store_fails_on_leaves_no_orphan_and_is_not_called_saved(workspace, tmp_path,
                                                                           monkeypatch):
    """An unexpected failure inside the journal's write is a refused write: the store is left whole."""
    store = SessionStore(tmp_path / "sessions.db")
    append = store.append

    def failing(session_id, kind, payload):
        if payload.get("tool_calls"):
            raise TypeError("Object of type bytes is not JSON serializable")
        return append(session_id, kind, payload)

    monkeypatch.setattr(store, "append", failing)
    session, live = journaled(workspace, store, [turn("", call("Glob", pattern="*")), turn("done")])
    session.state.events.subscribe(interrupt_on(ToolStarted))
    shown = screen_after_a_turn(live)
    assert INTACT in shown and "not being saved" in shown
    stored = stored_messages(store, session)
    assert [m["role"] for m in stored] == ["user"]
    assert_valid_history(stored)
