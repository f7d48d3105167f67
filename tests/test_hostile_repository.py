"""A hostile repository's git config runs no program from a command that runs without a question.

In build and edit mode a read-only command runs at once, so `git diff`,
`git log -p`, `git show`, `git blame` and `git status` in a repository that
names programs in its own config (an external diff, a textconv or diff
driver selected by .gitattributes, a clean filter, an fsmonitor, a merge
driver that `--remerge-diff` runs; in the repository, behind a `.git` file's
`gitdir:` or a `.git` link) must either not start the program or start it
where it can change nothing; where the machine cannot contain it, the user
is asked first (and here answers no), as for a repository or a setting the
model names on the command line. The marker each
program would write, inside the workspace and outside it, never appears:
with the sandbox found here, with bubblewrap hidden, with every Linux layer
hidden, and while planning. Nor does a config that includes a FIFO outside
the workspace wake the program waiting to write into it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.harness import Session, call, turn
from tests.hidden_layers import clear_probes, hide_layers, hide_linux_only
from tests.kept_folders import KeptFolders
from tests.test_sandbox_fifos import Writer
from tools.bash.sandbox.status import detect_layers

EVIL = """#!/bin/sh
echo "ran $0 $*" > {outside}
echo "ran $0 $*" > {inside}
cat "$1" 2>/dev/null || cat
"""
SUB_REPOSITORY = ("git init -q {init} sub && git -C sub config diff.external $PWD/evil.sh && "
                  "git -C sub config diff.t.textconv $PWD/evil.sh && echo '* diff=t' > sub/.gitattributes && "
                  "echo x > sub/f.txt && git -C sub add -A && git -C sub commit -qm x && echo y >> sub/f.txt")
CONFLICTED_MERGE = ("git checkout -q -b side && echo b > f.txt && git commit -qam b && "
                    "git checkout -q - && echo c > f.txt && git commit -qam c && "
                    "{ git merge -q side || true; } && echo resolved > f.txt && git commit -qam merge && "
                    "echo '* merge=x' >> .gitattributes && git config merge.x.driver ./evil.sh")
SEPARATE = "--separate-git-dir=elsewhere"  # sub/.git is a file: "gitdir: <workspace>/elsewhere"
BARE_COPY = "git clone -q --bare . elsewhere.git && git -C elsewhere.git config diff.external $PWD/evil.sh"
VECTORS = {
    "external diff": ("git diff", "git config diff.external ./evil.sh"),
    "textconv in a diff": ("git diff", "git config diff.t.textconv ./evil.sh"),
    "textconv in a log": ("git log -p -1", "git config diff.t.textconv ./evil.sh"),
    "textconv in show": ("git show HEAD", "git config diff.t.textconv ./evil.sh"),
    "textconv in blame": ("git blame f.txt", "git config diff.t.textconv ./evil.sh"),
    "diff driver command": ("git diff HEAD", "git config diff.t.command ./evil.sh"),
    "clean filter in status": ("git status", "git config filter.x.clean ./evil.sh"),
    "clean filter in a diff": ("git diff --stat", "git config filter.x.clean ./evil.sh"),
    "fsmonitor": ("git status --short", "git config core.fsmonitor ./evil.sh"),
    "textconv in annotate": ("git annotate f.txt", "git config diff.t.textconv ./evil.sh"),
    "merge driver in a remerge diff": ("git log --remerge-diff -1", CONFLICTED_MERGE),
    "a .git file's gitdir": ("git -C sub diff", SUB_REPOSITORY.format(init=SEPARATE)),
    "a .git file, after cd": ("cd sub && git diff", SUB_REPOSITORY.format(init=SEPARATE)),
    "a .git link": ("cd sub && git log -p -1", SUB_REPOSITORY.format(init="") + " && mv sub/.git "
                    "../linked.git && ln -s ../../linked.git sub/.git"),
}
TRICKS = {  # the model's own: a repository or a setting named on the command line is asked about
    "GIT_DIR from env": ("env GIT_DIR=elsewhere.git GIT_WORK_TREE=. git diff HEAD", BARE_COPY),
    "--git-dir": ("git --git-dir=elsewhere.git --work-tree=. diff HEAD", BARE_COPY),
    "-c on the command line": ("git -c diff.external=./evil.sh diff", "true"),
    "an exported variable": ("export GIT_EXTERNAL_DIFF=./evil.sh; git diff", "true"),
    "--ext-diff": ("git diff --ext-diff", "git config diff.t.command ./evil.sh"),
}
EVERY = {**VECTORS, **TRICKS}


def git(workspace: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True)


def hostile_repository(root: Path, setup: str) -> tuple[Path, list[Path]]:
    """A workspace whose repository names ./evil.sh in its config; the markers evil.sh writes."""
    workspace = root / "workspace"
    workspace.mkdir()
    markers = markers_in(root)
    evil = workspace / "evil.sh"
    evil.write_text(EVIL.format(outside=markers[0], inside=markers[1]))
    evil.chmod(0o755)
    git(workspace, "init", "-q")
    (workspace / "f.txt").write_text("hello\n")
    (workspace / "same.txt").write_text("unchanged\n")
    (workspace / ".gitattributes").write_text("*.txt diff=t filter=x\n")
    git(workspace, "add", "f.txt", "same.txt", ".gitattributes")
    git(workspace, "commit", "-qm", "first")
    (workspace / "f.txt").write_text("hello\nchanged\n")
    os.utime(workspace / "same.txt", (1_000_000_000, 1_000_000_000))  # stale in the index: rehashed
    subprocess.run(["bash", "-c", setup], cwd=workspace, check=True, capture_output=True)
    return workspace, markers


def markers_in(root: Path) -> list[Path]:
    return [root / "marker-outside", root / "workspace" / "marker-inside"]


def kept_repository(kept_folders: KeptFolders, setup: str) -> tuple[Path, list[Path]]:
    """hostile_repository's for `setup`, made anew unless the test before left it as it was."""
    root = kept_folders.get(hostile_repository, setup)
    return root / "workspace", markers_in(root)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}.items():
        monkeypatch.setenv(name, value)
    return tmp_path


@pytest.fixture
def machine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """The sandbox this machine has, then bubblewrap hidden, then every Linux-only layer hidden."""
    if request.param == "found here" and not detect_layers().bwrap:
        pytest.skip("bubblewrap is not available here")
    if request.param == "no bubblewrap":
        hide_layers(monkeypatch, "bwrap_path")
    if request.param == "no Linux layer":
        hide_linux_only(monkeypatch)
    yield request.param
    if request.param != "found here":
        clear_probes()


def run_unasked(workspace: Path, command: str, mode: str) -> Session:
    session = Session(workspace, [turn("", call("Bash", command=command, timeout=30)), turn("ok")],
                      mode=mode, permission_answers=[False])
    session.run()
    return session


@pytest.mark.parametrize("vector", sorted(EVERY))
def test_plain_git_runs_the_program_the_repository_names(vector, home, kept_folders):
    """The fixture is real: run by hand, each command starts evil.sh."""
    command, setup = EVERY[vector]
    workspace, markers = kept_repository(kept_folders, setup)
    subprocess.run(["bash", "-c", command], cwd=workspace, capture_output=True, timeout=30,
                   stdin=subprocess.DEVNULL)
    assert all(marker.exists() for marker in markers)


# edit mode runs Bash as build mode does; plan mode's own tests cover it with each layer missing
CONFIGURATIONS = [("build", "found here"), ("build", "no bubblewrap"), ("build", "no Linux layer"),
                  ("edit", "found here"), ("plan", "found here"), ("plan", "no Linux layer")]


@pytest.mark.parametrize("mode, machine", CONFIGURATIONS, indirect=["machine"])
@pytest.mark.parametrize("vector", sorted(VECTORS))
def test_an_unasked_git_read_starts_no_program_the_repository_names(vector, mode, machine, home,
                                                                    kept_folders):
    command, setup = VECTORS[vector]
    workspace, markers = kept_repository(kept_folders, setup)
    session = run_unasked(workspace, command, mode)
    assert not any(marker.exists() for marker in markers), session.tool_results()
    if machine == "found here" and detect_layers().contains_code:
        assert not session.questions, "contained, the read runs without a question"


@pytest.mark.parametrize("mode", ["build", "edit", "plan"])
@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_a_repository_or_setting_named_by_the_model_is_asked_about_first(trick, mode, home,
                                                                          kept_folders):
    command, setup = TRICKS[trick]
    workspace, markers = kept_repository(kept_folders, setup)
    session = run_unasked(workspace, command, mode)
    assert not any(marker.exists() for marker in markers), session.tool_results()
    assert len(session.questions) == (mode != "plan")


@pytest.mark.skipif(not detect_layers().bwrap, reason="without bubblewrap nothing hides a FIFO outside")
def test_a_config_that_includes_a_fifo_outside_wakes_no_writer_from_an_unasked_read(home):
    """The FIFO sits in a folder of its own in /tmp, as another program keeps one."""
    workspace, _ = hostile_repository(home, "true")
    fifo = Path(tempfile.mkdtemp(prefix="stepagent-test-fifo-", dir="/tmp")) / "outside.fifo"
    os.mkfifo(fifo)
    git(workspace, "config", "include.path", str(fifo))
    try:
        writer = Writer(fifo)
        try:
            # git reads its config more than once: the second open waits for a writer no more
            subprocess.run(["timeout", "5", "git", "log", "--oneline"], cwd=workspace, capture_output=True)
            writer.process.wait(timeout=10)
        finally:
            writer.stop()
        writer = Writer(fifo)
        try:
            session = run_unasked(workspace, "git log --oneline", "build")
            assert not session.questions and writer.still_waiting(), session.tool_results()
        finally:
            writer.stop()
    finally:
        shutil.rmtree(fifo.parent)
