"""A spinner with the seconds elapsed, for a model at work, a tool call or a hook running.

It lives in a transient area at the bottom of the screen and is erased when it
stops, so it never lands in the scrollback. Only one runs at a time, and never
while a question is on the screen. Beside it sits the status the REPL's toolbar
shows between turns (mode, context use), so that stays in sight during a turn
(`restatus` redraws it when the mode changes mid-turn), and under it the keys
typed meanwhile, which wait for the prompt (ui/turn_keys.py).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from ui.uninterrupted import uninterrupted


@dataclass
class Elapsed:
    """A spinner and a label with the seconds since it started, recomputed at each refresh."""

    label: str
    status: str = ""
    draft: Callable[[], str] = lambda: ""
    started: float = field(default_factory=time.monotonic)
    spinner: Spinner = field(default_factory=lambda: Spinner("dots", style="cyan"))

    def __rich__(self) -> RenderableType:
        seconds = time.monotonic() - self.started
        self.spinner.update(text=Text(f" {self.label} {seconds:.0f}s  (Ctrl-C to stop)"
                                      + (f"  ·  {self.status}" if self.status else ""), style="dim"))
        line = self.spinner.render(time.monotonic())
        line.no_wrap, line.overflow = True, "ellipsis"
        held = held_line(self.draft())
        return Group(line, held) if held else line


def held_line(draft: str) -> Text | None:
    """The keys typed while a turn runs, under the spinner or the streaming reply (None for none)."""
    if not draft:
        return None
    return Text(f"  › {draft}  (kept for the prompt)", style="dim", no_wrap=True, overflow="ellipsis")


@dataclass
class Ticker:
    """Start and stop the one live spinner; does nothing when the console is not a terminal."""

    console: Console
    status: Callable[[], str] = lambda: ""
    draft: Callable[[], str] = lambda: ""
    _live: Live | None = None
    _shown: Elapsed | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock)  # sub-agents' hooks run on threads

    @property
    def label(self) -> str:
        """What the running spinner says ('' when none runs)."""
        shown = self._shown
        return shown.label if shown is not None else ""

    def start(self, label: str) -> None:
        """Show `label` with a spinner and a running count of seconds (kept if it already shows)."""
        with self._lock:
            if label == self.label:
                return
            self.stop()
            if not self.console.is_terminal:
                return
            with uninterrupted():
                shown = Elapsed(label, self.status(), self.draft)
                live = Live(shown, console=self.console, refresh_per_second=8, transient=True)
                live.start()
                self._live, self._shown = live, shown

    def restatus(self) -> None:
        """Show the status as it is now beside the running spinner (the mode changed)."""
        if self._shown is not None:
            self._shown.status = self.status()

    def stop(self) -> None:
        """Erase the spinner, if one is running."""
        with self._lock, uninterrupted():
            live, self._live, self._shown = self._live, None, None
            if live is not None:
                live.stop()
