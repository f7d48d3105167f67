"""Read-only Bash: the classifier, the sandbox under it, and denials that teach.

Each mutating command is checked twice: in plain bash it really changes
something; through stepagent in plan mode it changes nothing. Each read-only
command runs in plan mode and prints what plain bash prints.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bash_corpus import CONFIG_DRIVEN, MUTATING, make_scratch, snapshot
from tests.bash_corpus import READ_ONLY as READ_ONLY_COMMANDS
from tests.harness import Session, call, turn
from tests.kept_folders import KeptFolders
from tools.bash.classifier.classify import SYSTEM_PATH, classify
from tools.bash.judgements import READ_ONLY
from tools.bash.sandbox.landlock import abi_version
from tools.bash.sandbox.narrowing import narrow
from tools.bash.sandbox.status import detect_layers

needs_landlock = pytest.mark.skipif(not abi_version(), reason="Landlock is not available here")
OPTIONAL_PROGRAMS = ("node", "perl", "jq", "xxd", "shred", "python3", "time")


def skip_without_its_programs(command: str) -> None:
    for program in OPTIONAL_PROGRAMS:
        if re.search(rf"\b{program}\b", command) and not shutil.which(program):
            pytest.skip(f"{program} is not installed")


@pytest.fixture(scope="session")
def scratch_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """make_scratch's folder, made once: each test gets a copy (git init and a commit cost more)."""
    root = tmp_path_factory.mktemp("scratch-template")
    make_scratch(root)
    return root


def copy_scratch(root: Path, template: Path) -> None:
    shutil.copytree(template, root, symlinks=True, dirs_exist_ok=True)


@pytest.fixture
def scratch(monkeypatch: pytest.MonkeyPatch, scratch_template: Path,
            kept_folders: KeptFolders) -> Path:
    """A copy of the scratch folder (the test before's, if it left it as it was): its workspace,
    the current folder."""
    root = kept_folders.get(copy_scratch, scratch_template)
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(root / "workspace")
    return root / "workspace"


def plain_bash(command: str, workspace: Path) -> subprocess.CompletedProcess:
    """The command in plain bash, stderr merged into stdout as the Bash tool merges them."""
    return subprocess.run(["bash", "-c", command], cwd=workspace, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL, timeout=30)


def as_the_tool_shows(done: subprocess.CompletedProcess) -> str:
    """Plain bash's output as the Bash tool reports it: trailing newlines dropped, then the code."""
    return f"{done.stdout.rstrip(chr(10)) or '(no output)'}\n[exit code {done.returncode}]"


def without_the_clock(shown: str) -> str:
    """`shown` less the time `git blame` prints for uncommitted lines: the clock as the command ran."""
    return re.sub(r"(Not Committed Yet) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}", r"\1", shown)


def in_plan_mode(command: str, workspace: Path, classifier=classify) -> str:
    session = Session(workspace, [turn("", call("Bash", command=command)), turn("ok")],
                      mode="plan", classifier=classifier)
    session.run()
    return session.tool_results()[0]


@pytest.mark.parametrize("command", MUTATING)
def test_mutating_command_changes_files_in_bash_but_nothing_in_plan_mode(command, scratch):
    skip_without_its_programs(command)
    root = scratch.parent
    before = snapshot(root)
    result = in_plan_mode(command, scratch)
    assert snapshot(root) == before
    assert "plan-mode-guard" in result

    plain_bash(command, scratch)  # on the folder plan mode has just left as it was
    assert snapshot(root) != before, "the corpus entry must really change something"


@pytest.mark.parametrize("command", MUTATING)
def test_classifier_refuses_every_mutating_command(command):
    judgement = classify(command)
    assert not judgement.read_only
    assert judgement.rule and judgement.token, "a denial names its rule and the unsafe token"


@pytest.mark.parametrize("command", READ_ONLY_COMMANDS)
def test_classifier_lets_every_read_only_command_through(command):
    assert classify(command).read_only, classify(command)


@pytest.mark.usefixtures("on_each_system")
@pytest.mark.parametrize("command", READ_ONLY_COMMANDS)
def test_read_only_command_runs_in_plan_mode_with_bash_output(command, scratch):
    assert classify(command).read_only, classify(command)
    skip_without_its_programs(command)
    earlier = plain_bash(command, scratch)
    assert earlier.returncode == 0, earlier.stdout
    before = snapshot(scratch.parent)
    result = in_plan_mode(command, scratch)
    assert snapshot(scratch.parent) == before
    narrowed = narrow(command, detect_layers())
    if not narrowed.read_only:  # this machine lacks a layer the command needs: refused, and why
        assert "plan-mode-guard" in result and narrowed.rule in result, result
        return
    assert without_the_clock(result) == without_the_clock(as_the_tool_shows(earlier))


@needs_landlock
@pytest.mark.parametrize("command", sorted(CONFIG_DRIVEN))
def test_repository_config_that_runs_programs_changes_nothing(command, scratch):
    subprocess.run(["bash", "-c", CONFIG_DRIVEN[command]], cwd=scratch, check=True)
    assert classify(command).read_only, "the command itself looks read-only"
    before = snapshot(scratch.parent)
    in_plan_mode(command, scratch)
    assert snapshot(scratch.parent) == before
    plain_bash(command, scratch)
    assert (scratch / "made.txt").exists(), "in plain bash the config really runs the program"


@needs_landlock
@pytest.mark.parametrize("command", ["touch made.txt", "echo x > f.txt", "rm -rf dir",
                                     "echo x > ../outside/o.txt", "git commit -qam x"])
def test_sandbox_stops_writes_the_classifier_let_through(command, scratch):
    before = snapshot(scratch.parent)
    result = in_plan_mode(command, scratch, classifier=lambda text: READ_ONLY)
    assert snapshot(scratch.parent) == before
    assert "[exit code 0]" not in result


def planning_in(permission: str, workspace: Path, command: str, **options) -> Session:
    """A session in plan mode laid over `permission`, about to run one Bash command."""
    session = Session(workspace, [turn("", call("Bash", command=command)), turn("ok")],
                      mode=permission, **options)
    session.state.enter_plan_mode("test")
    return session


@needs_landlock
@pytest.mark.parametrize("permission", ["build", "edit", "yolo"])
def test_the_sandbox_stays_on_while_planning_in_every_permission_mode(permission, scratch):
    session = planning_in(permission, scratch, "touch made.txt", classifier=lambda text: READ_ONLY)
    before = snapshot(scratch.parent)
    session.run()
    assert snapshot(scratch.parent) == before
    assert "[exit code 0]" not in session.tool_results()[0]


REPOSITORY_PROGRAMS = {"git status": "git config core.fsmonitor ./announce.sh",
                       "git status --short": "cp announce.sh .git/hooks/post-index-change"}


def make_the_index_stale(workspace: Path, seconds: int) -> None:
    """A committed file with its content unchanged and a new mtime: git status rewrites the
    index (and so runs post-index-change) unless told not to take optional locks."""
    os.utime(workspace / "dir" / "a.py", (seconds, seconds))


@pytest.mark.skipif(not detect_layers().contains_code,
                    reason="without bubblewrap and seccomp plan-mode git status is refused outright")
@pytest.mark.parametrize("permission", ["build", "edit", "yolo"])
@pytest.mark.parametrize("command", sorted(REPOSITORY_PROGRAMS))
def test_git_starts_no_repository_program_while_planning_in_every_permission_mode(permission, command,
                                                                                  scratch):
    announce = scratch / "announce.sh"
    announce.write_text("#!/bin/sh\necho repository program ran >&2\n")
    announce.chmod(0o755)
    subprocess.run(["bash", "-c", REPOSITORY_PROGRAMS[command]], cwd=scratch, check=True)
    make_the_index_stale(scratch, 1_000_000_000)
    assert "repository program ran" in plain_bash(command, scratch).stdout, "git really runs it"
    make_the_index_stale(scratch, 1_100_000_000)
    session = planning_in(permission, scratch, command)
    session.run()
    result = session.tool_results()[0]
    assert result.endswith("[exit code 0]") and "repository program ran" not in result


def test_outside_plan_mode_bash_is_not_sandboxed(scratch):
    session = Session(scratch, [turn("", call("Bash", command="touch made.txt")), turn("ok")],
                      mode="yolo")
    session.run()
    assert (scratch / "made.txt").exists()


@pytest.mark.parametrize("command, token, alternative", [
    ("sed -i s/a/b/ f.txt", "-i", "sed -n"),
    ("git diff --output=x", "--output=x", "git diff"),
    ("cat f.txt > g.txt", "> g.txt", "cat f.txt"),
    ("find . -delete", "-delete", "find without the action"),
    ("sort -o out f.txt", "-o", "sort FILE"),
])
def test_denials_name_the_rule_the_token_and_an_alternative(command, token, alternative, scratch):
    result = in_plan_mode(command, scratch)
    assert "plan-mode-guard" in result and "rule:" in result
    assert repr(token) in result
    assert alternative in result


@pytest.mark.parametrize("command", ["git merge-base HEAD HEAD", "ls -la", "git log --oneline",
                                     "grep -rn rm .", "cat rm.txt", "echo git push"])
def test_whole_tokens_not_substrings(command):
    assert classify(command).read_only


NESTED_FOUR_DEEP = "bash -c " + shlex.quote("bash -c " + shlex.quote("bash -c " + shlex.quote(
    "bash -c ls")))


@pytest.mark.parametrize("command, token, alternative", [
    ("", "", ""),
    (NESTED_FOUR_DEEP, "ls", ""),
    ("/opt/bin/ls", "/opt/bin/ls", "call the command by its name"),
    ("bash ./script.sh ls", "bash", "run the commands directly"),
    ("bash -c ls extra", "bash", "run the commands directly"),
    ("eval ls", "eval", "run the inner command directly"),
    ("env -i ls", "-i", "run the command directly"),
    ("env LD_PRELOAD=./x.so ls", "LD_PRELOAD=./x.so", "run the command directly"),
    ("timeout --foo 5 ls", "--foo", "run the inner command directly"),
    ("timeout 5", "timeout", ""),
    ("nice", "nice", ""),
    ("env $(echo touch) x", "$(echo touch)", "run the inner command on its own first"),
    ("xargs $(echo touch)", "$(echo touch)", "run the inner command on its own first"),
    ("timeout 5 $(echo touch) x", "$(echo touch)", "run the inner command on its own first"),
    ('bash -c "$(echo ls)"', "$(echo ls)", "run the inner command on its own first"),
    ("echo f.txt | xargs git log", "git", "run the command on named files"),
    ("echo x | xargs bash -c ls", "bash", "run the command on named files"),
    ("echo f.txt | xargs ./cat", "./cat", "call the command by its name"),
    ("xargs --bogus cat", "--bogus", "run the inner command directly"),
])
def test_each_refusal_names_its_token_and_alternative(command, token, alternative):
    judgement = classify(command)
    assert not judgement.read_only and judgement.rule
    assert (judgement.token, judgement.alternative) == (token, alternative)


def substituted(depth: int, innermost: str) -> str:
    """`innermost` inside `depth` nested command substitutions: echo $(echo $(… innermost))."""
    for _ in range(depth):
        innermost = f"echo $({innermost})"
    return innermost


def test_three_nested_substitutions_are_judged_and_a_fourth_is_refused_by_its_own_text():
    innermost = "cat " + "long-file-name-" * 4
    assert classify(substituted(3, innermost)).read_only
    assert not classify(substituted(3, "touch made.txt")).read_only, "the innermost is judged"
    judgement = classify(substituted(4, innermost))
    assert not judgement.read_only and "nested" in judgement.rule
    assert judgement.token == innermost[:40], "the denial quotes the command it would not judge"


@pytest.mark.parametrize("command", [
    "env", "env ls -la", "time", "time -p ls", "timeout 5 bash -c ls", "timeout -k 1 5 ls",
    "nice -n 5 ls", "env bash -c ls", "nice bash -c 'bash -c ls'", "stdbuf -oL ls",
    "echo f.txt | xargs -n1 grep x", "echo x | xargs", "xargs -I{} cat {}", "/bin/ls -la",
    "ls $(echo x)", "bash -c " + shlex.quote("bash -c " + shlex.quote("bash -c ls"))])
def test_harmless_wrappers_and_three_nested_shells_pass(command):
    assert classify(command).read_only, classify(command)


def test_a_command_given_by_path_counts_only_as_the_systems_own_binary(tmp_path, monkeypatch):
    planted = tmp_path / "ls"
    planted.write_text("#!/bin/sh\ntouch made.txt\n")
    planted.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert not classify(str(planted)).read_only, "a planted ls first on PATH is not the system's"
    assert classify(shutil.which("ls", path=SYSTEM_PATH)).read_only


def test_a_classifier_bug_means_no_and_names_the_failure(monkeypatch):
    from tools.bash.classifier import classify as module

    def broken(command):
        raise RuntimeError("bug")

    monkeypatch.setattr(module, "parse", broken)
    command = "ls " + "a" * 60
    judgement = classify(command)
    assert not judgement.read_only
    assert "RuntimeError" in judgement.rule and judgement.token == command[:40]


def test_unparseable_commands_are_not_read_only():
    assert not classify("ls (").read_only
    assert not classify("").read_only


def test_build_mode_asks_only_for_commands_that_are_not_read_only(scratch):
    session = Session(scratch, [turn("", call("Bash", command="git log --oneline"),
                                     call("Bash", command="git commit -qam x")), turn("ok")],
                      permission_answers=[False])
    session.run()
    assert len(session.questions) == 1 and "Bash" in session.questions[0]


@pytest.mark.usefixtures("on_each_system")
def test_without_any_os_sandbox_the_user_is_told_and_reads_still_run(scratch):
    from state import AppState
    from tools.bash.sandbox.status import Layers, plan_mode_notice
    from tools.bash.tool import make_bash_tool

    bare = Layers(bwrap=None, landlock_abi=0, seccomp=False, cgroup=False, root=False)
    assert "classifier alone" in plan_mode_notice(bare)
    state = AppState()
    state.enter_plan_mode("test")
    bash = make_bash_tool(scratch, state, classify, layers=lambda: bare)
    assert bash.handler({"command": "cat f.txt"}).content.startswith("hello")


EMBEDDED_BARE = ("git clone -q --bare . bare.git && echo '* diff=t' > bare.git/info/attributes && "
                 "git -C bare.git config diff.t.textconv 'touch \"$GIT_MADE\"; cat' && "
                 "git -C bare.git config core.fsmonitor 'touch \"$GIT_MADE\"; false'")


@pytest.mark.parametrize("command", ["git -C bare.git log -p -1", "cd bare.git && git log -p -1",
                                     "git --git-dir=bare.git log -p -1",
                                     "git --git-dir bare.git show HEAD",
                                     "git --work-tree=. --git-dir=bare.git status"])
def test_build_mode_runs_no_program_a_bare_repository_in_the_workspace_names(command, scratch,
                                                                            monkeypatch):
    """A clone can carry a bare repository with its own config: a read that runs
    without a question must not start the program it names."""
    made = scratch.parent / "made-by-git.txt"
    monkeypatch.setenv("GIT_MADE", str(made))
    subprocess.run(["bash", "-c", EMBEDDED_BARE], cwd=scratch, check=True)
    plain_bash(command, scratch)
    assert made.exists() or "status" in command, "in plain bash the config runs the program"
    made.unlink(missing_ok=True)
    session = Session(scratch, [turn("", call("Bash", command=command)), turn("ok")],
                      permission_answers=[False])
    session.run()
    assert session.questions or not made.exists()


@pytest.mark.parametrize("command", ["true < /dev/tcp/127.0.0.1/{port}",
                                     "ls 0</dev/tcp/127.0.0.1/{port}",
                                     "pwd < '/dev/tcp/127.0.0.1/{port}'"])
def test_build_mode_asks_before_bash_opens_a_network_connection(command, scratch):
    """An input redirection from /dev/tcp looks like reading a file, and connects
    (the commands here read nothing, so plain bash returns at once)."""
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.5)
        command = command.format(port=listener.getsockname()[1])
        plain_bash(command, scratch)
        listener.accept()[0].close()
        session = Session(scratch, [turn("", call("Bash", command=command)), turn("ok")],
                          permission_answers=[False])
        session.run()
        assert session.questions
        with pytest.raises(socket.timeout):
            listener.accept()
