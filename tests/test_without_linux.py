"""Where Python and bash run but Linux does not (macOS): plan mode and Bash still work, and say
what contains them.

The suite's plan-mode and Bash cases run twice, in the worker itself, through the fixture
`on_each_system` (tests/conftest.py): once on this system, once with the Linux-only layers
hidden (tests/hidden_layers.py: tools/linux_only.py answers no, os.pidfd_open is gone, the C
library has no prctl), and must pass both times: plan mode then relies on the classifier.
The cases are the modules and tests that ask for it (`pytest.mark.usefixtures("on_each_system")`):
tests/test_plan_mode.py, test_sandbox_layers.py, test_permissions.py, test_scratch_folders.py,
and in test_readonly_bash.py every read-only command and the run with no OS sandbox at all.
Here: the notice and the doctor say so.
"""

from __future__ import annotations

import index
from tests.hidden_layers import clear_probes, hide_linux_only
from tools.bash.sandbox.status import sandbox_status


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
