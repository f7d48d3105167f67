"""Rewind's checkpoint before a plan-mode prompt acts on nothing it reads: through `-p`, as a user runs it.

The checkpoint's git reads the whole workspace on the host before every prompt,
outside every tool. It must keep plan mode's promise as Read and Grep do: a
lease another process holds is not broken, access times stay (where bubblewrap
gives a read-only view), and a `.git` file whose `gitdir:` leads outside to a
FIFO wakes no writer. The lease and the FIFO are tried with bubblewrap and
without (Landlock).
"""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from session.rewind import git_plumbing
from session.store import SessionStore
from tests.hidden_layers import configuration  # noqa: F401 (a fixture)
from tests.test_leases import Holder
from tests.test_sandbox import DETECTED
from tests.test_user_hooks_cli import run  # noqa: F401 (a fixture)


def plan_mode_prompt(run, server, workspace: Path) -> list:
    """One plan-mode prompt the model only answers; the checkpoints the session stored."""
    server.reply_text("just looking")
    code, _, err = run("--mode", "plan", "-p", "look around")
    assert code == 0, err
    store = SessionStore(Path(os.environ["STEPAGENT_HOME"]) / "sessions.db")
    try:
        session_id = store.sessions(workspace)[0].id
        return [checkpoint for _, checkpoint in store.checkpoints(session_id)]
    finally:
        store.close()


def test_the_checkpoint_leaves_another_process_lease_alone(run, server, workspace, tmp_path, configuration):
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "notes.md").write_text("hello\n")
    (workspace / "leased.txt").write_text("held\n")
    holder = Holder(workspace / "leased.txt", tmp_path / "signalled")
    try:
        checkpoints = plan_mode_prompt(run, server, workspace)
        assert not holder.signalled
    finally:
        holder.stop()
    assert checkpoints[0].commit and checkpoints[0].plan_mode


def test_the_checkpoint_leaves_access_times_alone_in_bubblewraps_view(run, server, workspace):
    """Without bubblewrap git's reads move access times, as the doctor's table says."""
    if DETECTED.bwrap is None:
        pytest.skip("no bubblewrap here: nothing gives git a read-only view")
    notes = workspace / "notes.md"
    notes.write_text("hello\n")
    os.utime(notes, (1_000_000_000, 1_000_000_010))  # older than the change: the next plain read moves it
    assert plan_mode_prompt(run, server, workspace)[0].commit
    assert notes.stat().st_atime == 1_000_000_000


def test_a_git_file_leading_to_a_fifo_outside_wakes_no_writer(
        run, server, workspace, tmp_path, monkeypatch, configuration):
    monkeypatch.setattr(git_plumbing, "TIMEOUT_SECONDS", 10)
    outside = tmp_path / "outside"
    (outside / "objects").mkdir(parents=True)
    (outside / "refs").mkdir()
    os.mkfifo(outside / "HEAD")
    (workspace / "sub").mkdir()
    (workspace / "sub" / ".git").write_text(f"gitdir: {outside}\n")
    (workspace / "sub" / "a.txt").write_text("a\n")
    woken = threading.Event()

    def writer() -> None:
        os.close(os.open(outside / "HEAD", os.O_WRONLY))  # returns once a reader opens the FIFO
        woken.set()
    threading.Thread(target=writer, daemon=True).start()
    try:
        checkpoints = plan_mode_prompt(run, server, workspace)
        assert not woken.is_set()
        assert checkpoints[0].commit
    finally:
        os.close(os.open(outside / "HEAD", os.O_RDONLY | os.O_NONBLOCK))  # lets the writer go
