"""What a start loads before it answers: `--help`, `--version` and a bad flag load nothing of
the agent, only the command line's own light modules (bench/startup.py times it; this
checks the structure that makes it fast, never the clock)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# What the command line reads: its parser, the slash commands' help, the modes, the model's defaults.
COMMAND_LINE = {"ui", "ui.command_line", "ui.slash_help", "agent", "models", "models.defaults"}
PROJECT_PACKAGES = {"agent", "hooks", "models", "session", "settings", "tools", "ui", "state",
                    "step42_plan_mode", "index"}
HEAVY = {"rich", "prompt_toolkit", "openai", "httpx", "sqlite3", "dataclasses", "typing", "pathlib"}
AFTER_PARSING = """
import sys
from ui.command_line import parse_args
parse_args(sys.argv[1:])
print(" ".join(sys.modules))
"""


def imported(*command: str, cwd: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run python with `command` under -X importtime; what it printed, and every module it imported."""
    env = {**os.environ, "STEPAGENT_HOME": str(cwd / "home")}
    ran = subprocess.run([sys.executable, "-X", "importtime", *command], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=60)
    names = {line.rsplit("|", 1)[1].strip() for line in ran.stderr.splitlines()
             if line.startswith("import time:")}
    return ran, names


def ours(names: set[str]) -> set[str]:
    return {name for name in names if name.split(".")[0] in PROJECT_PACKAGES}


@pytest.mark.parametrize("flag", ["--help", "--version", "--mode=nonsense"])
def test_help_version_and_a_bad_flag_load_only_the_command_line(tmp_path, flag):
    ran, names = imported(str(ROOT / "index.py"), flag, cwd=tmp_path)
    assert ran.returncode == (2 if "nonsense" in flag else 0), ran.stderr
    assert "stepagent" in ran.stdout + ran.stderr
    assert ours(names) == COMMAND_LINE
    assert not {name.split(".")[0] for name in names} & HEAVY


def test_a_good_command_line_is_parsed_without_the_agent(tmp_path):
    ran = subprocess.run([sys.executable, "-c", AFTER_PARSING, "--mode", "plan", "--model", "m",
                          "--output-format", "json", "-p", "hi"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    names = set(ran.stdout.split())
    assert ours(names) == COMMAND_LINE
    assert not {name.split(".")[0] for name in names} & HEAVY


def test_help_shows_what_the_agent_defines(tmp_path):
    from agent import MODE_CYCLE
    from models.defaults import DEFAULT_MODEL
    from ui.slash_help import command_names

    shown = subprocess.run([sys.executable, str(ROOT / "index.py"), "--help"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60).stdout
    assert "{" + ",".join(MODE_CYCLE) + "}" in shown and DEFAULT_MODEL in shown
    assert all(name in shown for name in command_names())
