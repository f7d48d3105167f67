"""/export writes the session as markdown: messages, tool calls, results and mode changes."""

from __future__ import annotations

from session.store import SessionStore
from tests.harness import call, journaled, turn
from ui.slash import run_slash_command


def test_export_writes_messages_calls_results_and_mode_changes(workspace, tmp_path):
    session, live = journaled(workspace, SessionStore(tmp_path / "db"), [
        turn("Looking first.", call("Write", file_path="a.txt", content="```x```")),
        turn("Planned.")], mode="plan")
    session.run("add a file")
    run_slash_command("/mode yolo", live)
    (workspace / "notes").mkdir()
    outcome = run_slash_command("/export notes/session.md", live)
    assert not outcome.is_error, outcome.message
    text = (workspace / "notes" / "session.md").read_text()
    assert f"# stepagent session {session.state.session_id}" in text
    assert "### User\n\nadd a file" in text and "Looking first." in text
    assert "**Tool call Write:**" in text and '"file_path": "a.txt"' in text
    assert "**Result of Write:**" in text and "plan-mode-guard" in text
    assert "_Mode → **yolo** (by /mode yolo)_" in text
    assert "````json" in text, "a fence longer than any backtick run in the content"
    default = workspace / ".stepagent" / "exports" / f"{session.state.session_id}.md"
    assert run_slash_command("/export", live).message == f"Exported this session to {default}."
    assert run_slash_command("/export", live).message.endswith("It replaced the earlier export there.")
    assert (workspace / ".stepagent" / ".gitignore").exists(), "exports are kept out of commits"


def test_export_never_overwrites_a_file_that_is_not_an_earlier_export(workspace, tmp_path):
    session, live = journaled(workspace, SessionStore(tmp_path / "db"), [turn("hello")])
    session.run("hi")
    (workspace / "notes.md").write_text("my own notes\n")
    refused = run_slash_command("/export notes.md", live)
    assert refused.is_error and "notes.md" in refused.message and "Nothing written" in refused.message
    assert (workspace / "notes.md").read_text() == "my own notes\n"
    (workspace / "link.md").symlink_to(workspace / "notes.md")
    assert run_slash_command("/export link.md", live).is_error
    assert (workspace / "notes.md").read_text() == "my own notes\n"
    assert not run_slash_command("/export fresh.md", live).is_error
    again = run_slash_command("/export fresh.md", live)
    assert not again.is_error and again.message.endswith("It replaced the earlier export there.")
