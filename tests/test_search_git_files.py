"""Grep and Glob never open what a `.git` file leads to unless it is a regular file.

ripgrep reads a `.git` that is a file (a worktree's or a submodule's: `gitdir:
DIR`), then DIR/commondir, then the folder that names plus info/exclude, all
without checking what they are. A hostile repository (or the folder beside
it) can make any of them a FIFO outside the workspace, or a link into procfs.
Each case runs through the executor in plan mode, with bubblewrap and without,
and a writer waiting on the FIFO must stay waiting.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.harness import Session, call, turn
from tests.hidden_layers import configuration  # noqa: F401 (a fixture)
from tests.test_host_reads import kernel_log_with_unread_lines, unread_kernel_log  # noqa: F401 (a fixture)
from tests.test_search_bounds import blocked_writer, release


def planned(workspace: Path, *calls: dict) -> list[str]:
    session = Session(workspace, [turn("", *calls), turn("done")], mode="plan")
    session.run()
    return session.tool_results()


def chains(outside: Path) -> dict[str, dict[str, str]]:
    """Ways a `.git` file leads to a FIFO: the .git file's text, its commondir's text (if any), where
    the FIFO sits below `outside` and, for a `.git` that is a link, where the file really is."""
    return {
        "commondir": {"gitdir": f"gitdir: {outside / 'worktree'}\n", "fifo": "worktree/commondir"},
        "exclude": {"gitdir": f"gitdir: {outside / 'worktree'}\n", "commondir": str(outside / "common"),
                    "fifo": "common/info/exclude"},
        "relative-commondir": {"gitdir": f"gitdir: {outside / 'worktree'}\n", "commondir": "./../common",
                               "fifo": "common/info/exclude"},
        "relative-gitdir": {"gitdir": "gitdir: ../outside/worktree\n", "fifo": "worktree/commondir"},
        "linked-git-file": {"gitdir": f"gitdir: {outside / 'worktree'}\r\n", "link": str(outside / "gitfile"),
                            "fifo": "worktree/commondir"},
    }


def make_chain(workspace: Path, outside: Path, chain: dict[str, str], where: str) -> Path:
    """The `.git` file at `where` in the workspace, what it leads to, and the FIFO at its end."""
    (workspace / where).mkdir(parents=True, exist_ok=True)
    (outside / "worktree").mkdir(parents=True, exist_ok=True)
    if "link" in chain:
        Path(chain["link"]).write_bytes(chain["gitdir"].encode())
        os.symlink(chain["link"], workspace / where / ".git")
    else:
        (workspace / where / ".git").write_bytes(chain["gitdir"].encode())
    if "commondir" in chain:
        (outside / "worktree" / "commondir").write_text(chain["commondir"] + "\n")
    fifo = outside / chain["fifo"]
    fifo.parent.mkdir(parents=True, exist_ok=True)
    return fifo


@pytest.mark.parametrize("tool,args", [("Grep", {"pattern": "hello"}), ("Glob", {"pattern": "*"})])
@pytest.mark.parametrize("kind", ["commondir", "exclude", "relative-commondir", "relative-gitdir",
                                  "linked-git-file"])
@pytest.mark.parametrize("where", [".", "sub/nested"])
def test_a_git_file_leading_to_a_fifo_wakes_no_writer(workspace, tmp_path, configuration, tool, args,
                                                     kind, where):
    (workspace / "notes.md").write_text("hello\n")
    outside = tmp_path / "outside"
    fifo = make_chain(workspace, outside, chains(outside)[kind], where)
    woken = blocked_writer(fifo)
    try:
        results = planned(workspace, call(tool, **args), call(tool, **args, path=".."))
        assert not woken.is_set(), f"ripgrep opened {fifo}: {results}"
    finally:
        release(fifo)


@pytest.mark.parametrize("where", [".", "sub"])
def test_a_git_link_into_procfs_is_not_read(workspace, configuration, where, kernel_log_with_unread_lines):
    """`.git -> /proc/kmsg` looks like a file to ripgrep, which reads its first line: the kernel's log."""
    (workspace / "notes.md").write_text("hello\n")
    (workspace / where).mkdir(exist_ok=True)
    os.symlink("/proc/kmsg", workspace / where / ".git")
    results = planned(workspace, call("Grep", pattern="hello"), call("Glob", pattern="*", path=".."))
    assert unread_kernel_log() >= kernel_log_with_unread_lines, f"the kernel log was consumed: {results}"
