"""Live-coding practice on the lesson's own code: stub a function, rebuild it, check it.

    ./bin/practice list
    ./bin/practice start NAME --dir DIR    # DIR becomes a copy of the project with stubs
    ./bin/practice check NAME [--dir DIR]  # run the exercise's tests; 0 only when they pass
    ./bin/practice diff NAME               # the code the exercise takes out, as a unified diff

The reference solution is the project itself, never a copy: `start` replaces the
bodies of the exercise's functions by `raise NotImplementedError`, keeping their
signatures and docstrings, and `check` runs the focused tests that judge them.
tests/test_practice.py proves, for every exercise, that the stubbed copy fails its
check and the project passes it, so the exercises cannot rot.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis",
                                    ".stepagent", "mutants")


@dataclass(frozen=True)
class Exercise:
    """What to rebuild (file and function names), how it is judged, and in about how long."""

    name: str
    summary: str
    task: str
    stubs: tuple[tuple[str, str], ...]
    tests: tuple[str, ...]
    minutes: int


GUARD_TESTS = ("tests/test_step42.py::test_guard_denies_an_unmarked_tool_while_planning",
               "tests/test_step42.py::test_guard_passes_read_only_and_session_state_tools",
               "tests/test_step42.py::test_guard_asks_the_tools_own_judge",
               "tests/test_step42.py::test_guard_lets_everything_through_outside_plan_mode")
PROMPT_TESTS = ("tests/test_step42.py::test_plan_section_comes_first_only_while_planning",
                "tests/test_step42.py::test_prompt_returns_to_its_start_after_entering_and_leaving")
EXIT_TESTS = ("tests/test_step42.py::test_exit_approved_saves_the_plan_and_leaves_plan_mode",
              "tests/test_step42.py::test_exit_feedback_stays_in_plan_mode_and_follows_up",
              "tests/test_step42.py::test_exit_rejected_ends_the_turn_in_plan_mode",
              "tests/test_step42.py::test_exit_refuses_outside_plan_mode_without_asking",
              "tests/test_step42.py::test_review_answers_map_to_outcomes")
STATE_TESTS = ("tests/test_step42.py::test_entering_and_leaving_report_whether_anything_changed",
               "tests/test_step42.py::test_leaving_plan_mode_returns_to_the_permission_mode_before",
               "tests/test_layout.py::test_the_plan_flag_cannot_be_assigned_from_outside")

EXERCISES = (
    Exercise("plan-mode-guard", "the PreToolUse hook that denies while planning",
             "Write plan_mode_guard: an allowlist with default deny. While planning, a call passes "
             "only if its tool is read_only, allowed_in_plan_mode, or its judge says this call is "
             "read-only; every other call gets a reason naming the hook, the rule and the tool. "
             "Outside plan mode every call passes (ExitPlanMode refuses by itself).",
             (("hooks/plan_mode_guard.py", "plan_mode_guard"),), GUARD_TESTS, 15),
    Exercise("deny-before-ask", "the registry's order: every deny hook before any ask hook",
             "Write HookRegistry.check: the first reason from a deny hook wins, then the first from "
             "an ask hook, else allow — whatever order the hooks were registered in. Why must a "
             "user's 'yes' never meet a denial?",
             (("hooks/registry.py", "HookRegistry.check"),),
             ("tests/test_step42.py::test_registry_runs_deny_hooks_before_ask_hooks_whatever_the_order",
              "tests/test_step42.py::test_registry_allows_when_no_hook_objects"), 10),
    Exercise("plan-prompt", "the plan section and the idempotent prompt builder",
             "Write plan_mode_section (plan instructions while planning, nothing otherwise) and "
             "build_system_prompt (join every section that has something to say). The prompt is "
             "rebuilt for every request, so entering and leaving plan mode leaves it unchanged.",
             (("agent/prompt.py", "plan_mode_section"), ("agent/prompt.py", "build_system_prompt")),
             PROMPT_TESTS, 10),
    Exercise("exit-plan-mode", "ExitPlanMode with an injected present(): approve, feedback, reject",
             "Write plan_review (the UI's reading of y/e/n) and ExitPlanMode's handler (exit_plan "
             "inside make_plan_mode_tools). Outside plan mode it refuses; approve → save the "
             "plan, leave plan mode through the state; "
             "feedback → not approved, the feedback as a follow-up user message; reject → end the "
             "turn. The tool holds no UI: `present` is injected.",
             (("ui/plan_review.py", "plan_review"),
              ("tools/plan_mode.py", "make_plan_mode_tools.exit_plan")), EXIT_TESTS, 20),
    Exercise("single-exit", "entering and leaving plan mode through AppState's single exit",
             "Write AppState.enter_plan_mode and AppState.leave_plan_mode: each says whether it "
             "changed anything, records an event with its cause, and leaving returns to the "
             "permission mode in force before.",
             (("state.py", "AppState.enter_plan_mode"), ("state.py", "AppState.leave_plan_mode")),
             STATE_TESTS, 10),
    Exercise("sed-rule", "one read-only Bash rule: sed only while it prints",
             "Write judge_sed: sed is read-only without -i/--in-place, without a script file, and "
             "without the w, W and e commands (or the w/e flags of s). Name the unsafe token.",
             (("tools/bash/classifier/sed.py", "judge_sed"),),
             ("tests/test_step42.py::test_sed_that_only_prints_is_read_only",
              "tests/test_step42.py::test_sed_that_writes_or_runs_is_refused_with_its_token"), 20),
    Exercise("step41-baseline", "plan mode's six core functions, from a step-41 agent",
             "Rebuild plan mode: the state's single exit, the plan section of the prompt, the "
             "plan-mode guard, and ExitPlanMode's review. Everything else (the loop, the registry, "
             "the tools) is the step-41 agent you start from.",
             (("state.py", "AppState.enter_plan_mode"), ("state.py", "AppState.leave_plan_mode"),
              ("agent/prompt.py", "plan_mode_section"), ("hooks/plan_mode_guard.py", "plan_mode_guard"),
              ("ui/plan_review.py", "plan_review"),
              ("tools/plan_mode.py", "make_plan_mode_tools.exit_plan")),
             (*STATE_TESTS, *PROMPT_TESTS, *GUARD_TESTS, *EXIT_TESTS, "tests/test_plan_mode.py"), 45),
)


def find(name: str) -> Exercise:
    """The exercise of that name; SystemExit with the list when there is none."""
    for exercise in EXERCISES:
        if exercise.name == name:
            return exercise
    raise SystemExit(f"no exercise {name!r}; see: ./bin/practice list")


def stub_source(source: str, qualified_name: str) -> str:
    """`source` with the body of the function `qualified_name` (A.b.c) replaced by a raise."""
    node = _function(ast.parse(source), qualified_name.split("."))
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    lines = source.splitlines(keepends=True)
    if not body:
        return source
    first = body[0]
    indent = lines[first.lineno - 1][:first.col_offset]
    stub = f'{indent}raise NotImplementedError("practice: write {qualified_name}")\n'
    return "".join(lines[:first.lineno - 1]) + stub + "".join(lines[node.end_lineno:])


def _function(tree: ast.AST, path: list[str]) -> ast.FunctionDef:
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.ClassDef)) and child.name == path[0]:
            if len(path) == 1 and isinstance(child, ast.FunctionDef):
                return child
            return _function(child, path[1:])
    raise LookupError(f"no function {'.'.join(path)}")


def stubbed_files(exercise: Exercise, root: Path = ROOT) -> dict[str, tuple[str, str]]:
    """Each file the exercise stubs: its source as stubbed, and as the project has it."""
    files: dict[str, tuple[str, str]] = {}
    for relative, name in exercise.stubs:
        original = (root / relative).read_text(encoding="utf-8")
        stubbed = files.get(relative, (original, original))[0]
        files[relative] = (stub_source(stubbed, name), original)
    return files


def delta(exercise: Exercise) -> str:
    """What `start` takes out, as a diff from the stubbed copy to the project: the code to rebuild."""
    return "".join(
        "".join(difflib.unified_diff(stubbed.splitlines(keepends=True), original.splitlines(keepends=True),
                                     f"stubbed/{relative}", f"project/{relative}"))
        for relative, (stubbed, original) in stubbed_files(exercise).items())


def start(exercise: Exercise, target: Path) -> None:
    """Make `target` a copy of the project with the exercise's functions stubbed."""
    if target.exists() and any(target.iterdir()):
        raise SystemExit(f"{target} is not empty; choose a new folder")
    shutil.copytree(ROOT, target, ignore=NOT_COPIED, dirs_exist_ok=True)
    for relative, (stubbed, _) in stubbed_files(exercise).items():
        (target / relative).write_text(stubbed, encoding="utf-8")


def check(exercise: Exercise, folder: Path) -> int:
    """Run the exercise's tests in `folder` and say in one last line whether they passed; pytest's exit code.

    The run stops at the first failure (`-x`): that one is the one to read, and a freshly
    stubbed copy would otherwise print a traceback for every test it fails.
    """
    unused_plugins = ["-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:hypothesispytest"]
    command = [sys.executable, "-m", "pytest", "-q", "-x", *unused_plugins, *exercise.tests]
    code = subprocess.run(command, cwd=folder).returncode
    if code == 0:
        print(f"Exercise {exercise.name}: passed. Its tests pass in {folder}.")
    else:
        print(f"Exercise {exercise.name}: failed (pytest exit code {code}). Read the first failure "
              f"above, fix the stubbed function and check again.")
    return code


def main(argv: list[str] | None = None) -> int:
    """The practice command line."""
    parser = argparse.ArgumentParser(prog="practice", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="one exercise per line, its name first (how to start one: "
                        "on standard error)")
    begin = commands.add_parser("start", help="make DIR a copy of the project with stubs")
    begin.add_argument("name")
    begin.add_argument("--dir", type=Path, required=True)
    judge = commands.add_parser("check", help="run the exercise's tests (in DIR, or the project)")
    judge.add_argument("name")
    judge.add_argument("--dir", type=Path, default=ROOT)
    commands.add_parser("diff", help="print the code the exercise takes out, as a unified diff "
                        "(step41-baseline: plan mode's core)").add_argument("name")
    args = parser.parse_args(argv)
    if args.command == "list":
        for exercise in EXERCISES:
            print(f"{exercise.name:16} {exercise.minutes:3} min  {exercise.summary}")
        first = EXERCISES[0].name
        print(f"\nStart one in a new folder: ./bin/practice start {first} --dir /tmp/practice-{first}\n"
              f"then edit the stubbed functions it names, and: ./bin/practice check {first} "
              f"--dir /tmp/practice-{first}", file=sys.stderr)
        return 0
    exercise = find(args.name)
    if args.command == "diff":
        print(delta(exercise), end="")
        return 0
    if args.command == "start":
        start(exercise, args.dir)
        functions = ", ".join(f"{path}: {name}" for path, name in exercise.stubs)
        print(f"{args.dir} is ready. Exercise {exercise.name} (about {exercise.minutes} min).\n\n"
              f"{exercise.task}\n\nStubbed: {functions}\nJudged by:\n  " + "\n  ".join(exercise.tests) +
              f"\n\nWhen you are done: ./bin/practice check {exercise.name} --dir {args.dir}")
        return 0
    return check(exercise, args.dir.resolve())


if __name__ == "__main__":
    sys.exit(main())
