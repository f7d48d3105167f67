"""AskUserQuestion's auto-continue on the screen: silence, then a countdown, then no answers.

The core (tools/ask_user.py) fixes the countdown's absolute times and journals
them; this file only shows them. Until `visible_at` nothing is shown. From
there a line above the answer prompt counts the seconds down and names the
deadline's time of day, which a resumed session shows unchanged. At the
deadline the prompt gives up (DeadlinePassed) and the questions resolve with no
answers. Any key the user presses stops the countdown for good: someone is
there, so the questions wait for them.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from tools.ask_user import AskCountdown

if TYPE_CHECKING:
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import StyleAndTextTuples

REFRESH_SECONDS = 0.25


class DeadlinePassed(Exception):
    """The countdown reached its deadline before the user pressed a key."""


@dataclass
class Countdown:
    """One questionnaire's countdown as the user sees it; `stopped` once they press a key."""

    times: AskCountdown
    clock: Callable[[], float] = time.time
    stopped: bool = False
    shown: bool = False

    @property
    def deadline(self) -> str:
        """The deadline's time of day, `14:05:09`."""
        return time.strftime("%H:%M:%S", time.localtime(self.times.deadline_at))

    def expired(self) -> bool:
        """The deadline has passed and nobody stopped the countdown."""
        return not self.stopped and self.clock() >= self.times.deadline_at

    def stop(self) -> None:
        """A key was pressed: no deadline from now on."""
        self.stopped = True

    def line(self) -> str:
        """What to show above the prompt now: the seconds left, or nothing.

        Nothing during the grace, and nothing at the deadline, when the prompt gives up.
        """
        if self.stopped:
            return "Countdown stopped: the questions wait for your answers." if self.shown else ""
        now = self.clock()
        if not self.times.visible_at <= now < self.times.deadline_at:
            return ""
        self.shown = True
        left = max(0, math.ceil(self.times.deadline_at - now))
        return (f"No answer by {self.deadline}: continuing without answers in {left} s "
                "(press any key to stop the countdown)")

    def message(self, prompt: str) -> StyleAndTextTuples:
        """The prompt, with the countdown's line above it when there is one."""
        line = self.line()
        above = [("ansiyellow", f"{line}\n")] if line else []
        return [*above, ("", prompt)]


def ask_with_countdown(ask: Callable[..., str], prompt: str, countdown: Countdown) -> str:
    """`ask(prompt)` with the countdown above it; DeadlinePassed if the deadline comes first."""
    if countdown.stopped:
        return ask(prompt)
    if countdown.expired():
        raise DeadlinePassed

    def start() -> None:
        from prompt_toolkit.application import get_app  # -p never asks: it need not load it

        app = get_app()
        app.key_processor.before_key_press += lambda _processor: countdown.stop()
        app.create_background_task(_give_up_at_the_deadline(app, countdown))

    return ask(lambda: countdown.message(prompt), pre_run=start, refresh_interval=REFRESH_SECONDS)


async def _give_up_at_the_deadline(app: Application, countdown: Countdown) -> None:
    import asyncio  # loaded by prompt_toolkit by now; -p, which never asks, need not load it

    while not countdown.stopped:
        if countdown.expired():
            app.exit(exception=DeadlinePassed())
            return
        await asyncio.sleep(REFRESH_SECONDS / 2)
