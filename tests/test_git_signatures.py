"""Checking a commit's signature runs the program git's config names (gpg.program).

A repository's config can ask for that from a read-looking command: `format.pretty
= format:%h %G?` makes a plain `git log -1` verify, and so do `log.showSignature`,
`--show-signature` and the %G placeholders. The program must not run from a
command that runs without a question (plan mode, or a read-only command in build
mode), with every sandbox layer or with several missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from state import AppState
from tests.kept_folders import KeptFolders
from tools.bash.classifier.classify import classify
from tools.bash.sandbox.status import Layers, detect_layers
from tools.bash.tool import make_bash_tool

SIGNED_COMMIT = """tree {tree}
parent {parent}
author t <t@e> 1700000000 +0000
committer t <t@e> 1700000000 +0000
gpgsig -----BEGIN PGP SIGNATURE-----
 
 iQEzBAABCAAdFiEE
 -----END PGP SIGNATURE-----

signed
"""
RUN_BY_CONFIG = ["git log -1", "git show -s", "git log --oneline -3", "git show -s --format=%s HEAD",
                 "git -C evil.git log -1", "cd evil.git && git log -1"]
VERIFYING = ["git log --format='%G?'", "git log -1 --pretty=format:%GG", "git show -s --format=%GS",
             "git log --format=tformat:%GK -1", "git log -n1 --format=%GF", "git log --format=%GP",
             "git log --format=%GT", "git log --show-signature", "git show -s --show-sig",
             "git verify-commit HEAD", "git verify-tag v1", "git tag -v v1",
             "git for-each-ref --format='%(signature)'", "echo $(git log --format=%G? -1)"]


def layer_configurations() -> list:
    """The full sandbox as found here, and configurations with layers taken away."""
    found = detect_layers()
    nothing = Layers(bwrap=None, landlock_abi=0, seccomp=False, cgroup=False, root=found.root)
    configurations = [pytest.param(nothing, id="nothing"),
                      pytest.param(replace(nothing, seccomp=found.seccomp), id="seccomp-only"),
                      pytest.param(replace(nothing, landlock_abi=found.landlock_abi), id="landlock-only")]
    if found.bwrap:
        configurations += [pytest.param(replace(found, perl=None), id="bwrap-without-perl"),
                           pytest.param(found, id="full")]
    return configurations


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def make_signed(root: Path) -> None:
    """A repository (`ws`) with a signed commit whose config verifies it on every `git log`,
    with a bare copy inside configured the same way; gpg.program writes `marker`."""
    program = root / "gpg.sh"
    program.write_text(f"#!/bin/sh\necho ran >> '{root / 'marker'}'\nexit 1\n")
    program.chmod(0o755)
    workspace = root / "ws"
    workspace.mkdir()
    git("init", "-q", cwd=workspace)
    (workspace / "f.txt").write_text("hello\n")
    git("add", "f.txt", cwd=workspace)
    git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "one", cwd=workspace)
    (root / "commit.txt").write_text(SIGNED_COMMIT.format(
        tree=git("rev-parse", "HEAD^{tree}", cwd=workspace), parent=git("rev-parse", "HEAD", cwd=workspace)))
    signed_commit = git("hash-object", "-t", "commit", "-w", str(root / "commit.txt"), cwd=workspace)
    git("update-ref", "HEAD", signed_commit, cwd=workspace)
    git("clone", "-q", "--bare", ".", "evil.git", cwd=workspace)
    for repository in (workspace, workspace / "evil.git"):
        for key, value in (("gpg.program", str(program)), ("format.pretty", "format:%h %G?"),
                           ("log.showSignature", "true")):
            git("config", key, value, cwd=repository)


@pytest.fixture
def signed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept_folders: KeptFolders) -> Path:
    """make_signed's repository (the test before's, if it left it as it was)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return kept_folders.get(make_signed) / "ws"


def marker(workspace: Path) -> Path:
    return workspace.parent / "marker"


def test_the_configured_program_really_runs_in_plain_git(signed):
    for command in ("git log -1", "git --git-dir=evil.git log -1"):
        subprocess.run(["bash", "-c", command], cwd=signed, capture_output=True)
        assert marker(signed).exists(), command
        marker(signed).unlink()


@pytest.mark.parametrize("layers", layer_configurations())
def test_plan_mode_git_never_runs_the_signing_program(signed, layers):
    state = AppState()
    state.enter_plan_mode("test")
    bash = make_bash_tool(signed, state, classify, layers=lambda: layers)
    for command in RUN_BY_CONFIG:
        if bash.judge_call({"command": command}).read_only:
            bash.handler({"command": command})
        assert not marker(signed).exists(), f"{command} ran gpg.program with {layers}"


def test_a_read_only_command_in_build_mode_never_runs_the_signing_program(signed):
    nothing = Layers(bwrap=None, landlock_abi=0, seccomp=False, cgroup=False, root=True)
    bash = make_bash_tool(signed, AppState(), classify, layers=lambda: nothing)
    for command in RUN_BY_CONFIG:
        assert classify(command).read_only, command
        bash.handler({"command": command})
        assert not marker(signed).exists(), command


@pytest.mark.parametrize("command", VERIFYING)
def test_asking_for_a_signature_check_is_not_read_only(command):
    judgement = classify(command)
    assert not judgement.read_only
    assert judgement.alternative
