"""Where a sandbox layer is missing: the user is told, and plan-mode Bash runs less.

Availability is injected (make_bash_tool's `layers`), so the no-bubblewrap and
no-Landlock paths are tested on any machine.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

import index
import ui.doctor
from state import AppState
from tests.kept_folders import KeptFolders
from tools.bash.classifier.classify import classify
from tools.bash.sandbox.status import Layers, detect_layers, layer_rows, plan_mode_notice
from tools.bash.tool import make_bash_tool
from ui.modes import select

pytestmark = pytest.mark.usefixtures("on_each_system")  # tests/test_without_linux.py

FULL = Layers(bwrap="/usr/bin/bwrap", landlock_abi=7, seccomp=True, cgroup=True, root=True,
              perl="/usr/bin/perl")
NO_BWRAP = replace(FULL, bwrap=None)
NOTHING = Layers(bwrap=None, landlock_abi=0, seccomp=False, cgroup=False, root=True)
CONFIG_RUNNERS = ["git diff", "git log -p", "git status", "git show HEAD", "git blame f.txt",
                  "git grep hello", "git log --stat", "bash -c 'git diff'", "ls && git diff HEAD",
                  "timeout 5 git diff", "git -C . diff", "git describe --dirty",
                  "git ls-files -m", "git describe --dirt", "git ls-files --modif",
                  "git ls-files -om"]
NEVER_RUN_PROGRAMS = ["git log --oneline", "git log --format=%H -3", "git rev-parse HEAD",
                      "git show -s --format=%s HEAD", "git ls-files", "git merge-base HEAD HEAD",
                      "git branch", "git cat-file -p HEAD:f.txt", "ls -la", "cat f.txt"]


def plan_mode_bash(workspace: Path, layers: Layers):
    state = AppState()
    state.enter_plan_mode("test")
    return make_bash_tool(workspace, state, classify, layers=lambda: layers)


def make_repository(root: Path) -> None:
    """A repository whose own config names an external diff that writes a file."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "f.txt").write_text("hello\n")
    subprocess.run(["git", "add", "f.txt"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "x"],
                   cwd=root, check=True)
    (root / "f.txt").write_text("changed\n")
    (root / "ext.sh").write_text("#!/bin/sh\ntouch made.txt\n")
    (root / "ext.sh").chmod(0o755)
    subprocess.run(["git", "config", "diff.external", "./ext.sh"], cwd=root, check=True)


@pytest.fixture
def repository(kept_folders: KeptFolders) -> Path:
    """make_repository's folder: the test before's, if it left it as it was."""
    return kept_folders.get(make_repository)


@pytest.mark.parametrize("layers", [NO_BWRAP, NOTHING], ids=["landlock", "nothing"])
@pytest.mark.parametrize("command", CONFIG_RUNNERS)
def test_without_bubblewrap_git_that_can_run_a_configured_program_is_refused(repository, layers,
                                                                              command):
    assert classify(command).read_only, "the classifier alone lets it through"
    judgement = plan_mode_bash(repository, layers).judge_call({"command": command})
    assert not judgement.read_only
    assert "bubblewrap" in judgement.rule and judgement.alternative


@pytest.mark.parametrize("layers", [NO_BWRAP, NOTHING], ids=["landlock", "nothing"])
@pytest.mark.parametrize("command", NEVER_RUN_PROGRAMS)
def test_without_bubblewrap_git_that_runs_no_program_still_passes(repository, layers, command):
    assert plan_mode_bash(repository, layers).judge_call({"command": command}).read_only


@pytest.mark.parametrize("command", CONFIG_RUNNERS)
def test_with_the_full_sandbox_git_is_not_narrowed(repository, command):
    assert plan_mode_bash(repository, FULL).judge_call({"command": command}).read_only


def test_the_configured_program_really_runs_in_plain_git(repository):
    subprocess.run(["git", "diff"], cwd=repository, capture_output=True)
    assert (repository / "made.txt").exists()


def test_with_the_full_sandbox_the_configured_program_changes_nothing(repository):
    if not detect_layers().contains_code:  # asked when the test runs: on_each_system may hide them
        pytest.skip("bubblewrap or seccomp missing here")
    bash = plan_mode_bash(repository, detect_layers())
    assert bash.judge_call({"command": "git diff"}).read_only
    bash.handler({"command": "git diff"})
    assert not (repository / "made.txt").exists()


def test_outside_plan_mode_what_runs_unasked_is_narrowed_and_yolo_is_not(repository):
    """Build mode runs a read-only command without a question, so it runs it as plan mode does:
    without the full sandbox, a git diff is not read-only there (the user is asked); yolo asks
    nothing and runs every command as the user's own."""
    state = AppState()
    bash = make_bash_tool(repository, state, classify, layers=lambda: NOTHING)
    assert not bash.judge_call({"command": "git diff"}).read_only
    assert bash.judge_call({"command": "git log --oneline"}).read_only
    select(state, "yolo", "test")
    assert bash.judge_call({"command": "git diff"}).read_only


def test_a_missing_layer_is_named_with_what_it_leaves_open():
    notice = plan_mode_notice(NO_BWRAP)
    assert "Missing: bubblewrap" in notice and "repository-configured program" in notice
    assert "read a FIFO outside" in notice
    assert "Missing" not in plan_mode_notice(FULL)
    bare = {row.layer: row for row in layer_rows(NOTHING)}
    assert not bare["seccomp"].active and "unix sockets" in bare["seccomp"].leaves_open
    assert "classifier alone" in bare["Landlock"].leaves_open
    assert "fork bomb" in bare["limits"].leaves_open


def test_doctor_prints_a_row_per_layer(capsys, monkeypatch):
    monkeypatch.setattr(ui.doctor, "detect_layers", lambda: NO_BWRAP)
    assert index.main(["--doctor"]) == 0
    shown = capsys.readouterr().out
    for layer in ("classifier", "bubblewrap", "Landlock", "seccomp", "leases", "limits"):
        assert layer in shown
    assert "no" in shown and "repository-configured" in " ".join(shown.split())
    assert "reads are observable" in " ".join(shown.split())


def test_bubblewrap_without_landlock_is_named_and_narrows_git(repository):
    for layers in (replace(FULL, landlock_abi=0), replace(FULL, perl=None)):
        row = {row.layer: row for row in layer_rows(layers)}["Landlock"]
        assert not row.active and "FIFO" in row.leaves_open
        assert not plan_mode_bash(repository, layers).judge_call({"command": "git diff"}).read_only
