"""Mutation score of the lesson path: do the focused tests notice when its code is broken?

mutmut 3 changes one thing at a time (a comparison, a constant, a return value…)
in the files below, runs the tests that reach the changed function, and counts
the mutant as killed when a test fails. A survivor is a change no test noticed:
a missing test, a change of wording only (the tests deliberately never pin a
message's exact text: "XX" added around a string, or its case changed), or an
equivalent mutant (a change that alters nothing a user can see). Wording and the
known equivalent mutants (bench/mutation_equivalent.txt, each with its reason)
are counted apart; the score is killed / (mutants - wording - equivalent).

mutmut is not a runtime or test requirement: the first run installs it into the
project's .venv. It copies the tree into mutants/, so the run happens in a
temporary copy of the project, removed afterwards (--keep leaves it for
`python -m mutmut browse`). Not run in CI; it takes several minutes.

    .venv/bin/python bench/mutation.py [--jobs 2] [--keep]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from common import ROOT

MUTMUT = "mutmut==3.8.1"
TARGETS = ["state.py", "agent/prompt.py", "hooks/registry.py", "hooks/plan_mode_guard.py",
           "tools/plan_mode.py", "tools/bash/classifier/classify.py"]
FOCUSED_TESTS = ["tests/test_hooks.py", "tests/test_state.py", "tests/test_plan_mode.py",
                 "tests/test_permissions.py", "tests/test_readonly_bash.py",
                 "tests/test_classifier_adversary.py", "tests/test_memory.py", "tests/test_layout.py"]
# The corpus end to end (each command run in plain bash and through plan mode) reaches every
# function on the lesson path and takes minutes per surviving mutant; the classifier's own
# corpus tests and the unit tests judge the same code in seconds.
SLOW_TESTS = ("changes_files_in_bash", "runs_in_plan_mode_with_bash_output", "repository_config")
COPIED = ["state.py", "index.py", "agent", "hooks", "tools", "session", "models", "ui",
          "step42_plan_mode"]
EQUIVALENT_LIST = Path(__file__).with_name("mutation_equivalent.txt")


def ensure_mutmut() -> None:
    """Install mutmut into this interpreter's environment on first use."""
    try:
        import mutmut  # noqa: F401
    except ImportError:
        print(f"installing {MUTMUT} (bench only, not a project requirement)", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", MUTMUT], check=True)


def copy_project(into: Path) -> None:
    """The sources and the tests, with a [tool.mutmut] section of their own."""
    ignore = shutil.ignore_patterns("__pycache__", ".stepagent")
    for name in COPIED + ["tests"]:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=ignore)
        else:
            shutil.copy2(source, into / name)
    tests = [test for test in FOCUSED_TESTS if (ROOT / test).exists()]
    deselect = " and ".join(f"not {name}" for name in SLOW_TESTS)
    sources = ", ".join(json.dumps(name) for name in COPIED)
    config = (ROOT / "pyproject.toml").read_text() + f"""
[tool.mutmut]
source_paths = [{sources}]
only_mutate = {json.dumps(TARGETS)}
pytest_add_cli_args_test_selection = {json.dumps(tests)}
pytest_add_cli_args = ["-p", "no:cacheprovider", "-k", {json.dumps(deselect)}]
use_git_change_detection = false
"""
    (into / "pyproject.toml").write_text(config)


def known_equivalents() -> dict[str, str]:
    """Mutant name → why it changes nothing a user can see."""
    if not EQUIVALENT_LIST.exists():
        return {}
    entries = {}
    for line in EQUIVALENT_LIST.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            entries[name] = reason.strip()
    return entries


def statuses(work: Path) -> dict[str, dict[str, str]]:
    """Per target file: mutant name → killed, survived, timeout, no tests…"""
    from mutmut.stats import status_by_exit_code

    found = {}
    for target in TARGETS:
        meta = work / "mutants" / (target + ".meta")
        codes = json.loads(meta.read_text())["exit_code_by_key"] if meta.exists() else {}
        found[target] = {name: status_by_exit_code[code] for name, code in codes.items()}
    return found


def diff(work: Path, name: str) -> list[str]:
    """The mutant's changed lines, '-' before and '+' after."""
    shown = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=work,
                           capture_output=True, text=True)
    return [line for line in shown.stdout.splitlines()[1:]
            if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]


def wording_only(lines: list[str]) -> bool:
    """True when the mutant only wraps a string in XX or changes its case."""
    before = "\n".join(line[1:] for line in lines if line.startswith("-"))
    after = "\n".join(line[1:] for line in lines if line.startswith("+"))
    return before != after and (after.replace("XX", "") == before or after.lower() == before.lower())


def report(work: Path) -> None:
    equivalent = known_equivalents()
    found = statuses(work)
    print("\nmutation score per file: killed / (mutants - wording - known equivalents)")
    survivors, listed = [], []
    for target, by_name in found.items():
        counts = Counter(by_name.values())
        alive = {name: diff(work, name) for name, status in by_name.items()
                 if status not in {"killed", "timeout"}}
        wording = [name for name, lines in alive.items() if wording_only(lines)]
        equal = [name for name in alive if name in equivalent and name not in wording]
        scored = len(by_name) - len(wording) - len(equal)
        dead = counts["killed"] + counts["timeout"]
        score = f"{100 * dead / scored:5.1f} %" if scored else "  n/a"
        print(f"  {target:36} {score}  {dead}/{scored} killed; {len(wording)} wording, "
              f"{len(equal)} equivalent; " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
        survivors += [(name, by_name[name], lines) for name, lines in alive.items()
                      if name not in wording and name not in equal]
        listed += [(name, equivalent[name], alive[name]) for name in equal]
    print(f"  {sum(map(len, found.values()))} mutants in all; {len(survivors)} left to kill or explain")
    for name, status, lines in survivors:
        print(f"\n{name} ({status})\n" + "\n".join(lines))
    if listed:
        print("\nknown equivalent mutants (numbers shift when a file changes: check each change "
              "still fits its reason):")
        for name, reason, lines in listed:
            print(f"  {name}: {reason}\n" + "\n".join(f"    {line}" for line in lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    options = parser.parse_args()
    ensure_mutmut()
    work = Path(tempfile.mkdtemp(prefix="stepagent-mutation-"))
    try:
        copy_project(work)
        run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children",
                              str(options.jobs)], cwd=work, capture_output=True, text=True)
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")
            sys.exit(f"mutmut run failed with exit code {run.returncode}")
        report(work)
    finally:
        if options.keep:
            print(f"\nkept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
