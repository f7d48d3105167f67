"""A plan-mode prompt leaves symbolic links' access times alone: through `-p`, as a user runs it.

Following a link reads it, and reading a link moves its access time (under relatime: when
it is older than the link's last change; a fresh clone's links are that old). Read, Grep
and Glob resolve the path the model names in stepagent's own process, outside bubblewrap's
read-only view, a deny rule looks at where a path leads, and the classifier at which
program a path to a command names: a Read through a link, a chain of links with `..`
between them, a search of a folder or a file reached through one, a command run through
one, must all leave every link's access time as it was, and still find what they look for.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.harness import run_index
from tests.test_leases import Holder
from tests.test_sandbox import DETECTED

OLD = 1_000_000_000


def aged_link(path: Path, target: str) -> Path:
    """A link whose access time is older than its change, as relatime updates on the next read."""
    path.symlink_to(target)
    os.utime(path, (OLD, OLD + 10), follow_symlinks=False)
    return path


def access_time(link: Path) -> float:
    return link.lstat().st_atime


@pytest.fixture
def links_keep_times(tmp_path: Path) -> None:
    if DETECTED.bwrap is None:
        pytest.skip("no bubblewrap here: links are read plainly and their times may move, as the doctor says")
    probe = aged_link(tmp_path / "probe", ".")
    os.stat(probe)
    if access_time(probe) == OLD:
        pytest.skip("this filesystem does not update access times")


def test_reads_and_searches_through_links_leave_their_access_times(workspace, tmp_path, capsys,
                                                                   monkeypatch, links_keep_times):
    (workspace / "notes.txt").write_text("needle in the notes\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "guide.md").write_text("needle in the guide\n")
    links = [aged_link(workspace / "link.txt", "notes.txt"), aged_link(workspace / "to-docs", "docs"),
             aged_link(workspace / "chain.txt", "to-docs/../link.txt"),
             aged_link(workspace / "to-bin", os.path.dirname(shutil.which("cat")))]
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(secret.txt)"]}}))
    calls = [("Read", {"file_path": "link.txt"}), ("Read", {"file_path": "chain.txt"}),
             ("Grep", {"pattern": "needle", "path": "to-docs"}), ("Grep", {"pattern": "needle", "path": "link.txt"}),
             ("Glob", {"pattern": "*.md", "path": "to-docs"}), ("Bash", {"command": "to-bin/cat notes.txt"})]
    results = plan_mode_calls(tmp_path, capsys, monkeypatch, calls)
    assert [("needle in the" in result) for result in results[:4]] == [True] * 4, results
    assert "guide.md" in results[4] and "needle in the notes" in results[5], results
    assert [access_time(link) for link in links] == [OLD] * 4, "a link's access time moved"


def plan_mode_calls(tmp_path: Path, capsys, monkeypatch, calls: list[tuple[str, dict]]) -> list[str]:
    """The tool results of one plan-mode `-p` prompt whose scripted model makes `calls`."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": name, "arguments": args} for name, args in calls]},
                                  {"text": "looked"}]))
    code, out, err = run_index(capsys, monkeypatch, "--script", str(script), "--mode", "plan", "-p", "look",
                               "--output-format", "stream-json")
    assert code == 0, err
    messages = [json.loads(line).get("message", {}) for line in out.splitlines()]
    return [message["content"] for message in messages if message.get("role") == "tool"]


def test_a_search_that_looks_for_leased_files_leaves_the_links_it_meets(workspace, tmp_path, capsys,
                                                                       monkeypatch, links_keep_times):
    (workspace / "docs").mkdir()
    (workspace / "docs" / "guide.md").write_text("needle in the guide\n")
    links = [aged_link(workspace / "to-docs", "docs"), aged_link(workspace / "guide.md", "docs/guide.md")]
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("held\n")
    holder = Holder(elsewhere, tmp_path / "signalled")  # so the search walks the tree for leased files
    try:
        results = plan_mode_calls(tmp_path, capsys, monkeypatch, [("Grep", {"pattern": "needle"}),
                                                                   ("Glob", {"pattern": "*.md"})])
    finally:
        holder.stop()
    assert "needle in the guide" in results[0] and "guide.md" in results[1], results
    assert [access_time(link) for link in links] == [OLD] * 2, "a link's access time moved"


def test_a_search_outside_the_workspace_checks_its_linked_ignore_files_quietly(workspace, tmp_path, capsys,
                                                                                monkeypatch, links_keep_times):
    outside = tmp_path / "outside"
    (outside / "clone").mkdir(parents=True)
    (outside / "rules").write_text("*.log\n")
    (outside / "clone" / "notes.txt").write_text("needle outside\n")
    (outside / "clone" / "real.git").write_text("gitdir: nowhere\n")
    links = [aged_link(outside / "clone" / ".gitignore", "../rules"),
             aged_link(outside / "clone" / ".git", "real.git")]
    results = plan_mode_calls(tmp_path, capsys, monkeypatch, [("Grep", {"pattern": "needle", "path": str(outside)})])
    assert "needle outside" in results[0], results
    assert [access_time(link) for link in links] == [OLD] * 2, "a link's access time moved"
