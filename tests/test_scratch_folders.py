"""A plan-mode call's scratch space: bounded in total, and removed only by whoever may.

The first plan-mode Bash call removes only what this user's dead stepagents
left in this namespace: the temp folder is shared with other users and other
PID namespaces, where the same pid is another process. Each folder below is
named as a call's private folder would be; one plan-mode Bash call through
the executor then sweeps. And what a call writes to TMPDIR is bounded in
total, with bubblewrap (a tmpfs) and without (scratch_guard.py).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.harness import Session, call, turn
from tests.hidden_layers import configuration  # noqa: F401 (a fixture)
from tools.bash.sandbox import private_folders
from tools.bash.sandbox.scratch import SCRATCH_PREFIX, Mark, this_process

pytestmark = pytest.mark.usefixtures("on_each_system")  # tests/test_without_linux.py

NOBODY = 65534


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


@pytest.fixture
def temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def left(temp_folder: Path, mark: Mark | None, name: str = "") -> Path:
    folder = temp_folder / (name or f"{mark.prefix()}abcd1234")
    (folder / "tmp").mkdir(parents=True)
    (folder / "tmp" / "spill").write_text("x")
    return folder


def sweep(workspace: Path) -> None:
    session = Session(workspace, [turn("", call("Bash", command="true")), turn("done")], mode="plan")
    session.run()
    assert "exit code 0" in session.tool_results()[0]


def test_a_dead_stepagent_of_this_user_and_namespace_is_cleaned_up(workspace, temp_folder):
    me = this_process()
    dead = left(temp_folder, Mark(dead_pid(), me.start, me.namespace))
    reused = left(temp_folder, Mark(me.pid, me.start + 1, me.namespace))
    alive = left(temp_folder, me)
    sweep(workspace)
    assert not dead.exists(), "a dead stepagent's folder stays"
    assert not reused.exists(), "a pid reused since: its maker is dead"
    assert alive.exists(), "a running stepagent's folder went"


def test_what_another_namespace_left_or_an_unmarked_folder_stays(workspace, temp_folder):
    me = this_process()
    other_namespace = left(temp_folder, Mark(dead_pid(), me.start, me.namespace + 1))
    unmarked = left(temp_folder, None, f"{SCRATCH_PREFIX}{dead_pid()}-abcd1234")
    sweep(workspace)
    assert other_namespace.exists() and unmarked.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a folder to another user")
def test_a_folder_another_user_made_stays_even_when_named_as_ours(workspace, temp_folder, tmp_path):
    me = this_process()
    forged = left(temp_folder, Mark(dead_pid(), me.start, me.namespace))
    for path in (forged, forged / "tmp", forged / "tmp" / "spill"):
        os.chown(path, NOBODY, NOBODY)
    target = tmp_path / "victim"
    (target / "keep").mkdir(parents=True)
    link = temp_folder / f"{Mark(dead_pid(), me.start, me.namespace).prefix()}link0000"
    link.symlink_to(target)
    sweep(workspace)
    assert (forged / "tmp" / "spill").exists() and (target / "keep").exists() and link.is_symlink()


def test_the_scratch_space_is_bounded_in_total(workspace, configuration, monkeypatch):
    """`sort` spills its runs into TMPDIR file after file, each below the per-file bound."""
    monkeypatch.setattr(private_folders, "SCRATCH_BYTES", 2 << 20)
    session = Session(workspace, [turn("", call("Bash", command="seq 1 1500000 | sort -S 1M | tail -1")),
                                  turn("done")], mode="plan")
    session.run()
    result, = session.tool_results()
    assert "999999" not in result, f"sort spilled past the bound: {result}"
    assert "No space left" in result or "scratch space ($TMPDIR) took more than 2 MiB" in result, result
