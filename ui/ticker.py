"""A spinner with the seconds elapsed, for a model at work or a command running.

It lives in a transient area at the bottom of the screen and is erased when it
stops, so it never lands in the scrollback. Only one runs at a time, and never
while a question is on the screen. Beside it sits the status the REPL's toolbar
shows between turns (mode, context use), so that stays in sight during a turn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from rich.console import Console, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

from ui.uninterrupted import uninterrupted


@dataclass
class Elapsed:
    """A spinner and a label with the seconds since it started, recomputed at each refresh."""

    label: str
    status: str = ""
    started: float = field(default_factory=time.monotonic)
    spinner: Spinner = field(default_factory=lambda: Spinner("dots", style="cyan"))

    def __rich__(self) -> RenderableType:
        seconds = time.monotonic() - self.started
        self.spinner.update(text=Text(f" {self.label} {seconds:.0f}s  (Ctrl-C to stop)"
                                      + (f"  ·  {self.status}" if self.status else ""), style="dim"))
        line = self.spinner.render(time.monotonic())
        line.no_wrap, line.overflow = True, "ellipsis"
        return line


@dataclass
class Ticker:
    """Start and stop the one live spinner; does nothing when the console is not a terminal."""

    console: Console
    status: Callable[[], str] = lambda: ""
    _live: Live | None = None

    def start(self, label: str) -> None:
        """Show `label` with a spinner and a running count of seconds."""
        self.stop()
        if not self.console.is_terminal:
            return
        with uninterrupted():
            live = Live(Elapsed(label, self.status()), console=self.console, refresh_per_second=8,
                        transient=True)
            live.start()
            self._live = live

    def stop(self) -> None:
        """Erase the spinner, if one is running."""
        with uninterrupted():
            live, self._live = self._live, None
            if live is not None:
                live.stop()
