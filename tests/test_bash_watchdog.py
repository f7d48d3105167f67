"""The Bash tool's watchdog (tools/bash/watchdog.py), attacked: a call that writes to its pipe, and a
stepagent that dies before its call has registered; and the startup file an approved call's bash
registers from, which must leave the user's own BASH_ENV in force.

The attacks run a stand-in for stepagent in a process of its own and kill it, as
test_sandbox.py does; what survives is looked for by a marker in the command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from tests.harness import Session, call, turn
from tests.test_sandbox import kill_stepagent_mid_call, running, wait_until

PYTHON = sys.executable
ROOT = Path(__file__).resolve().parent.parent
# A stepagent that starts its watchdog, then a call that registers only after stepagent has died.
DIES_BEFORE_THE_CALL_REGISTERS = """
import os, subprocess, sys
from pathlib import Path
from tools.bash.left_running import VARIABLE, this_stepagent
from tools.bash.watchdog import REGISTER, Watchdog
workspace = Path(sys.argv[2])
watchdog = Watchdog(this_stepagent(workspace))
late = f"sleep 1; {REGISTER} && sleep 100; : {sys.argv[1]}"
subprocess.Popen(["sh", "-c", late], stdin=watchdog.pipe(), start_new_session=True,
                 env={**os.environ, VARIABLE: this_stepagent(workspace) + ".call"})
os._exit(0)
"""


def test_a_call_cannot_have_the_watchdog_kill_a_group_it_did_not_start(tmp_path):
    head, tail = uuid.uuid4().hex, uuid.uuid4().hex  # the name shows only once the lines are sent
    marker = head + tail
    outsider = subprocess.Popen(["sleep", "100"], start_new_session=True)
    inject = (f'for watchdog in $(pgrep -f "listed="); do echo "+ {outsider.pid}" '
              f'> /proc/$watchdog/fd/0; done 2>/dev/null; exec -a {head}"{tail}" sleep 100')
    try:
        kill_stepagent_mid_call(inject, "yolo", tmp_path, marker, 1)
        assert outsider.poll() is None, "the watchdog killed a group the call named"
    finally:
        outsider.kill()
        outsider.wait()


def test_a_call_that_registers_after_stepagent_died_is_killed(tmp_path):
    marker = uuid.uuid4().hex
    stand_in = subprocess.run([PYTHON, "-c", DIES_BEFORE_THE_CALL_REGISTERS, marker, str(tmp_path)],
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=30)
    assert stand_in.returncode == 0 and running(marker) == 1, "the call is not waiting to register"
    assert wait_until(lambda: running(marker) == 0), "a call that registered late outlived stepagent"


def approved_call(workspace: Path, command: str) -> str:
    session = Session(workspace, [turn("", call("Bash", command=command)), turn("done")], mode="yolo")
    session.run()
    return session.tool_results()[0]


def test_an_approved_call_reads_the_users_bash_env_and_so_do_the_shells_it_starts(tmp_path, monkeypatch):
    """bash registers from a startup file of its own, which then sources the user's BASH_ENV."""
    mine = tmp_path / "my startup.bash"
    mine.write_text("greeting=hello-from-my-bash-env\n")
    monkeypatch.setenv("BASH_ENV", str(mine))
    result = approved_call(tmp_path, """echo "$greeting"; bash -c 'echo "nested $greeting $BASH_ENV"'""")
    assert result.startswith(f"hello-from-my-bash-env\nnested hello-from-my-bash-env {mine}\n"), result


def test_without_a_bash_env_of_the_users_the_call_has_none(tmp_path, monkeypatch):
    monkeypatch.delenv("BASH_ENV", raising=False)
    result = approved_call(tmp_path, 'echo "[${BASH_ENV-none}]"; bash -c \'echo "[${BASH_ENV-none}]"\'')
    assert result.startswith("[none]\n[none]\n"), result
