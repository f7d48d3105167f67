"""Record a session against the local Chat Completions server, replay it offline, --check it."""

from __future__ import annotations

import json

import pytest

import index
from session.recording import Recorder, recorded_calls
from tests.harness import Session, call, turn

NOTES = "Meeting notes: ship on Friday.\n"


def run_in(folder, monkeypatch, capsys, *args: str) -> tuple[int, str]:
    folder.mkdir(exist_ok=True)
    monkeypatch.chdir(folder)
    code = index.main(list(args))
    return code, capsys.readouterr().out


def test_a_recorded_session_replays_offline_and_check_spots_a_different_workspace(
        server, workspace, tmp_path, monkeypatch, capsys):
    server.reply_tool_calls(("Write", {"file_path": "notes.txt", "content": NOTES}))
    server.reply_tool_calls(("Read", {"file_path": "notes.txt"}))
    server.reply_text("Written and checked.")
    recording = tmp_path / "lesson.json"
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    code, out = run_in(workspace, monkeypatch, capsys, "--mode", "yolo", "--record", str(recording),
                       "-p", "write the meeting notes")
    assert code == 0 and out.strip() == "Written and checked."
    scenario = json.loads(recording.read_text())
    write, read = (turn["tool_calls"][0] for turn in scenario["turns"][:2])
    assert scenario["turns"][0]["user"] == "write the meeting notes" and scenario["mode"] == "yolo"
    assert write["arguments"] == {"file_path": "notes.txt", "content": NOTES}
    assert write["result"].startswith("Created notes.txt") and "ship on Friday" in read["result"]

    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    served = len(server.requests)
    replay = tmp_path / "replay"
    code, out = run_in(replay, monkeypatch, capsys, "--mode", "yolo", "--script", str(recording),
                       "-p", "write the meeting notes")
    assert code == 0 and out.strip() == "Written and checked."
    assert (replay / "notes.txt").read_text() == (workspace / "notes.txt").read_text() == NOTES
    assert len(server.requests) == served, "the replay is offline"

    code, out = run_in(tmp_path / "fresh", monkeypatch, capsys, "--script", str(recording), "--check")
    assert code == 0 and "Every tool result matches" in out
    assert (tmp_path / "fresh" / "notes.txt").read_text() == NOTES

    changed = tmp_path / "changed"
    changed.mkdir()
    (changed / "notes.txt").write_text("someone else's notes\n")
    code, out = run_in(changed, monkeypatch, capsys, "--script", str(recording), "--check")
    assert code == 1
    assert "call 1 Write" in out and "Overwrote" in out and "1 tool result(s) differ" in out


def test_lone_surrogates_are_recorded_and_replay_as_they_came(server, workspace, tmp_path, monkeypatch,
                                                              capsys):
    """A model's JSON may hold `\\ud800`: the recording keeps it as that escape, which reads back whole."""
    server.reply_tool_calls(("Edit", {"file_path": "a.txt", "old_string": "\ud800", "new_string": "x"}))
    server.reply_text("answer \ud800 here")
    recording = tmp_path / "odd.json"
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    code, _ = run_in(workspace, monkeypatch, capsys, "--mode", "yolo", "--record", str(recording),
                     "-p", "edit it")
    assert code == 0
    scenario = json.loads(recording.read_text(encoding="utf-8"))
    assert scenario["turns"][0]["tool_calls"][0]["arguments"]["old_string"] == "\ud800"
    assert scenario["turns"][1]["text"] == "answer \ud800 here"
    monkeypatch.delenv("OPENAI_BASE_URL")
    code, out = run_in(tmp_path / "fresh", monkeypatch, capsys, "--script", str(recording), "--check")
    assert code == 0 and "Every tool result matches" in out, out


def test_check_needs_a_script(workspace, capsys):
    with pytest.raises(SystemExit) as exit_code:
        index.main(["--check"])
    assert exit_code.value.code == 2 and "--check needs --script" in capsys.readouterr().err


def test_a_pending_plan_replays_as_pending(server, workspace, tmp_path, monkeypatch, capsys):
    server.reply_tool_calls(("ExitPlanMode", {"plan": "1. Write notes.txt."}))
    recording = tmp_path / "plan.json"
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    code, _ = run_in(workspace, monkeypatch, capsys, "--mode", "plan", "--record", str(recording),
                     "-p", "plan the notes")
    assert code == 4
    monkeypatch.delenv("OPENAI_BASE_URL")
    code, out = run_in(tmp_path / "fresh", monkeypatch, capsys, "--script", str(recording), "--check")
    assert code == 0 and "Every tool result matches" in out, out


def test_plan_feedback_replays_as_feedback_and_is_not_a_turn_of_the_user(workspace, tmp_path,
                                                                         monkeypatch, capsys):
    recording = tmp_path / "feedback.json"
    session = Session(workspace, [turn("", call("ExitPlanMode", plan="1. Write a long file.")),
                                  turn("", call("ExitPlanMode", plan="1. Write a short file.")),
                                  turn("", call("Write", file_path="short.txt", content="hi\n")),
                                  turn("Written.")],
                      plan_answers=["shorter, please", "e"], mode="plan")
    session.state.events.subscribe(Recorder(recording, session.state, workspace, "t").on_event)
    session.run("plan a file")
    assert (workspace / "short.txt").exists()
    scenario = json.loads(recording.read_text())
    assert [turn.get("user") for turn in scenario["turns"]] == ["plan a file", None, None, None]
    assert [call["review"] for call in recorded_calls(scenario) if "review" in call] == [
        {"outcome": "feedback", "feedback": "shorter, please"}, {"outcome": "approve", "mode": "edit"}]
    code, out = run_in(tmp_path / "fresh", monkeypatch, capsys, "--script", str(recording), "--check")
    assert code == 0 and "Every tool result matches" in out, out
    assert (tmp_path / "fresh" / "short.txt").exists()
