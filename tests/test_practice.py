"""Practice cannot rot: every exercise's stubbed copy fails its check, the project passes it.

The command line runs in this process (`practice.main`): only `check` has a process of its
own to judge, the child pytest it starts. Two runs go through the script itself, so its exit
codes are the ones a newcomer's shell sees. The project's check starts its child pytest for
real; a stubbed copy's check forks it from this process instead (`pytest_in_a_fork`), which
has pytest and the libraries imported already: no interpreter start-up and no imports but
the copy's own, about 40 % of a check's CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from step42_plan_mode import practice

ROOT = Path(__file__).resolve().parent.parent


def run_practice(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "step42_plan_mode" / "practice.py"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def practice_main(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """`./bin/practice ARGS` in this process: its exit code and everything it (and its child
    pytest) printed on standard output."""
    capfd.readouterr()
    code = practice.main(list(args))
    return code, capfd.readouterr().out


def of_the_project(module: ModuleType) -> bool:
    """Whether `module` was imported from the project's own files (not from its venv)."""
    file = getattr(module, "__file__", None) or ""
    return file.startswith(f"{ROOT}{os.sep}") and not file.startswith(f"{sys.prefix}{os.sep}")


def pytest_in_a_fork(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`subprocess.run(command, cwd=cwd)` for practice.check's `python -m pytest ARGS`, run by a fork
    of this process that forgets every module of the project first: the child imports the
    copy's own files, as a new interpreter started in `cwd` would."""
    assert command[:3] == [sys.executable, "-m", "pytest"], command
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = pytest.ExitCode.INTERNAL_ERROR
        try:
            os.chdir(cwd)
            for name in [name for name, module in sys.modules.items() if of_the_project(module)]:
                del sys.modules[name]
            sys.path[:] = [str(cwd), *(entry for entry in sys.path if Path(entry or ".").resolve() != ROOT)]
            code = pytest.main(command[3:])
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(int(code))
    return subprocess.CompletedProcess(command, os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))


def test_list_prints_one_exercise_per_line_name_first():
    done = run_practice("list")
    assert done.returncode == 0
    listed = done.stdout.splitlines()
    assert [line.split()[0] for line in listed] == [e.name for e in practice.EXERCISES]
    first = practice.EXERCISES[0].name
    assert f"./bin/practice start {first} --dir " in done.stderr, "the newcomer is told how to start"
    assert f"./bin/practice check {first} --dir " in done.stderr
    assert len(practice.EXERCISES) >= 7


def test_an_unknown_exercise_is_one_clear_error():
    done = run_practice("check", "no-such-thing")
    assert done.returncode != 0 and "practice list" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("exercise", practice.EXERCISES, ids=lambda e: e.name)
def test_stubbed_copy_fails_and_diff_is_the_code_start_takes_out(exercise, tmp_path, capfd):
    copy = tmp_path / "copy"
    code, started = practice_main(capfd, "start", exercise.name, "--dir", str(copy))
    assert code == 0
    assert all(test in started for test in exercise.tests)
    for relative, name in exercise.stubs:
        assert f"practice: write {name}" in (copy / relative).read_text()
    assert not {".git", ".venv", ".hypothesis", ".pytest_cache"} & {path.name for path in copy.iterdir()}, \
        "the copy holds the project, not its history, libraries or test caches"

    code, shown = practice_main(capfd, "diff", exercise.name)
    assert code == 0
    for relative in {relative for relative, _ in exercise.stubs}:
        assert f"+++ project/{relative}" in shown
        removed = {line[1:] for line in shown.splitlines() if line.startswith("-    ")}
        stubbed_lines = set((copy / relative).read_text().splitlines()) - set((ROOT / relative).read_text().splitlines())
        assert stubbed_lines <= removed, "every line start wrote is a line the diff takes back"
    assert shown.count('raise NotImplementedError("practice: write') == len(exercise.stubs)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(practice.subprocess, "run", lambda command, cwd: pytest_in_a_fork(command, cwd))
        code, checked = practice_main(capfd, "check", exercise.name, "--dir", str(copy))
    assert code == pytest.ExitCode.TESTS_FAILED, checked[-4000:]
    assert "NotImplementedError: practice: write " in checked, "what failed is a stub start wrote"
    assert checked.splitlines()[-1].startswith(f"Exercise {exercise.name}: failed")


@pytest.mark.slow
def test_the_project_passes_every_exercise(capfd, monkeypatch):
    """`check NAME` judges the project when no folder is given, and one check finds and passes
    every exercise's tests there at once (a test an exercise names that is renamed or failing
    fails it): one child pytest instead of one per exercise."""
    asked = []
    with monkeypatch.context() as patched:
        patched.setattr(practice, "check", lambda exercise, folder: asked.append((exercise, folder)) or 0)
        assert practice.main(["check", practice.EXERCISES[0].name]) == 0
    assert asked == [(practice.EXERCISES[0], ROOT)]
    tests = tuple(dict.fromkeys(test for exercise in practice.EXERCISES for test in exercise.tests))
    every = practice.Exercise("every-exercise", "", "", (), tests, 0)
    capfd.readouterr()
    passed = practice.check(every, ROOT)
    checked = capfd.readouterr().out
    assert passed == 0, checked[-4000:]
    assert checked.splitlines()[-1].startswith("Exercise every-exercise: passed")


def test_start_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(SystemExit, match="not empty"):
        practice.main(["start", "plan-mode-guard", "--dir", str(tmp_path)])
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"] and (tmp_path / "mine.txt").read_text() == "keep me"
