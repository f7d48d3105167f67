"""What a Bash call leaves running is reported, and stopped when plan mode begins.

A `setsid` loop escapes the call's process group, so killing the group at the
end of the call does not stop it. The call's result says it is still running,
and entering plan mode, by any way in, stops it and says so on screen; a
process stepagent did not start is never touched.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from tools.bash.stop_left_running import BackgroundProcess, LeftRunningStopped
from tests.harness import Session, call, turn
from tests.terminal import Terminal
from tools.bash import left_running, stop_left_running
from tools.bash.left_running import VARIABLE, LeftProcess, this_stepagent
from ui.console import ConsoleView
from ui.headless import run_headless
from ui.modes import cycle, select

LEFT = re.compile(r"left running: 1 process \((\d+) [^)]+\)")


@pytest.fixture
def tokens():
    """Unique words for the test's background loops; whatever still runs with one is killed after."""
    made: list[str] = []
    yield lambda: made.append(uuid.uuid4().hex) or made[-1]
    for token in made:
        subprocess.run(["pkill", "-KILL", "-f", token], capture_output=True)


PERIOD = 0.1  # how often the test's loops write


def loop_writing(out: Path, token: str) -> str:
    """A loop that appends to `out` every PERIOD, in a session of its own.

    The command waits for the first line: until then the loop may not have left the
    call's group yet, and would die with it.
    """
    return (f"setsid sh -c 'while :; do date >> {out}; sleep {PERIOD}; : {token}; done' >/dev/null 2>&1 & "
            f"until [ -s {out} ]; do sleep 0.05; done")


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_until(condition, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def grows(path: Path, seconds: float = 5) -> bool:
    """True when `path` grows within `seconds` (the loop writes every PERIOD)."""
    before = size(path)
    return wait_until(lambda: size(path) > before, seconds=seconds)


def stays(path: Path) -> bool:
    """True when `path` does not grow for three of the loop's periods."""
    return not grows(path, seconds=3 * PERIOD)


def screen_of(session: Session) -> io.StringIO:
    out = io.StringIO()
    session.state.events.subscribe(ConsoleView(Console(file=out, width=200)).on_event)
    return out


def stopped_events(session: Session) -> list[LeftRunningStopped]:
    seen: list[LeftRunningStopped] = []
    session.state.events.subscribe(lambda event: isinstance(event, LeftRunningStopped) and seen.append(event))
    return seen


WAYS_IN = {
    "EnterPlanMode": lambda session: session.run("plan it"),
    "/plan": lambda session: session.state.enter_plan_mode("/plan"),
    "Shift+Tab": lambda session: [cycle(session.state, "Shift+Tab") for _ in range(3)],
    "--mode plan": lambda session: select(session.state, "plan", "--mode"),
}


@pytest.mark.parametrize("way_in", WAYS_IN)
def test_a_process_a_call_left_running_is_reported_then_stopped_when_plan_mode_begins(
        tmp_path, tokens, way_in):
    out = tmp_path / "out"
    session = Session(tmp_path, [turn("", call("Bash", command=loop_writing(out, tokens()))),
                                 turn("started"), turn("", call("EnterPlanMode")), turn("planning")],
                      permission_answers=[True])
    session.run()
    result = session.tool_results()[0]
    left = LEFT.search(result)
    assert left, result
    pid = int(left.group(1))
    assert grows(out), "the loop should outlive the call"

    screen, stopped = screen_of(session), stopped_events(session)
    WAYS_IN[way_in](session)
    assert session.state.plan_mode
    assert wait_until(lambda: not running(pid), seconds=5), "the loop still runs in plan mode"
    assert stays(out)
    assert [[process.pid for process in event.stopped] for event in stopped] == [[pid]]
    assert f"stopped 1 process ({pid} " in screen.getvalue()


def test_a_process_that_ignores_sigterm_is_killed(tmp_path, tokens):
    out = tmp_path / "out"
    stubborn = loop_writing(out, tokens()).replace("sh -c 'while", "sh -c 'trap \"\" TERM; while")
    session = Session(tmp_path, [turn("", call("Bash", command=stubborn)), turn("started")], mode="yolo")
    session.run()
    pid = int(LEFT.search(session.tool_results()[0]).group(1))
    stopped = stopped_events(session)
    session.state.enter_plan_mode("/plan")
    assert [[process.pid for process in event.stopped] for event in stopped] == [[pid]]
    assert not running(pid) and stays(out)


def test_a_process_that_starts_a_fresh_copy_of_itself_when_signalled_is_stopped(tmp_path, tokens):
    """The red team's loop: on SIGTERM it starts a new setsid copy of itself."""
    out, token = tmp_path / "out", tokens()
    script = tmp_path / f"respawn-{token}.sh"  # the token in its command line, for pgrep and cleanup
    script.write_text(f"trap 'setsid sh {script} & exit' TERM\n"
                      f"while :; do date >> {out}; sleep {PERIOD}; : {token}; done\n")
    respawning = f"setsid sh {script} >/dev/null 2>&1 & until [ -s {out} ]; do sleep 0.05; done"
    session = Session(tmp_path, [turn("", call("Bash", command=respawning)), turn("started")], mode="yolo")
    session.run()
    assert LEFT.search(session.tool_results()[0]), session.tool_results()[0]
    stopped = stopped_events(session)
    session.state.enter_plan_mode("/plan")
    assert wait_until(lambda: stays(out)) and stays(out)
    assert subprocess.run(["pgrep", "-f", token], capture_output=True).returncode == 1
    assert stopped and not stopped[0].still_running


def absent(pid: int, group: int = 0) -> LeftProcess:
    """A process record no live process matches (no start time is -1), so nothing is signalled."""
    return LeftProcess(pid, "sh", 1, group, started=-1)


def test_a_child_first_seen_in_a_later_round_in_a_group_already_found_is_not_named_twice():
    """Under load a rescan can find the `sleep` a frozen `sh` forked just before."""
    shell, late_child = absent(100, group=100), absent(101, group=100)
    scans = iter([[shell], [shell, late_child], [shell, late_child], []])
    sweep = stop_left_running.stop_left_running(lambda: next(scans))
    assert sweep.stopped == [shell] and sweep.still_running == []


def test_what_is_still_found_after_the_sweep_is_reported_still_running_not_stopped():
    """An honest report: a process still found after the kill was not stopped, whatever the reason."""
    survivor = absent(100)
    sweep = stop_left_running.stop_left_running(lambda: [survivor])
    assert sweep.stopped == [] and sweep.still_running == [survivor]


def test_one_that_outruns_the_freeze_rounds_is_reported_still_running():
    """A new process at every reading of /proc: the freeze gives up after its rounds and says so."""
    fresh = iter(range(1000, 2000))
    sweep = stop_left_running.stop_left_running(lambda: [absent(next(fresh))])
    assert len(sweep.still_running) == 1 and sweep.still_running[0].pid > 1000


def test_a_process_stepagent_did_not_start_is_never_touched(tmp_path, tokens):
    out, theirs = tmp_path / "out", tmp_path / "theirs"
    stranger = subprocess.Popen(["bash", "-c", loop_writing(theirs, tokens())])
    stranger.wait()
    session = Session(tmp_path, [turn("", call("Bash", command=loop_writing(out, tokens()))),
                                 turn("started")], permission_answers=[True])
    session.run()
    assert LEFT.search(session.tool_results()[0])
    stopped = stopped_events(session)
    session.state.enter_plan_mode("/plan")
    assert stopped and stays(out)
    assert grows(theirs), "a process the test started was stopped"


def test_plan_mode_stops_what_an_ended_stepagent_left_here_and_nothing_else(tmp_path, tokens):
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    init = Path("/proc/1/stat").read_text().rsplit(")", 1)[1].split()[19]
    markers = {"ended_here": f"{this_stepagent(here).split('.')[0]}.{os.getpid()}.0.aa",
               "running_here": f"{this_stepagent(here).split('.')[0]}.1.{init}.bb",
               "ended_elsewhere": f"{this_stepagent(elsewhere).split('.')[0]}.{os.getpid()}.0.cc"}
    for name, marker in markers.items():
        subprocess.run(["bash", "-c", loop_writing(tmp_path / name, tokens())],
                       env={**os.environ, VARIABLE: marker}, check=True, timeout=30)
    session = Session(here, [])
    stopped = stopped_events(session)
    session.state.enter_plan_mode("--mode")
    assert len(stopped) == 1 and len(stopped[0].stopped) == 1
    assert stays(tmp_path / "ended_here")
    assert grows(tmp_path / "running_here") and grows(tmp_path / "ended_elsewhere")


def test_what_could_not_be_stopped_is_said_in_red_and_a_name_cannot_redraw_the_screen():
    out = io.StringIO()
    view = ConsoleView(Console(file=out, width=200, force_terminal=True, color_system="standard"))
    view.on_event(LeftRunningStopped((), (BackgroundProcess(4242, "x\x1b[2Jy"),)))
    shown = out.getvalue()
    assert "could not stop" in shown and "4242" in shown and "31m" in shown
    assert "\x1b[2J" not in shown


def test_a_headless_run_says_at_its_end_what_its_commands_left_running(tmp_path, tokens, capsys):
    out = tmp_path / "out"
    session = Session(tmp_path, [turn("", call("Bash", command=loop_writing(out, tokens()))),
                                 turn("started")], mode="yolo")
    screen = io.StringIO()
    assert run_headless(session.agent, "go", ConsoleView(Console(file=screen, width=200))) == 0
    assert re.search(r"Left running by this session's commands: 1 process \(\d+ sh\)", screen.getvalue())


def test_an_ordinary_call_reports_nothing_left_and_plan_mode_stops_nothing(tmp_path):
    session = Session(tmp_path, [turn("", call("Bash", command="(sleep 0.1; echo done) & wait")),
                                 turn("done")], mode="yolo")
    session.run()
    result = session.tool_results()[0]
    assert result.endswith("[exit code 0]") and "left running" not in result
    screen, stopped = screen_of(session), stopped_events(session)
    session.state.enter_plan_mode("/plan")
    assert stopped == [] and "stopped" not in screen.getvalue()


# A `sleep` in a session of its own, the call's last fork (its pid goes to `last`); the call
# ends once the sleep runs.
LAST_STARTED = ("setsid sleep 300 & echo $! > last; "
                "while read -r stat < /proc/$!/stat && [[ $stat != *'(sleep)'* ]]; do :; done")


def left_sleep(workspace: Path) -> tuple[str, int]:
    """A yolo call's result after LAST_STARTED, and the pid of the sleep it reports (killed here)."""
    session = Session(workspace, [turn("", call("Bash", command=LAST_STARTED)), turn("started")], mode="yolo")
    try:
        session.run()
    finally:
        if (workspace / "last").exists():
            os.kill(int((workspace / "last").read_text()), 9)
    result = session.tool_results()[0]
    found = re.search(r"left running: 1 process \((\d+) sleep\)", result)
    return result, int(found.group(1)) if found else 0


def test_the_process_a_call_started_last_is_reported(tmp_path, monkeypatch):
    """As on a quiet machine, where its pid is the last one handed out: the scan reaches it."""
    monkeypatch.setattr(left_running, "_last_pid", lambda: int((tmp_path / "last").read_text()))
    result, pid = left_sleep(tmp_path)
    assert pid == int((tmp_path / "last").read_text()), result


def test_what_a_call_left_is_reported_when_the_pid_counter_wrapped_around_during_it(tmp_path, monkeypatch):
    """The last pid handed out is below the call's own: every process is looked at."""
    monkeypatch.setattr(left_running, "_last_pid", lambda: 2)
    result, pid = left_sleep(tmp_path)
    assert pid == int((tmp_path / "last").read_text()), result


def test_what_a_call_left_is_reported_when_more_pids_were_handed_out_than_are_looked_up(
        tmp_path, monkeypatch):
    """Then /proc's listing is read for the pids after the call's first."""
    monkeypatch.setattr(left_running, "PROBED", 0)
    result, pid = left_sleep(tmp_path)
    assert pid == int((tmp_path / "last").read_text()), result


def test_a_process_left_running_with_threads_is_one_process(tmp_path, tokens):
    """Its threads' ids come after the call's first pid too, but only the process is named."""
    threads = ("import threading, time; [threading.Thread(target=time.sleep, args=(300,), daemon=True)"
               f".start() for _ in range(3)]; open('ready', 'w').close(); time.sleep(300); '{tokens()}'")
    command = (f'setsid {sys.executable} -c "{threads}" >/dev/null 2>&1 & '
               "while [ ! -e ready ]; do :; done")  # no `sleep`: no pid but the threads' comes after
    session = Session(tmp_path, [turn("", call("Bash", command=command)), turn("started")], mode="yolo")
    session.run()
    result = session.tool_results()[0]
    assert re.search(r"left running: 1 process \(\d+ [^,)]+\)", result), result


def start_a_loop_in_yolo(workspace: Path, out: Path, script: Path, token: str) -> Terminal:
    """The real REPL in yolo mode, scripted to start a loop writing to `out` on the first prompt."""
    script.write_text(json.dumps({"turns": [
        {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": loop_writing(out, token)}}]},
        {"text": "started it"}]}))
    return Terminal.start(workspace, "--mode", "yolo", "--script", str(script))


def test_shift_tab_into_plan_mode_says_on_screen_what_it_stopped(workspace, tmp_path, tokens):
    """The real REPL (about 2 s: it starts stepagent): the result's line, then Shift+Tab's."""
    out, script = tmp_path / "out", tmp_path / "script.json"
    terminal = start_a_loop_in_yolo(workspace, out, script, tokens())
    try:
        terminal.expect("›")
        terminal.sendline("start the loop")
        terminal.expect(r"left running: 1 process \((\d+) ")
        pid = terminal.child.match.group(1)
        terminal.expect("started it")
        terminal.expect("›")
        assert grows(out)
        terminal.send("\x1b[Z")
        terminal.expect_text(f"stopped 1 process ({pid} sh)")
        assert wait_until(lambda: not running(int(pid))) and stays(out)
    finally:
        terminal.close()


def test_exit_says_what_is_left_running_and_a_restart_in_plan_mode_stops_it(workspace, tmp_path, tokens):
    """The real REPL, twice (about 4 s): /exit names the loop, `--continue --mode plan` stops it."""
    out, script = tmp_path / "out", tmp_path / "script.json"
    terminal = start_a_loop_in_yolo(workspace, out, script, tokens())
    try:
        terminal.expect("›")
        terminal.sendline("start the loop")
        terminal.expect("started it")
        terminal.expect("›")
        terminal.sendline("/exit")
        terminal.expect(r"Left running by this session's commands: 1 process \((\d+) sh\)")
        pid = terminal.child.match.group(1)
        terminal.expect(pexpect.EOF)
    finally:
        terminal.close()
    assert grows(out), "the loop should outlive stepagent"
    terminal = Terminal.start(workspace, "--continue", "--mode", "plan", "--script", str(script))
    try:
        terminal.expect_text(f"stopped 1 process ({pid} sh)")
        terminal.expect("›")
        assert wait_until(lambda: not running(int(pid))) and stays(out)
    finally:
        terminal.close()
