"""Checkpoints hold in a workspace a hostile or an unusual tree can make: an empty nested
repository, a huge file.

`git init sub` in the workspace (a nested repository with no commit yet) made git's
`add` refuse the whole snapshot, so every prompt's checkpoint held no files and
/rewind could bring nothing back. The nested repository is left out (git would keep
only its commit id, and it has none); the rest of the workspace is snapshot as ever.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from session.rewind import git_plumbing
from session.rewind.layer import rewind_of
from session.rewind.shadow_repo import shadow_folder
from session.store import SessionStore
from tests.harness import call, journaled, turn


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


def test_a_huge_file_is_left_out_of_the_checkpoints_instead_of_stalling_them(workspace: Path, store: SessionStore,
                                                                                monkeypatch):
    """A 64 GiB file (sparse: zeros take no room, yet git reads and compresses them all) kept
    the first prompt waiting for git's whole time limit, then no snapshot was tried again; one
    that git did finish was copied whole into stepagent's home. Files larger than the bound are
    left out (a rewind leaves them as they are), and a file that grows past it is dropped."""
    monkeypatch.setattr(git_plumbing, "TIMEOUT_SECONDS", 10)
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "notes.txt").write_text("before\n")
    (workspace / "grows.bin").write_bytes(b"small for now\n")
    with open(workspace / "disk.img", "wb") as image:
        image.truncate(64 << 30)
    session, _ = journaled(workspace, store, [
        turn("", call("Write", file_path="notes.txt", content="after\n")), turn("written"),
        turn("", call("Bash", command="truncate -s 64G grows.bin")), turn("grown")],
        home=store.path.parent, mode="yolo")
    rewind = rewind_of(session.agent)
    session.run("change the notes")
    session.run("grow the file")
    rewind.take("test", "now")
    assert [checkpoint.problem for checkpoint in rewind.checkpoints()] == ["", "", ""]
    first, second, _ = rewind.listing()
    assert [(c.status, c.path) for c in first.changes] == [("M", "notes.txt")]
    assert [(c.status, c.path) for c in second.changes] == [("D", "grows.bin")]
    objects = sum(path.stat().st_size for path in shadow_folder(store.path.parent, workspace).rglob("*")
                  if path.is_file())
    assert objects < 10 << 20, "the huge files were copied into stepagent's home"
