"""What -p prints: no REPL-only advice, no padding, who really declined a call, a plan left
pending (not rejected) with the ways to approve it, and exit codes documented the same in --help
and the README."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.terminal import Terminal
from tests.product_run import run_product
from tools.plan_mode import PENDING

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = "stepagent-under-test"
REPL_ONLY = re.compile(r"Try: /|/last|/lesson|/plan |/resume")


def run(workspace: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items()
           if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return run_product(*args, cwd=workspace,
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
    assert approved.stderr.count("denied: nobody here can answer") == 1, "the lesson does not retry it"
    assert approved.returncode == 5 and not (workspace / "stepagent_lesson.txt").exists()


def test_a_long_command_output_in_headless_has_no_repl_hint(workspace, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "Bash", "arguments": {"command": "seq 1 60"}}]},
                                  {"text": "counted"}]))
    ran = run(workspace, tmp_path / "home", "--script", str(script), "--mode", "yolo", "-p", "count")
    assert ran.returncode == 0 and "earlier line" in ran.stderr, ran.stderr
    assert "/last" not in ran.stderr


@pytest.fixture
def plan_script(tmp_path: Path) -> Path:
    script = tmp_path / "plan.json"
    script.write_text(json.dumps([{"tool_calls": [
        {"name": "ExitPlanMode", "arguments": {"plan": "1. write made.txt"}}]}]))
    return script


@pytest.mark.parametrize("output", ["text", "json", "stream-json"])
def test_a_plan_nobody_can_review_in_p_is_pending_not_rejected(workspace, tmp_path, plan_script, output):
    ran = run(workspace, tmp_path / "home", "--script", str(plan_script), "--mode", "plan",
              "--output-format", output, "-p", "make it")
    assert ran.returncode == 4, ran.stderr
    assert "reject" not in ran.stderr and "review" in ran.stderr, ran.stderr
    assert "waiting for your review" not in ran.stderr, "nobody is there to review it"
    assert "plan awaits approval" in ran.stderr and "--approve-plan" in ran.stderr, ran.stderr
    assert re.search(f"^{LAUNCHER} --resume sess_", ran.stderr, re.M), ran.stderr
    assert not (workspace / ".stepagent").exists(), "no plan saved"
    if output == "text":
        assert ran.stdout == "1. write made.txt\n"
        return
    lines = [json.loads(line) for line in ran.stdout.splitlines()]
    assert lines[-1]["exit_code"] == 4 and lines[-1]["plan"] == "1. write made.txt"
    if output == "stream-json":
        result = next(line for line in lines if line["type"] == "tool_result")
        told = [line["message"]["content"] for line in lines if line["type"] == "message"
                and line["message"]["role"] == "tool"]
        assert "reject" not in result["summary"] and told == [told[0]]
        assert told[0].startswith(PENDING), "the model is told the plan awaits review"


def test_a_session_resumed_after_p_says_its_plan_awaits_review(workspace, tmp_path, plan_script):
    home = tmp_path / "home"
    ran = run(workspace, home, "--script", str(plan_script), "--mode", "plan", "-p", "make it")
    session_id = re.search(r"--resume (sess_\w+)", ran.stderr).group(1)
    terminal = Terminal.start(workspace, "--script", str(plan_script), "--resume", session_id,
                              env={"STEPAGENT_HOME": str(home)})
    try:
        terminal.expect_text("Its plan awaits your review")
    finally:
        terminal.close()


def test_exit_codes_are_listed_the_same_in_help_and_readme(workspace, tmp_path):
    from ui.command_line import EXIT_CODES

    shown = run(workspace, tmp_path / "home", "--help").stdout
    readme = (ROOT / "README.md").read_text()
    for line in EXIT_CODES.splitlines()[1:]:
        assert line in shown and line in readme, line
    codes = [int(line.split()[0]) for line in EXIT_CODES.splitlines()[1:]]
    assert codes == [0, 1, 2, 3, 4, 5, 130, 141]
    assert run(workspace, tmp_path / "home", "--resume", "nothing-like-it", "-p", "x").returncode == 2
    assert run(workspace, tmp_path / "home", "--no-such-flag").returncode == 2


def test_json_names_a_plan_left_awaiting_approval_for_what_it_is(workspace, tmp_path):
    planned = run(workspace, tmp_path / "home", "-p", "add a greeting file", "--output-format", "json")
    result = json.loads(planned.stdout)
    assert planned.returncode == 4 and result["exit_code"] == 4
    assert result["ending"] == "plan_pending" and result["plan"].startswith("## Plan")
