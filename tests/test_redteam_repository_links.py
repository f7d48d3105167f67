"""A plan-mode prompt leaves the links on the way to the workspace's repository as they were.

Before every prompt, while planning too, the file checkpoint (session/rewind) looks for the
workspace's own repository, to copy its ignore rules: a `.git` folder, a `.git` file's
`gitdir:`, that folder's `commondir`, its `info/exclude`, and the user's global excludes
file. A link on any of those ways (a `.git` file leading through a linked folder, an exclude
file linked to shared rules, a dotfile manager's `~/.config/git/ignore`) was followed in
stepagent's own process or by bubblewrap binding it, and following a link moves its access
time. Each link's time must stay, and the rules still apply: an ignored file is not
checkpointed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from session.rewind.shadow_repo import shadow_folder
from tests.test_redteam_link_times import (OLD, access_time, aged_link, links_keep_times,  # noqa: F401
                                          plan_mode_calls)


def checkpointed(tmp_path: Path, workspace: Path) -> set[str]:
    """The files of every checkpoint of the workspace."""
    shadow = ["git", "--git-dir", str(shadow_folder(tmp_path / "home", workspace))]
    commits = subprocess.run([*shadow, "for-each-ref", "--format=%(objectname)"], capture_output=True,
                             text=True, check=True).stdout.split()
    assert commits, "no checkpoint was made"
    return {name for commit in commits for name in subprocess.run(
        [*shadow, "ls-tree", "-r", "--name-only", commit], capture_output=True, text=True,
        check=True).stdout.split()}


def test_the_links_to_the_repository_and_its_ignore_rules_keep_their_access_times(
        workspace, tmp_path, capsys, monkeypatch, links_keep_times):
    outside = tmp_path / "outside"
    subprocess.run(["git", "init", "-q", str(outside / "work")], check=True)
    (outside / "work" / ".git").rename(outside / "real.git")
    (outside / "rules").write_text("*.log\n")
    (outside / "global-rules").write_text("*.tmp\n")
    (outside / "real.git" / "info" / "exclude").unlink()
    (tmp_path / "config" / "git").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    links = [aged_link(workspace / "to-outside", str(outside)),
             aged_link(outside / "real.git" / "info" / "exclude", "../../rules"),
             aged_link(tmp_path / "config" / "git" / "ignore", str(outside / "global-rules"))]
    (workspace / ".git").write_text("gitdir: to-outside/real.git\n")
    for name in ("notes.txt", "debug.log", "scratch.tmp"):
        (workspace / name).write_text("hello\n")
    results = plan_mode_calls(tmp_path, capsys, monkeypatch, [("Read", {"file_path": "notes.txt"})])
    assert "hello" in results[0], results
    assert [access_time(link) for link in links] == [OLD] * 3, "a link's access time moved"
    assert checkpointed(tmp_path, workspace) == {"notes.txt", "to-outside"}


def test_a_linked_dot_git_keeps_its_access_time(workspace, tmp_path, capsys, monkeypatch, links_keep_times):
    outside = tmp_path / "outside"
    subprocess.run(["git", "init", "-q", str(outside / "work")], check=True)
    link = aged_link(workspace / ".git", str(outside / "work" / ".git"))
    (workspace / "notes.txt").write_text("hello\n")
    results = plan_mode_calls(tmp_path, capsys, monkeypatch, [("Read", {"file_path": "notes.txt"})])
    assert "hello" in results[0], results
    assert access_time(link) == OLD, "the .git link's access time moved"
