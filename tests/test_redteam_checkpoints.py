"""Checkpoints hold in a workspace a hostile or an unusual tree can make: an empty nested repository.

`git init sub` in the workspace (a nested repository with no commit yet) made git's
`add` refuse the whole snapshot, so every prompt's checkpoint held no files and
/rewind could bring nothing back. The nested repository is left out (git would keep
only its commit id, and it has none); the rest of the workspace is snapshot as ever.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from session.store import SessionStore
from tests.harness import call, journaled, turn
from session.rewind.layer import rewind_of


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "home" / "sessions.db")


def test_an_empty_nested_repository_leaves_the_checkpoints_whole(workspace: Path, store: SessionStore):
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    subprocess.run(["git", "init", "-q", "sub"], cwd=workspace, check=True)
    subprocess.run(["git", "init", "-q", "deep/er"], cwd=workspace, check=True)
    (workspace / "notes.txt").write_text("before\n")
    session, _ = journaled(workspace, store, [
        turn("", call("Write", file_path="notes.txt", content="after\n")), turn("written"),
        turn("", call("Write", file_path="notes.txt", content="later\n")), turn("written again")],
        home=store.path.parent, mode="yolo")
    rewind = rewind_of(session.agent)
    session.run("change the notes")
    session.run("change them again")
    assert [checkpoint.problem for checkpoint in rewind.checkpoints()] == ["", ""]
    listed = rewind.listing()
    assert [(c.status, c.path) for c in listed[0].changes] == [("M", "notes.txt")]
    rewind.rewind(1)
    assert (workspace / "notes.txt").read_text() == "before\n"
    assert (workspace / "sub" / ".git").is_dir() and (workspace / "deep" / "er" / ".git").is_dir()
