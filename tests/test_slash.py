"""The REPL's slash commands, on a live session with a store."""

from __future__ import annotations

from session.store import SessionStore
from tests.harness import call, journaled, turn
from ui.slash import run_slash_command


def test_plan_and_mode_commands(workspace, tmp_path):
    _, live = journaled(workspace, SessionStore(tmp_path / "db"), [])
    assert run_slash_command("/plan fix the bug", live).send == "fix the bug"
    assert live.agent.state.plan_mode
    assert run_slash_command("/plan", live).message, "a second /plan says plan mode is on already"
    assert run_slash_command("/mode nonsense", live).is_error
    assert run_slash_command("/mode plan", live).message, "the mode in force says so, not nothing"
    run_slash_command("/mode YOLO", live)
    assert not live.agent.state.plan_mode and live.agent.state.mode_label == "yolo"
    assert run_slash_command("/exit", live).exit
    assert run_slash_command("/nope", live).is_error


def test_todos_trace_compact_and_resume(workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    first, live = journaled(workspace, store, [
        turn("", call("TodoWrite", todos=[{"content": "Do it", "status": "pending"}])),
        turn("done"), turn("THE SUMMARY")])
    assert run_slash_command("/compact", live).message == "Nothing to compact yet."
    first.run("start")
    assert run_slash_command("/todos", live).message == "☐ Do it"
    assert "TodoWrite" in run_slash_command("/trace", live).message
    assert "THE SUMMARY" in run_slash_command("/compact", live).markdown

    second, other = journaled(workspace, store, [])
    listing = run_slash_command("/resume", other).message
    assert first.state.session_id in listing
    outcome = run_slash_command(f"/resume {first.state.session_id}", other)
    assert not outcome.is_error and second.agent.messages == first.agent.messages
    assert run_slash_command("/resume sess_missing", other).is_error


def test_a_command_typed_in_capitals_is_the_command(workspace, tmp_path):
    _, live = journaled(workspace, SessionStore(tmp_path / "db"), [])
    shown = run_slash_command("/HELP", live)
    assert not shown.is_error and shown.message == run_slash_command("/help", live).message
    assert run_slash_command("/Plan fix the bug", live).send == "fix the bug"
    assert run_slash_command("/EXIT", live).exit
