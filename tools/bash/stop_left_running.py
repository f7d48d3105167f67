"""When plan mode begins, stop what earlier Bash calls left running.

Part of the promise "while plan mode is on, nothing changes": a process that a
build-mode or yolo call left running (left_running.py finds them) would go on
changing files after the switch. The listener here hears every ModeChanged
that puts plan mode on (/plan, Shift+Tab, the model's EnterPlanMode, --mode
plan at start or on resume all go through AppState) and stops them, and what
a stepagent that has ended left in the same workspace (left_running.left_in):
SIGSTOP to each process and its process group, a few rounds until no new one
appears, then SIGKILL to all. It then emits LeftRunningStopped, which the console
shows in one line. Plan mode only turns on between tool calls, so no call of
this stepagent is running while it sweeps. A process is signalled through a pidfd, so a pid that was
reused in the meantime is never hit; nothing is reaped (stepagent is not the
parent of what it stops).
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.events import BackgroundProcess, Event, EventBus, LeftRunningStopped, ModeChanged
from tools.bash.left_running import LeftProcess, left_in, still_running, topmost

KILL_WAIT_SECONDS = 2.0
ROUNDS = 5


@dataclass
class Sweep:
    """What a sweep stopped, and what it could not."""

    stopped: list[LeftProcess] = field(default_factory=list)
    still_running: list[LeftProcess] = field(default_factory=list)


def stop_when_planning(events: EventBus, workspace: Path) -> Callable[[Event], None]:
    """A listener for `events`: when plan mode turns on, stop what Bash calls left in `workspace`."""
    def listen(event: Event) -> None:
        if isinstance(event, ModeChanged) and event.plan_mode:
            sweep = stop_left_running(lambda: left_in(workspace))
            if sweep.stopped or sweep.still_running:
                events.emit(LeftRunningStopped(_records(sweep.stopped), _records(sweep.still_running)))
    return listen


def stop_left_running(find: Callable[[], list[LeftProcess]]) -> Sweep:
    """Freeze what `find` finds, again until nothing new appears, then kill it all.

    A frozen (SIGSTOPped) process can start nothing more, not even from a
    SIGTERM handler that starts a fresh copy of itself, so the rounds end; then
    SIGKILL ends them all, as it ended the group of the call they escaped.
    """
    handles: dict[LeftProcess, int] = {}
    try:
        for _ in range(ROUNDS):
            fresh = _pidfds([process for process in find() if process not in handles])
            if not fresh:
                break
            _signal(fresh, signal.SIGSTOP)
            handles.update(fresh)
        found = list(handles)
        _signal(handles, signal.SIGKILL)
        _wait(handles, KILL_WAIT_SECONDS)
        return Sweep([process for process in found if process not in handles], list(handles))
    finally:
        for fd in handles.values():
            os.close(fd)


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
    """Until each pidfd says its process exited, or `seconds` passed; the exited leave `handles`."""
    end = time.monotonic() + seconds
    while handles:
        left = end - time.monotonic()
        if left <= 0:
            return
        ready, _, _ = select.select(list(handles.values()), [], [], left)
        for process in [process for process, fd in handles.items() if fd in ready]:
            os.close(handles.pop(process))


def _records(processes: list[LeftProcess]) -> tuple[BackgroundProcess, ...]:
    return tuple(BackgroundProcess(process.pid, process.name) for process in topmost(processes))
