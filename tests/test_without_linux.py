"""Where Python and bash run but Linux does not (macOS): plan mode and Bash still work, and say
what contains them.

The suite's plan-mode and Bash cases run again in a child pytest with the
Linux-only layers hidden (tests/hidden_layers.py: tools/linux_only.py answers
no, os.pidfd_open is gone, the C library has no prctl), and must pass: plan
mode then relies on the classifier, and the notice and the doctor say so.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import index
from tests.hidden_layers import WITHOUT_LINUX, clear_probes, hide_linux_only
from tests.test_layout import ROOT
from tools.bash.sandbox.status import sandbox_status

CASES = ["tests/test_plan_mode.py", "tests/test_sandbox_layers.py", "tests/test_permissions.py",
         "tests/test_scratch_folders.py", "tests/test_readonly_bash.py::test_without_any_os_sandbox_"
         "the_user_is_told_and_reads_still_run", "-k", "not test_classifier_"]
READ_ONLY_IN_PLAN_MODE = "tests/test_readonly_bash.py::test_read_only_command_runs_in_plan_mode_with_bash_output"


@pytest.mark.slow
def test_the_plan_mode_and_bash_cases_pass_with_the_linux_only_layers_hidden():
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                           *CASES, READ_ONLY_IN_PLAN_MODE], cwd=ROOT, env={**os.environ, WITHOUT_LINUX: "1"},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_without_an_os_sandbox_the_notice_and_the_doctor_say_plan_mode_relies_on_the_classifier(
        monkeypatch, capsys):
    hide_linux_only(monkeypatch)
    try:
        notice = sandbox_status()
        index.main(["--doctor"])
    finally:
        clear_probes()
    shown = " ".join(capsys.readouterr().out.split())
    assert "none on this system" in notice and "classifier alone" in notice
    assert "not contained" in notice
    assert "the only guard here" in shown and "nothing contains a command" in shown
