"""Rewind's snapshots and restores, against real git: what comes back, what is never touched,
and a cloned repository's configuration that cannot steer them."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
import os
import stat
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from session.rewind import git_plumbing
from session.rewind.git_plumbing import GitFailed
from session.rewind.restore import restore
from session.rewind.shadow_repo import Change, ShadowRepo, shadow_folder


def git(workspace: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=workspace,
                   check=True, capture_output=True)


def user_repo(workspace: Path) -> Path:
    git(workspace, "init", "-q")
    (workspace / "kept.txt").write_text("kept\n")
    (workspace / ".gitignore").write_text("*.log\nbuild/\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-qm", "first")
    return workspace


def fingerprint(folder: Path) -> dict[str, tuple[int, bytes, int]]:
    """Every file and link under `folder`: its mode, content (or target) and modification time."""
    found = {}
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(root, name)
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                body = os.readlink(path).encode()
            elif stat.S_ISREG(info.st_mode):
                body = path.read_bytes()
            else:
                body = b""
            found[str(path.relative_to(folder))] = (info.st_mode, body, info.st_mtime_ns)
    return found


def files_of(workspace: Path) -> dict[str, bytes]:
    """The workspace's files and links outside .git, with their contents (or link targets)."""
    return {name: body for name, (mode, body, _) in fingerprint(workspace).items()
            if not name.startswith(".git/") and name != ".git" and not stat.S_ISDIR(mode)}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_a_restore_brings_back_what_changed_and_removes_only_what_the_present_snapshot_holds(
        workspace: Path, home: Path):
    user_repo(workspace)
    (workspace / "notes.txt").write_text("untracked, not ignored\n")
    (workspace / "run.sh").write_text("#!/bin/sh\n")
    (workspace / "run.sh").chmod(0o755)
    (workspace / "old.log").write_text("ignored before\n")
    repo = ShadowRepo(home, workspace)
    before = repo.commit(repo.snapshot(), "before", "refs/stepagent/test")

    (workspace / "kept.txt").write_text("changed\n")
    (workspace / "notes.txt").unlink()
    (workspace / "run.sh").chmod(0o644)
    (workspace / "made").mkdir()
    (workspace / "made" / "new.py").write_text("new\n")
    (workspace / "link").symlink_to("kept.txt")
    (workspace / "old.log").write_text("ignored, changed\n")
    (workspace / "new.log").write_text("ignored, new\n")
    present = repo.snapshot()
    assert set(repo.changes(before, present)) == {
        Change("M", "kept.txt"), Change("D", "notes.txt"), Change("M", "run.sh"),
        Change("A", "made/new.py"), Change("A", "link")}

    done = restore(repo, present, before)

    assert sorted(done.written) == ["kept.txt", "notes.txt", "run.sh"]
    assert sorted(done.removed) == ["link", "made/new.py"]
    assert (workspace / "kept.txt").read_text() == "kept\n"
    assert (workspace / "notes.txt").read_text() == "untracked, not ignored\n"
    assert os.access(workspace / "run.sh", os.X_OK)
    assert not (workspace / "made").exists() and not (workspace / "link").is_symlink()
    assert (workspace / "old.log").read_text() == "ignored, changed\n"
    assert (workspace / "new.log").read_text() == "ignored, new\n"


def test_the_users_git_folder_is_byte_for_byte_the_same_after_snapshots_and_restores(
        workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch):
    user_repo(workspace)
    (workspace / "draft.txt").write_text("draft\n")
    git(workspace, "stash", "list")
    monkeypatch.setenv("GIT_DIR", str(workspace / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(workspace / ".git" / "index"))
    before = fingerprint(workspace / ".git")
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    (workspace / "kept.txt").write_text("changed\n")
    (workspace / "draft.txt").unlink()
    restore(repo, repo.snapshot(), first)
    assert fingerprint(workspace / ".git") == before
    assert shadow_folder(home, workspace).is_dir()


def test_a_cloned_repositorys_attributes_drivers_and_hooks_neither_run_nor_change_a_byte(
        workspace: Path, home: Path, tmp_path: Path):
    user_repo(workspace)
    witness = tmp_path / "ran"
    git(workspace, "config", "filter.evil.clean", f"touch {witness}; cat")
    git(workspace, "config", "filter.evil.smudge", f"touch {witness}; cat")
    git(workspace, "config", "core.fsmonitor", f"touch {witness}; false")
    (workspace / ".gitattributes").write_text("* text eol=crlf filter=evil ident\n")
    hook = workspace / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch {witness}\n")
    hook.chmod(0o755)
    raw = b"line one\r\nline two\n$Id$\n"
    (workspace / "mixed.txt").write_bytes(raw)
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    (workspace / "mixed.txt").write_bytes(b"other\n")
    restore(repo, repo.snapshot(), first)
    assert (workspace / "mixed.txt").read_bytes() == raw
    assert not witness.exists()


def test_a_workspace_that_is_not_a_repository_works_the_same(workspace: Path, home: Path):
    (workspace / ".gitignore").write_text("secret\n")
    (workspace / "a.txt").write_text("a\n")
    (workspace / "secret").write_text("s\n")
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    (workspace / "a.txt").unlink()
    (workspace / "b.txt").write_text("b\n")
    (workspace / "secret").write_text("changed\n")
    restore(repo, repo.snapshot(), first)
    assert files_of(workspace) == {".gitignore": b"secret\n", "a.txt": b"a\n", "secret": b"changed\n"}


def test_the_users_excludes_and_force_tracked_files_count_as_git_sees_them(
        workspace: Path, home: Path):
    user_repo(workspace)
    (workspace / ".git" / "info" / "exclude").write_text("private.txt\n")
    (workspace / "private.txt").write_text("excluded by info/exclude\n")
    (workspace / "forced.log").write_text("tracked although ignored\n")
    git(workspace, "add", "-f", "forced.log")
    (workspace / "later.txt").write_text("seen, then ignored\n")
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    (workspace / ".git" / "info" / "exclude").write_text("private.txt\nlater.txt\n")
    second = repo.snapshot()
    assert repo.changes(first, second) == [Change("D", "later.txt")]
    (workspace / "forced.log").write_text("changed\n")
    (workspace / "private.txt").write_text("changed\n")
    restore(repo, repo.snapshot(), first)
    assert (workspace / "forced.log").read_text() == "tracked although ignored\n"
    assert (workspace / "private.txt").read_text() == "changed\n"


def test_stepagents_home_inside_the_workspace_is_not_snapshotted(workspace: Path):
    repo = ShadowRepo(workspace / "own-home", workspace)
    (workspace / "a.txt").write_text("a\n")
    first = repo.snapshot()
    (workspace / "b.txt").write_text("b\n")
    assert repo.changes(first, repo.snapshot()) == [Change("A", "b.txt")]


def test_what_stands_in_the_way_is_left_alone_and_named(workspace: Path, home: Path):
    (workspace / "report").write_text("a file at first\n")
    (workspace / "out").write_text("a file at first\n")
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    (workspace / "report").unlink()
    (workspace / "report").mkdir()
    (workspace / ".gitignore").write_text("*.tmp\n")
    (workspace / "report" / "cache.tmp").write_text("ignored inside the new folder\n")
    present = repo.snapshot()
    done = restore(repo, present, first)
    assert "report" in done.left
    assert (workspace / "report" / "cache.tmp").read_text() == "ignored inside the new folder\n"


def outside_folder(tmp_path: Path) -> Path:
    """A folder outside the workspace holding f.txt, for a link to lead to."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("outside\n")
    return outside


def swap_for_link(folder: Path, target: Path) -> None:
    """Replace `folder` and its f.txt with a link to `target`."""
    (folder / "f.txt").unlink()
    folder.rmdir()
    folder.symlink_to(target)


def test_a_link_swapped_in_for_a_folder_never_leads_the_restore_outside(
        workspace: Path, home: Path, tmp_path: Path):
    outside = outside_folder(tmp_path)
    (workspace / "d").mkdir()
    (workspace / "d" / "f.txt").write_text("inside\n")
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    swap_for_link(workspace / "d", outside)
    restore(repo, repo.snapshot(), first)
    assert (outside / "f.txt").read_text() == "outside\n"
    assert not (workspace / "d").is_symlink()
    assert (workspace / "d" / "f.txt").read_text() == "inside\n"


def test_a_link_swapped_in_after_the_snapshot_of_the_present_is_not_followed_to_remove(
        workspace: Path, home: Path, tmp_path: Path):
    outside = outside_folder(tmp_path)
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    (workspace / "d").mkdir()
    (workspace / "d" / "f.txt").write_text("made later\n")
    present = repo.snapshot()
    swap_for_link(workspace / "d", outside)
    done = restore(repo, present, first)
    assert done.left == ["d/f.txt"]
    assert (outside / "f.txt").read_text() == "outside\n"


def test_a_fifo_in_the_workspace_is_never_opened(workspace: Path, home: Path):
    os.mkfifo(workspace / "pipe")
    (workspace / "a.txt").write_text("a\n")
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    (workspace / "a.txt").write_text("b\n")
    restore(repo, repo.snapshot(), first)
    assert stat.S_ISFIFO((workspace / "pipe").lstat().st_mode)
    assert (workspace / "a.txt").read_text() == "a\n"


def test_a_fifo_named_gitignore_stops_the_snapshot_with_a_reason_instead_of_hanging(
        workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(git_plumbing, "TIMEOUT_SECONDS", 1)
    (workspace / "sub").mkdir()
    os.mkfifo(workspace / "sub" / ".gitignore")
    repo = ShadowRepo(home, workspace)
    with pytest.raises(GitFailed, match="FIFO named .gitignore"):
        repo.snapshot()
    monkeypatch.setattr(git_plumbing, "TIMEOUT_SECONDS", 600)
    with pytest.raises(GitFailed, match="no more snapshots are tried"):
        repo.snapshot()


NAMES = st.sampled_from(["a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "g.log", "h"])
CONTENTS = st.one_of(st.none(), st.binary(max_size=40))


def lay_out(workspace: Path, files: dict[str, bytes | None]) -> None:
    for name, content in files.items():
        path = workspace / name
        if content is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.dictionaries(NAMES, CONTENTS), after=st.dictionaries(NAMES, CONTENTS))
def test_any_change_of_the_files_is_undone_and_ignored_files_stay_as_they_are(
        tmp_path_factory: pytest.TempPathFactory, before: dict, after: dict):
    root = tmp_path_factory.mktemp("case")
    workspace, home = root / "workspace", root / "home"
    workspace.mkdir()
    (workspace / ".gitignore").write_text("*.log\n")
    lay_out(workspace, before)
    repo = ShadowRepo(home, workspace)
    first = repo.snapshot()
    kept = {name: body for name, body in files_of(workspace).items() if not name.endswith(".log")}
    lay_out(workspace, after)
    ignored = {name: body for name, body in files_of(workspace).items() if name.endswith(".log")}
    restore(repo, repo.snapshot(), first)
    assert files_of(workspace) == {**kept, **ignored}


def test_two_stepagents_in_one_workspace_take_turns_with_the_shadow_index(
        workspace: Path, home: Path):
    for number in range(200):
        (workspace / f"f{number}.txt").write_text(f"{number}\n")
    repos = [ShadowRepo(home, workspace) for _ in range(4)]
    with ThreadPoolExecutor(len(repos)) as pool:
        trees = list(pool.map(lambda repo: repo.snapshot(), repos))
    assert len(set(trees)) == 1
