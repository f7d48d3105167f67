"""When plan mode begins, stop what earlier Bash calls left running (a layer of the Bash feature).

Part of the promise "while plan mode is on, nothing changes": a process that a
build-mode or yolo call left running (left_running.py finds them) would go on
changing files after the switch. The listener here hears every ModeChanged
that puts plan mode on (/plan, Shift+Tab, the model's EnterPlanMode, --mode
plan at start or on resume all go through AppState) and stops them, and what
a stepagent that has ended left in the same workspace (left_running.left_in).
It then emits LeftRunningStopped, which the console shows in one line; what
is still running after the sweep is named there, in red.

Freeze, then kill. Every process found gets SIGSTOP (and its process group),
and /proc is read again until no new one appears (a child forked just before
its parent stopped), a few rounds at most; then all of them get SIGKILL. A
stopped process runs no code, so it cannot start a fresh `setsid` copy of
itself, and a fork under way when SIGSTOP arrives is held back until it
resumes, which it never does.
There is no SIGTERM and no grace: a TERM handler is code the process chooses
to run after plan mode began, and it may write files, ignore the signal, or
start a copy of itself in a new session (the red team's loop did, and outlived
three TERM-grace-KILL rounds while the report said it was stopped). A polite
exit would buy a tidy shutdown (a pid file removed) at the price of that
hole; plan mode takes the stronger promise.

Plan mode only turns on between tool calls, so no call of this stepagent is
running while it sweeps. A process is signalled through a pidfd, so a pid that
was reused in the meantime is never hit; nothing is reaped (stepagent is not
the parent of what it stops). What carries no marker is not seen at all
(left_running.py says which those are).
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from typing import TYPE_CHECKING

from agent.events import Event, EventBus, ModeChanged
from tools.bash.left_running import LeftProcess, left_in, still_running, topmost

if TYPE_CHECKING:
    from agent.loop import Agent

FREEZE_ROUNDS = 10
KILL_WAIT_SECONDS = 2.0


@dataclass(frozen=True)
class BackgroundProcess(Event):
    """A process a Bash call left running: its pid and command name (which it chose itself)."""

    pid: int
    name: str


@dataclass(frozen=True)
class LeftRunningStopped(Event):
    """Plan mode began, so what earlier Bash calls left running was stopped (or could not be)."""

    stopped: tuple[BackgroundProcess, ...]
    still_running: tuple[BackgroundProcess, ...] = ()


@dataclass
class Sweep:
    """What a sweep stopped, and what is still running after it."""

    stopped: list[LeftProcess] = field(default_factory=list)
    still_running: list[LeftProcess] = field(default_factory=list)


def stop_left_running_layer(agent: "Agent") -> None:
    """The layer: whenever the agent's plan mode begins, stop what its Bash calls left running."""
    agent.state.events.subscribe(stop_when_planning(agent.state.events, agent.workspace))


def stop_when_planning(events: EventBus, workspace: Path) -> Callable[[Event], None]:
    """A listener for `events`: when plan mode turns on, stop what Bash calls left in `workspace`."""
    def listen(event: Event) -> None:
        if isinstance(event, ModeChanged) and event.plan_mode:
            sweep = stop_left_running(lambda: left_in(workspace))
            if sweep.stopped or sweep.still_running:
                events.emit(LeftRunningStopped(_records(sweep.stopped), _records(sweep.still_running)))
    return listen


def stop_left_running(find: Callable[[], list[LeftProcess]]) -> Sweep:
    """Freeze every process `find` finds until no new one appears, kill them all, and look again.

    Whatever `find` still finds after the kill is still running, whatever the
    reason (it outran the freeze rounds, or would not die). A child first seen
    in a later round, in the group of a process already found, is part of what
    was stopped, not one more process to name.
    """
    handles: dict[LeftProcess, int] = {}
    seen: list[LeftProcess] = []
    named: list[LeftProcess] = []
    try:
        for _ in range(FREEZE_ROUNDS):
            new = [process for process in find() if process not in seen]
            if not new:
                break
            groups = {process.group for process in seen}
            named += [process for process in new if process.group not in groups]
            seen += new
            fresh = _pidfds(new)
            handles.update(fresh)
            _signal(fresh, signal.SIGSTOP)
    finally:
        try:
            _signal(handles, signal.SIGKILL)
            _wait(handles, KILL_WAIT_SECONDS)
        finally:
            for fd in handles.values():
                os.close(fd)
    left = find()
    return Sweep(stopped=[process for process in named if process not in left], still_running=left)


def _pidfds(processes: list[LeftProcess]) -> dict[LeftProcess, int]:
    """A pidfd for each process still running; checked after opening, so it is that very process."""
    handles = {}
    for process in processes:
        try:
            fd = os.pidfd_open(process.pid)
        except OSError:
            continue
        if still_running(process):
            handles[process] = fd
        else:
            os.close(fd)
    return handles


def _signal(handles: dict[LeftProcess, int], number: int) -> None:
    own = os.getpgrp()
    for process, fd in handles.items():
        try:
            signal.pidfd_send_signal(fd, number)
        except OSError:
            pass
        if process.group > 1 and process.group != own:
            try:
                os.killpg(process.group, number)
            except OSError:
                pass


def _wait(handles: dict[LeftProcess, int], seconds: float) -> None:
    """Until each pidfd says its process exited, or `seconds` passed."""
    end = time.monotonic() + seconds
    waiting = set(handles.values())
    while waiting:
        left = end - time.monotonic()
        if left <= 0:
            return
        ready, _, _ = select.select(list(waiting), [], [], left)
        waiting -= set(ready)


def _records(processes: list[LeftProcess]) -> tuple[BackgroundProcess, ...]:
    return tuple(BackgroundProcess(process.pid, process.name) for process in topmost(processes))
