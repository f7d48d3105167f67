"""The tests' fork server (tests/zygote.py): a child it forks starts as `python SCRIPT ARGS`
started for real would, on pipes and on a terminal, and ends the same ways. Compared with a
probe (tests/zygote_probe.py) that prints what a starting process sees."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from tests.product_run import run_script
from tests.terminal import ForkedSpawn
from tests.zygote_client import NO_ZYGOTE, forks, zygote

PROBE = str(Path(__file__).with_name("zygote_probe.py"))


@pytest.fixture
def changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A run's environment unlike the worker's when its zygote started: a folder, umask, time zone,
    temporary folder and a variable of the run's own."""
    monkeypatch.delenv(NO_ZYGOTE, raising=False)
    zygote()  # started before anything below changes
    (tmp_path / "tmp").mkdir()
    old = os.umask(0o027)
    monkeypatch.chdir(tmp_path)
    yield {**os.environ, "TZ": "Asia/Tokyo", "TMPDIR": str(tmp_path / "tmp"), "ZYGOTE_PROBE": "é x"}
    os.umask(old)


def probe_on_pipes(env: dict[str, str], *args: str, fork: bool) -> tuple[dict, subprocess.CompletedProcess]:
    if fork:
        done = run_script(PROBE, *args, cwd=os.getcwd(), env=env)
    else:
        done = subprocess.run([sys.executable, PROBE, *args], cwd=os.getcwd(), env=env, capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
    return json.loads(done.stdout.splitlines()[0]), done


def test_a_forked_child_starts_as_a_real_start_on_pipes(changed):
    assert forks(changed)
    forked, _ = probe_on_pipes(changed, "a b", "ç", fork=True)
    real, _ = probe_on_pipes(changed, "a b", "ç", fork=False)
    assert forked == real
    assert forked["argv"] == ["a b", "ç"] and forked["umask"] == 0o027 and forked["tzname"][0] == "JST"
    assert forked["fds"] == [0, 1, 2] and forked["threads"] == forked["tasks"] == 1
    assert forked["group"] == os.getpgrp() and forked["main"] == "__main__"


@pytest.mark.parametrize("how, code, last", [(("exit", "3"), 3, "atexit ran"), (("kill", "SIGTERM"), -15, ""),
                                             (("interrupt",), -2, "atexit ran"), ((), 0, "atexit ran")])
def test_a_forked_child_ends_as_a_real_start_does(changed, how, code, last):
    _, forked = probe_on_pipes(changed, *how, fork=True)
    _, real = probe_on_pipes(changed, *how, fork=False)
    assert (forked.returncode, real.returncode) == (code, code)
    assert forked.stdout.endswith(last) and real.stdout.endswith(last)
    assert forked.stderr.splitlines()[-1:] == real.stderr.splitlines()[-1:]


def probe_on_a_terminal(env: dict[str, str], spawn: type[pexpect.spawn]) -> tuple[dict, int | None, int | None]:
    child = spawn(sys.executable, [PROBE, "kill", "SIGHUP"], cwd=os.getcwd(), env=env, encoding="utf-8",
                  timeout=30, dimensions=(33, 101))
    child.expect(r"(\{.*\})\r\n")
    seen = json.loads(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    return seen, child.exitstatus, child.signalstatus


def test_a_forked_child_starts_as_a_real_start_on_a_terminal(changed):
    forked = probe_on_a_terminal(changed, ForkedSpawn)
    real = probe_on_a_terminal(changed, pexpect.spawn)

    assert forked == real
    seen, exitstatus, signalstatus = forked
    assert seen["terminal"] == {"size": [33, 101], "leads_session": True, "foreground": True, "name": True}
    assert seen["stdio"][0]["tty"] and seen["stdio"][1]["tty"]
    assert (exitstatus, signalstatus) == (None, signal.SIGHUP)


def test_a_terminal_child_is_signalled_and_waited_for_through_the_zygote(changed):
    child = ForkedSpawn(sys.executable, [PROBE], cwd=os.getcwd(), env=changed, encoding="utf-8", timeout=30)
    child.expect("atexit ran")
    assert child.wait() == 0 and not child.isalive()
    sleeper = ForkedSpawn(sys.executable, [PROBE, "kill", "SIGSTOP"], cwd=os.getcwd(), env=changed,
                          encoding="utf-8", timeout=30)
    sleeper.expect(r"\}\r\n")
    sleeper.kill(signal.SIGKILL)
    sleeper.expect(pexpect.EOF)
    sleeper.close()
    assert sleeper.signalstatus == signal.SIGKILL


def probe_in_a_pane(tmp_path: Path, fork: bool) -> dict:
    """What the probe saw, run by a tmux pane as tests/terminal.py's Screen runs stepagent."""
    socket = f"stepagent-zygote-pane-{os.getpid()}-{tmp_path.name}-{fork}"
    config = tmp_path / "tmux.conf"
    config.write_text("set -g remain-on-exit on\n")  # the probe's lines stay once it has ended
    program = [sys.executable, *(["-S", "-E", str(Path(PROBE).with_name("zygote_pane.py")), zygote().path]
                                 if fork else [])]
    tmux = ["tmux", "-L", socket]
    subprocess.run([*tmux, "-f", str(config), "new-session", "-d", "-x", "101", "-y", "33",
                    f"cd {shlex.quote(str(tmp_path))} && exec {shlex.join([*program, PROBE, 'exit', '0'])}"],
                   check=True)
    try:
        deadline = time.monotonic() + 30
        while "atexit ran" not in (shown := subprocess.run([*tmux, "capture-pane", "-p", "-J", "-S", "-"],
                                                           text=True, capture_output=True).stdout):
            assert time.monotonic() < deadline, shown
            time.sleep(0.05)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    return json.loads(shown[shown.index("{"):shown.rindex("}") + 1])


@pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is not installed")
def test_a_child_handed_a_tmux_pane_starts_as_the_pane_s_own_program(tmp_path):
    """The pane's terminal is the child's controlling terminal, its session its own, in the foreground."""
    forked, real = probe_in_a_pane(tmp_path, fork=True), probe_in_a_pane(tmp_path, fork=False)
    different = {"env", "executable", "orig_argv", "flags"}  # the pane's TMUX names its own server
    assert {k: v for k, v in forked.items() if k not in different} == \
           {k: v for k, v in real.items() if k not in different}
    assert forked["terminal"] == {"size": [33, 101], "leads_session": True, "foreground": True, "name": True}
    assert forked["env"].keys() == real["env"].keys()


def test_what_python_reads_as_it_starts_makes_a_real_start(changed):
    assert not forks({**changed, "PYTHONIOENCODING": "latin-1"})
    assert not forks({**changed, "LC_ALL": "C"})
    assert not forks({**changed, "OPENAI_LOG": "debug"}), "openai reads it as it is imported"
