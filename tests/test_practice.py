"""Practice cannot rot: every exercise's stubbed copy fails its check, the project passes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from step42_plan_mode import practice

ROOT = Path(__file__).resolve().parent.parent


def run_practice(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "step42_plan_mode" / "practice.py"), *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)


def test_list_prints_one_exercise_per_line_name_first():
    done = run_practice("list")
    listed = done.stdout.splitlines()
    assert [line.split()[0] for line in listed] == [e.name for e in practice.EXERCISES]
    first = practice.EXERCISES[0].name
    assert f"./bin/practice start {first} --dir " in done.stderr, "the newcomer is told how to start"
    assert f"./bin/practice check {first} --dir " in done.stderr
    assert len(practice.EXERCISES) >= 7


@pytest.mark.slow
@pytest.mark.parametrize("exercise", practice.EXERCISES, ids=lambda e: e.name)
def test_stubbed_copy_fails_and_the_project_passes(exercise, tmp_path):
    copy = tmp_path / "copy"
    started = run_practice("start", exercise.name, "--dir", str(copy))
    assert started.returncode == 0, started.stderr
    assert all(test in started.stdout for test in exercise.tests)
    for relative, name in exercise.stubs:
        assert f"practice: write {name}" in (copy / relative).read_text()
    failed = run_practice("check", exercise.name, "--dir", str(copy))
    assert failed.returncode != 0
    assert failed.stdout.splitlines()[-1].startswith(f"Exercise {exercise.name}: failed")


@pytest.mark.slow
def test_the_project_passes_every_exercise(capfd):
    """`check` passes on the project for one exercise from the command line, and its check finds
    and passes every exercise's tests at once (a test an exercise names that is renamed or
    failing fails it): one child pytest instead of one per exercise."""
    first = practice.EXERCISES[0]
    passed = run_practice("check", first.name)
    assert passed.returncode == 0
    assert passed.stdout.splitlines()[-1].startswith(f"Exercise {first.name}: passed")
    tests = tuple(dict.fromkeys(test for exercise in practice.EXERCISES for test in exercise.tests))
    every = practice.Exercise("every-exercise", "", "", (), tests, 0)
    assert practice.check(every, ROOT) == 0, capfd.readouterr().out[-4000:]


def test_start_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    done = run_practice("start", "plan-mode-guard", "--dir", str(tmp_path))
    assert done.returncode != 0 and (tmp_path / "mine.txt").read_text() == "keep me"


def test_an_unknown_exercise_is_one_clear_error():
    done = run_practice("check", "no-such-thing")
    assert done.returncode != 0 and "practice list" in done.stderr


@pytest.mark.parametrize("exercise", practice.EXERCISES, ids=lambda e: e.name)
def test_diff_is_the_code_start_takes_out(exercise, tmp_path):
    copy = tmp_path / "copy"
    assert run_practice("start", exercise.name, "--dir", str(copy)).returncode == 0
    shown = run_practice("diff", exercise.name)
    assert shown.returncode == 0
    for relative in {relative for relative, _ in exercise.stubs}:
        assert f"+++ project/{relative}" in shown.stdout
        removed = {line[1:] for line in shown.stdout.splitlines() if line.startswith("-    ")}
        stubbed_lines = set((copy / relative).read_text().splitlines()) - set((ROOT / relative).read_text().splitlines())
        assert stubbed_lines <= removed, "every line start wrote is a line the diff takes back"
    assert shown.stdout.count('raise NotImplementedError("practice: write') == len(exercise.stubs)
