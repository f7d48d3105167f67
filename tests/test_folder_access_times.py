"""A plan-mode prompt leaves folders' access times alone: through `-p`, as a user runs it.

Listing a folder moves its access time as reading a file does (under relatime,
when it is older than the last change). Grep, Glob and rewind's checkpoint look
through a tree in stepagent's own process, outside bubblewrap's read-only view:
for leased files when another process anywhere holds a lease, and, for a search
of a folder outside the workspace, for ignore files that lead somewhere unsafe.
Each such look must leave the folders' access times as they were.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_leases import Holder
from tests.test_sandbox import DETECTED
from tests.test_user_hooks_cli import run  # noqa: F401 (a fixture)

OLD = 1_000_000_000
SEARCHES = [("Grep", {"pattern": "needle"}), ("Glob", {"pattern": "*.txt"})]


def aged_tree(top: Path) -> list[Path]:
    """top/a/b with a file in each, every folder's access time older than its change; the folders."""
    folders = [top, top / "a", top / "a" / "b"]
    folders[-1].mkdir(parents=True)
    for folder in folders:
        (folder / "f.txt").write_text("needle\n")
    for folder in reversed(folders):
        os.utime(folder, (OLD, OLD + 10))
    return folders


def access_times(folders: list[Path]) -> list[float]:
    return [folder.stat().st_atime for folder in folders]


def updates_folder_access_times(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    os.utime(probe, (OLD, OLD + 10))
    os.listdir(probe)
    return probe.stat().st_atime != OLD


def plan_searches(run, server, path: str) -> str:
    server.reply_tool_calls(*((name, {**args, "path": path}) for name, args in SEARCHES))
    server.reply_text("looked")
    code, _, err = run("--mode", "plan", "-p", "look for the needle")
    assert code == 0, err
    return err


@pytest.fixture
def folders_keep_times(tmp_path: Path) -> None:
    if DETECTED.bwrap is None:
        pytest.skip("no bubblewrap here: ripgrep's own reads move access times, as the doctor says")
    if not updates_folder_access_times(tmp_path):
        pytest.skip("this filesystem does not update access times")


def test_searching_while_another_process_holds_a_lease_leaves_folder_access_times(
        run, server, workspace, tmp_path, folders_keep_times):
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("held\n")
    holder = Holder(elsewhere, tmp_path / "signalled")
    try:
        folders = aged_tree(workspace)
        err = plan_searches(run, server, ".")
    finally:
        holder.stop()
    assert "3 files" in err
    assert access_times(folders) == [OLD] * 3, "a folder's access time moved"


def test_searching_a_folder_outside_the_workspace_leaves_its_access_times(
        run, server, workspace, tmp_path, folders_keep_times):
    folders = aged_tree(tmp_path / "outside")
    err = plan_searches(run, server, str(tmp_path / "outside"))
    assert "3 files" in err
    assert access_times(folders) == [OLD] * 3, "a folder's access time moved"
