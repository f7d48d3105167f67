"""A checkpoint git cannot finish leaves nothing behind in stepagent's home: through `-p`.

Before each prompt, planning too, rewind's checkpoint hashes the workspace into
the shadow repository. A very large file (a dataset, a disk image not in
.gitignore) keeps git compressing past its time limit, and git, stopped, left
what it had written so far in the shadow's objects: about a gigabyte for each
session in a workspace with a 3 GB file, so the home folder grew at every start.
"""

from __future__ import annotations

import os
from pathlib import Path

from session.rewind import git_plumbing, shadow_repo
from session.rewind.shadow_repo import shadow_folder
from session.store import SessionStore
from tests.test_user_hooks_cli import run  # noqa: F401 (a fixture)

SPARSE_BYTES = 64 << 30  # zeros on disk take no room; git still reads and compresses them all


def unfinished(home: Path, workspace: Path) -> list[str]:
    objects = shadow_folder(home, workspace) / "objects"
    return sorted(str(path.relative_to(objects)) for path in objects.rglob("tmp_*"))


def test_a_snapshot_stopped_for_time_leaves_no_unfinished_objects(run, server, workspace, monkeypatch):
    monkeypatch.setattr(git_plumbing, "TIMEOUT_SECONDS", 0.3)
    monkeypatch.setattr(shadow_repo, "LARGEST_FILE_BYTES", SPARSE_BYTES)  # hashed, as a file below the bound is
    with open(workspace / "disk.img", "wb") as image:
        image.truncate(SPARSE_BYTES)
    (workspace / "notes.md").write_text("hello\n")
    server.reply_text("just looking")
    code, _, err = run("--mode", "plan", "-p", "look around")
    assert code == 0, err
    home = Path(os.environ["STEPAGENT_HOME"])
    store = SessionStore(home / "sessions.db")
    try:
        [(_, checkpoint)] = store.checkpoints(store.sessions(workspace)[0].id)
    finally:
        store.close()
    assert not checkpoint.commit and "did not finish" in checkpoint.problem
    assert unfinished(home, workspace) == [], "git's unfinished objects were left in the home folder"
