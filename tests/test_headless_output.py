"""What -p prints: no REPL-only advice, no padding, who really declined a call, the command
that reviews a waiting plan, and exit codes documented the same in --help and the README."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = "stepagent-under-test"
REPL_ONLY = re.compile(r"Try: /|/last|/lesson|/plan |/resume")


def run(workspace: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items()
           if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.run([sys.executable, str(ROOT / "index.py"), *args], cwd=workspace,
                          capture_output=True, text=True, timeout=60,
                          env={**env, "STEPAGENT_HOME": str(home), "STEPAGENT_COMMAND": LAUNCHER,
                               "COLUMNS": "80"})


def test_the_offline_lesson_headless_prints_no_repl_advice_and_no_padding(workspace, tmp_path):
    home = tmp_path / "home"
    planned = run(workspace, home, "-p", "add a greeting file")
    assert planned.returncode == 4, planned.stderr
    printed = planned.stdout + planned.stderr
    assert not REPL_ONLY.search(printed), REPL_ONLY.search(printed)
    assert "denied by plan-mode-guard" in planned.stderr and "plan mode is active" in planned.stderr
    assert "failed inside stepagent" not in planned.stderr
    assert [line for line in planned.stderr.splitlines() if line != line.rstrip()] == []
    session_id = json.loads(run(workspace, home, "--continue", "-p", "and now?",
                                "--output-format", "json").stdout)["session_id"]
    review = f"{LAUNCHER} --resume {session_id}"
    assert review in planned.stderr.splitlines(), "the command to review the plan, whole on its line"
    approved = run(workspace, home, "--approve-plan", "--output-format", "json", "-p", "add a greeting file")
    result = json.loads(approved.stdout)
    assert not REPL_ONLY.search(result["text"] + approved.stderr), result["text"]
    continued = run(workspace, home, "--continue", "-p", "what now?")
    assert not REPL_ONLY.search(continued.stdout + continued.stderr), continued.stderr


def test_an_auto_declined_call_says_no_person_declined_it(workspace, tmp_path):
    approved = run(workspace, tmp_path / "home", "--approve-plan", "-p", "add a greeting file")
    assert "Plan approved by --approve-plan" in approved.stderr
    assert "denied by you" not in approved.stderr
    assert "denied by no one to ask" in approved.stderr
    assert not (workspace / "stepagent_lesson.txt").exists()


def test_a_long_command_output_in_headless_has_no_repl_hint(workspace, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "Bash", "arguments": {"command": "seq 1 60"}}]},
                                  {"text": "counted"}]))
    ran = run(workspace, tmp_path / "home", "--script", str(script), "--mode", "yolo", "-p", "count")
    assert ran.returncode == 0 and "earlier line" in ran.stderr, ran.stderr
    assert "/last" not in ran.stderr


def test_exit_codes_are_listed_the_same_in_help_and_readme(workspace, tmp_path):
    from index import EXIT_CODES

    shown = run(workspace, tmp_path / "home", "--help").stdout
    readme = (ROOT / "README.md").read_text()
    for line in EXIT_CODES.splitlines()[1:]:
        assert line in shown and line in readme, line
    codes = [int(line.split()[0]) for line in EXIT_CODES.splitlines()[1:]]
    assert codes == [0, 1, 2, 3, 4, 130]
    assert run(workspace, tmp_path / "home", "--resume", "nothing-like-it", "-p", "x").returncode == 2
    assert run(workspace, tmp_path / "home", "--no-such-flag").returncode == 2
