"""Memory across sessions: Remember and Forget, the index in later prompts, plan mode, /memory."""

from __future__ import annotations

import stat

import pytest
from rich.console import Console

from session.journal import Journal
from session.live import Session as LiveSession
from tests.harness import Session, call, turn
from tools.memory_files import INDEX, MemoryFolder, memory_dir, safe_name
from ui.console import ConsoleView
from ui.slash import run_slash_command

TABS = {"name": "Remember", "arguments": {
    "type": "user", "name": "Indent style", "description": "prefers tabs over spaces",
    "content": "The user asked for tabs in every Python file they own."}}


def forget(name: str) -> dict:
    return {"name": "Forget", "arguments": {"name": name}}


def folder_for(session: Session) -> MemoryFolder:
    return MemoryFolder(session.home, session.workspace)


def test_a_memory_reaches_the_next_session_and_leaves_after_forget(workspace, tmp_path):
    home = tmp_path / "home"
    first = Session(workspace, [turn("", TABS), turn("saved")], mode="yolo", home=home)
    first.run("remember that I like tabs")
    assert "Saved memory 'indent-style'" in first.tool_results()[0]
    folder = folder_for(first)
    assert not folder.root.is_relative_to(workspace)
    assert (folder.root / "indent-style.md").read_text().startswith(
        "---\ntype: user\nname: indent-style\ndescription: prefers tabs over spaces\n---")

    second = Session(workspace, [turn("", forget("indent-style")), turn("gone")],
                     mode="yolo", home=home)
    assert second.state.session_id != first.state.session_id
    second.run("hello")
    first_prompt = second.model.requests[0][0]["content"]
    assert "# Memory" in first_prompt and "indent-style" in first_prompt
    assert "prefers tabs over spaces" in first_prompt
    assert "indent-style" not in second.last_request()[0]["content"]

    third = Session(workspace, [turn("hi")], home=home)
    third.run("hello")
    assert "indent-style" not in third.last_request()[0]["content"]
    assert not (folder.root / "indent-style.md").exists()


def test_remember_is_denied_while_planning_with_a_hint(workspace, tmp_path):
    session = Session(workspace, [turn("", TABS, forget("x")), turn("ok")],
                      mode="plan", home=tmp_path / "home")
    session.run()
    remember, forgot = session.tool_results()
    assert "plan-mode-guard" in remember and "once the user has approved the plan" in remember
    assert "plan-mode-guard" in forgot
    assert folder_for(session).all() == []


def test_build_mode_asks_before_saving_a_memory(workspace, tmp_path):
    session = Session(workspace, [turn("", TABS), turn("ok")], permission_answers=[False],
                      home=tmp_path / "home")
    session.run()
    assert session.questions and "memory" in session.questions[0]
    assert folder_for(session).all() == []


def test_every_memory_written_is_shown_in_one_line(workspace, tmp_path):
    session = Session(workspace, [turn("", TABS), turn("ok")], mode="yolo", home=tmp_path / "home")
    view = ConsoleView(Console(record=True, width=200), stream_markdown=False)
    session.state.events.subscribe(view.on_event)
    session.run()
    lines = [line for line in view.console.export_text().splitlines() if line.startswith("memory")]
    assert lines == ["memory saved: indent-style (user) — prefers tabs over spaces"]


def test_the_full_text_is_read_on_demand_with_read(workspace, tmp_path):
    home = tmp_path / "home"
    Session(workspace, [turn("", TABS), turn("ok")], mode="yolo", home=home).run()
    path = MemoryFolder(home, workspace).root / "indent-style.md"
    session = Session(workspace, [turn("", call("Read", file_path=str(path))), turn("ok")], home=home)
    session.run()
    assert "tabs in every Python file" in session.tool_results()[0]
    assert str(path.parent) in session.model.requests[0][0]["content"]


@pytest.mark.parametrize("name", ["../../escape", "/etc/passwd", "a/b\\c", "..", "x" * 300])
def test_names_from_the_model_stay_inside_the_folder(workspace, tmp_path, name):
    home = tmp_path / "home"
    session = Session(workspace, [turn("", {"name": "Remember", "arguments": {
        "type": "project", "name": name, "description": "d", "content": "c"}}), turn("ok")],
                      mode="yolo", home=home)
    session.run()
    root = folder_for(session).root
    checkpoints = home / "checkpoints"  # rewind's, taken before the prompt
    written = {p for p in home.rglob("*") if p.is_file() and not p.is_relative_to(checkpoints)}
    if safe_name(name):
        assert written == {root / INDEX, root / f"{safe_name(name)}.md"}
    else:
        assert written == set() and "was not saved" in session.tool_results()[0]


def test_memory_is_never_written_through_a_symlink(workspace, tmp_path):
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = memory_dir(home, workspace)
    root.parent.mkdir(parents=True)
    root.symlink_to(elsewhere)
    session = Session(workspace, [turn("", TABS), turn("ok")], mode="yolo", home=home)
    session.run()
    assert "was not saved" in session.tool_results()[0]
    assert list(elsewhere.iterdir()) == []


def test_the_index_in_the_prompt_is_capped(workspace, tmp_path):
    folder = MemoryFolder(tmp_path / "home", workspace)
    for number in range(60):
        folder.remember("project", f"fact-{number:03}", "a fact worth keeping " * 3, "body")
    index = folder.prompt_index(max_chars=2000)
    assert len(index) < 2200 and "more; list them" in index
    assert (folder.root / INDEX).read_text().count("\n- ") == 60


def test_slash_memory_lists_and_opens_the_editor(workspace, tmp_path, monkeypatch):
    home = tmp_path / "home"
    session = Session(workspace, [turn("", TABS), turn("ok")], mode="yolo", home=home)
    session.run()
    live = LiveSession(session.agent, Journal(None, session.state, workspace, warn=print))
    assert "indent-style" in run_slash_command("/memory", live).message
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nsed -i "s/^description: .*/description: tabs, always/" "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("VISUAL", str(editor))
    outcome = run_slash_command("/memory indent-style", live)
    assert not outcome.is_error, outcome.message
    assert "tabs, always" in session.agent.system_prompt()
    assert run_slash_command("/memory missing", live).is_error
