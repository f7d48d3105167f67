"""Time from launch to the interactive prompt in a pseudo-terminal, and the first answer's wait.

Targets, as ratios: launch to the prompt, with the offline lesson model and with a real
model configured, ≤ 1.25× the floor of any prompt (python importing prompt-toolkit and
rich and drawing one with a one-line toolbar), and `--help` ≤ 1.5× python importing
argparse. A miss exits non-zero; the seconds are printed beside, without a target (on a
shared machine they follow the load). The prompt counts as drawn when its
toolbar is: prompt-toolkit draws the toolbar once the terminal has answered where the
cursor is, so both sides include that round trip, and what stepagent starts after its
first draw shows if it slows the toolbar. Each start is paired with a start of the floor
run just before it, and the configurations take turns, so a machine that gets busier
slows both sides of a pair alike; the load average and the spread are printed beside
each median, since on a shared machine a median alone says little. The CPU time each
used until its prompt (all its threads, from /proc, in 10 ms ticks) changes far less
with the load, so its ratio is printed too.

Each start is timed as a user's second start is: with Python's bytecode cache written
(here in a temporary folder, by one start not timed). A shell with
PYTHONDONTWRITEBYTECODE set compiles stepagent's sources at every start; those
figures are printed too, without a target (the floor's libraries keep their cache).

A plain start draws the prompt first and builds the agent behind it once the toolbar is
drawn, then makes the openai client (ui/prompt_first.py). What waits for it is the last pair of figures: from
Enter to the first token of the first answer (the local fake server answers at once),
when Enter comes at once and when it comes after PAUSE seconds at the prompt.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

import pexpect
from common import ROOT, Targets, conditions, median_seconds, paired, ratio

from tests.fake_chat_server import FakeChatServer

RUNS = 11
PROMPT_RUNS = 21  # on a shared machine one pair in three can be hit by another's burst
ANSWER_RUNS = 5
FLOOR_TARGET, HELP_TARGET = 1.25, 1.5
# The floor of any prompt: import prompt-toolkit and rich, and draw a prompt with a toolbar.
FLOOR = ("-c", "import rich.console; from prompt_toolkit import PromptSession; "
               "PromptSession(bottom_toolbar=' mode: build').prompt('› ')")
FLOOR_LABEL = "floor: prompt-toolkit and rich imported, a prompt and its toolbar drawn"
TOOLBAR = "mode: (?:\x1b\\[[0-9;]*m)*build"  # stepagent's toolbar draws the mode's name in bold
PAUSE = 2.0
FIRST_WORDS = "Zebra-first-words"
Timing = TypeVar("Timing")


def spawn_to_prompt(env: dict[str, str], workspace: Path,
                    argv: tuple[str, ...] = ()) -> tuple[pexpect.spawn, float]:
    """index.py (or python `argv`) started on a 30×100 pseudo-terminal, and the seconds it took
    to show its prompt with the toolbar."""
    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, list(argv) or [str(ROOT / "index.py")], env=env,
                          encoding="utf-8", timeout=30, cwd=str(workspace), dimensions=(30, 100))
    child.delaybeforesend = None  # pexpect's default 50 ms would delay the answer to the cursor query
    while child.expect([TOOLBAR, "\x1b\\[6n"]) == 1:
        child.send("\x1b[1;1R")
    return child, time.perf_counter() - start


@dataclass(frozen=True)
class Start:
    """One start: the seconds from spawning to the prompt, and the CPU seconds used until then."""

    seconds: float
    cpu: float


def time_to_prompt(env: dict[str, str], workspace: Path, argv: tuple[str, ...] = ()) -> Start:
    """index.py (or python `argv`) started and timed to its prompt."""
    child, elapsed = spawn_to_prompt(env, workspace, argv)
    used = cpu_seconds(child.pid)
    child.terminate(force=True)
    return Start(elapsed, used)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a running process, all its threads (fields 14 and 15 of stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_to_first_token(env: dict[str, str], workspace: Path, server: FakeChatServer,
                        pause: float) -> float:
    """Seconds from Enter to the first words of the answer, Enter pressed `pause` s after the prompt."""
    server.reply_text(FIRST_WORDS)
    child, _ = spawn_to_prompt(env, workspace)
    time.sleep(pause)
    start = time.perf_counter()
    child.send("hello\r")
    child.expect(FIRST_WORDS)
    elapsed = time.perf_counter() - start
    child.terminate(force=True)
    return elapsed


def spread(times: list[float]) -> str:
    """The median, with quartiles and extremes: how much one run can be trusted."""
    ordered = sorted(times)
    low, _, high = statistics.quantiles(ordered, n=4)
    return (f"median {statistics.median(ordered):.3f} s (quartiles {low:.3f}–{high:.3f}, "
            f"min {ordered[0]:.3f}, max {ordered[-1]:.3f}, {len(ordered)} runs)")


def interleaved(runs: int, variants: dict[str, Callable[[Path], Timing]],
                folder: Path) -> dict[str, list[Timing]]:
    """Each variant timed `runs` times, taking turns, after one untimed run each (which fills caches)."""
    folder.mkdir(exist_ok=True)
    times: dict[str, list[Timing]] = {label: [] for label in variants}
    for run in range(-1, runs):
        for number, (label, measure) in enumerate(variants.items()):
            workspace = folder / f"workspace-{number}-{run + 1}"
            workspace.mkdir()
            elapsed = measure(workspace)
            if run >= 0:
                times[label].append(elapsed)
    return times


def load() -> str:
    """The load average over 1, 5 and 15 minutes, against the number of cores."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> int:
    print(conditions())
    targets = Targets()
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-startup-") as folder:
        measure(Path(folder), targets)
    return targets.exit_code()


def measure(folder: Path, targets: Targets) -> None:
    """Prompt times for each configuration, then the first answer's wait, each run in a fresh workspace."""
    shell = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    shell.update(TERM="xterm", STEPAGENT_HOME=str(folder / "home"))
    cached = {k: v for k, v in shell.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cached["PYTHONPYCACHEPREFIX"] = str(folder / "bytecode")
    real = {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    variants = {"offline lesson model": cached, "real model configured": {**cached, **real}}
    if shell.get("PYTHONDONTWRITEBYTECODE"):
        variants.update({"offline lesson model, no bytecode cache": shell,
                         "real model configured, no bytecode cache": {**shell, **real}})
    print(f"before: {load()}")
    beside = {label: f"{FLOOR_LABEL}, just before {label}" for label in variants}
    runs: dict[str, Callable[[Path], Start]] = {}
    for label, env in variants.items():
        runs[beside[label]] = lambda workspace: time_to_prompt(cached, workspace, FLOOR)
        runs[label] = lambda workspace, env=env: time_to_prompt(env, workspace)
    starts = interleaved(PROMPT_RUNS, runs, folder)
    print(f"after:  {load()}")
    floor = [start for label in beside.values() for start in starts[label]]
    print(f"{FLOOR_LABEL}: {spread([start.seconds for start in floor])}")
    print(f"  CPU time until the prompt: median {statistics.median(start.cpu for start in floor):.3f} s")
    for label in variants:
        measured, pairs = starts[label], starts[beside[label]]
        print(f"startup to prompt ({label}): {spread([start.seconds for start in measured])}")
        cpu = paired([start.cpu for start in measured], [start.cpu for start in pairs])
        print(f"  CPU time until the prompt: median {cpu.measured:.3f} s, over the floor's run by run {cpu}")
        against = paired([start.seconds for start in measured], [start.seconds for start in pairs])
        if "no bytecode cache" in label:  # the floor's libraries keep their cache: no target here
            print(f"  over the floor, run by run: {against} (no target: every start recompiles)")
        else:
            print(f"  over the floor, run by run: {against} "
                  f"{targets.check(f'{label} over the floor', against.median, FLOOR_TARGET, f'{FLOOR_TARGET}×')}")
    for label, env in {"": cached, ", no bytecode cache": shell}.items():
        if env is shell and not shell.get("PYTHONDONTWRITEBYTECODE"):
            continue
        help_ratio = ratio(lambda: subprocess.run([sys.executable, str(ROOT / "index.py"), "--help"], env=env,
                                                  stdout=subprocess.DEVNULL),
                           lambda: subprocess.run([sys.executable, "-c", "import argparse"], env=env), RUNS)
        verdict = (targets.check("--help", help_ratio.median, HELP_TARGET, f"{HELP_TARGET}×") if env is cached
                   else "(no target: every start recompiles)")
        print(f"--help{label}: {help_ratio.measured:.3f} s, python importing argparse "
              f"{help_ratio.reference:.3f} s; {help_ratio} {verdict}")
    first_answer(folder, cached)
    bare = median_seconds(lambda: subprocess.run([sys.executable, "-c", "pass"]), RUNS)
    with_openai = median_seconds(lambda: subprocess.run([sys.executable, "-c", "import openai"]), RUNS)
    print(f"for comparison (median of {RUNS}): python itself {bare:.3f} s, python importing "
          f"openai {with_openai:.3f} s")


def first_answer(folder: Path, env: dict[str, str]) -> None:
    """Enter to the first token of the first answer, at once and after PAUSE s at the prompt."""
    server = FakeChatServer()
    url = server.start()
    try:
        served = {**env, "OPENAI_API_KEY": "x", "OPENAI_BASE_URL": url}
        times = interleaved(ANSWER_RUNS, {
            f"Enter {pause:g} s after the prompt": lambda workspace, pause=pause: time_to_first_token(
                served, workspace, server, pause) for pause in (0.0, PAUSE)}, folder / "answers")
    finally:
        server.stop()
    print(f"after:  {load()}")
    for label, measured in times.items():
        print(f"first token of the first answer ({label}): {spread(measured)}")


if __name__ == "__main__":
    sys.exit(main())
