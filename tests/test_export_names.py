"""/export FILE refuses, writing nothing and making no folder, a FILE whose folder does not exist
(as --record does), a FILE named as the other kind of export (`--html x.md`, `x.html`) and an
option it does not know (`--bogus` is no file name)."""

from __future__ import annotations

from pathlib import Path

from session.store import SessionStore
from tests.harness import journaled, turn
from ui.slash import run_slash_command


def exported_once(workspace: Path, tmp_path: Path):
    session, live = journaled(workspace, SessionStore(tmp_path / "db"), [turn("hello")])
    session.run("hi")
    return live


def test_export_into_a_missing_folder_is_refused_and_makes_no_folder(workspace: Path, tmp_path: Path):
    live = exported_once(workspace, tmp_path)
    outside = tmp_path / "nonexistent" / "dir"
    for command, folder in ((f"/export {outside}/x.md", outside), ("/export notes/x.md", workspace / "notes"),
                            (f"/export --html {outside}/x.html", outside)):
        refused = run_slash_command(command, live)
        assert refused.is_error and "Nothing written" in refused.message, command
        assert f"the folder {folder} does not exist" in refused.message
    assert not (tmp_path / "nonexistent").exists() and not (workspace / "notes").exists()
    (workspace / "notes").mkdir()
    assert not run_slash_command("/export notes/x.md", live).is_error
    assert (workspace / "notes" / "x.md").read_text().startswith("# stepagent session ")


def test_a_file_named_as_the_other_kind_is_refused_with_the_name_to_use(workspace: Path, tmp_path: Path):
    live = exported_once(workspace, tmp_path)
    page = run_slash_command("/export --html x.md", live)
    assert page.is_error and "Nothing written" in page.message and "x.html" in page.message
    notes = run_slash_command("/export x.html", live)
    assert notes.is_error and "Nothing written" in notes.message and "x.md" in notes.message
    assert not (workspace / "x.md").exists() and not (workspace / "x.html").exists()
    assert not run_slash_command("/export --html x.html", live).is_error
    assert not run_slash_command("/export x.txt", live).is_error, "another suffix is the user's choice"


def test_an_unknown_option_is_refused_and_html_takes_its_file_after_an_equals_sign(workspace: Path,
                                                                                  tmp_path: Path):
    live = exported_once(workspace, tmp_path)
    for command in ("/export --bogus", "/export --html --bogus", "/export -h"):
        refused = run_slash_command(command, live)
        assert refused.is_error and "Unknown option" in refused.message, command
    assert sorted(p.name for p in workspace.iterdir() if p.name.startswith("-")) == []
    assert not run_slash_command("/export --html=page.html", live).is_error
    assert (workspace / "page.html").read_text().startswith("<!DOCTYPE html>")
    assert not run_slash_command("/export ./-dash.md", live).is_error and (workspace / "-dash.md").exists()
