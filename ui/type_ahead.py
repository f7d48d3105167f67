"""Type-ahead never answers a question: what was typed before a question was drawn is thrown away.

Line 3 of the defence depends on it (failure mode 13). Keys typed while a call
runs wait in three places: the REPL's reader of keys typed during a turn
(ui/turn_keys.py, which holds them for the prompt), the terminal's input queue
(the kernel holds them until someone reads), and prompt-toolkit's own
type-ahead store (keys a finished prompt read past its Enter, kept for the next
prompt). A question drawn after a `sleep` would read "y⏎" from any of them at
once and approve a plan nobody saw. So every question (plan review, permission,
AskUserQuestion, a start-up confirmation) asks through `asking_fresh`: once the
question is on the screen, the reader pauses and all three are emptied, the
screen says how many keys were dropped, and only then is the answer read.
"""

from __future__ import annotations

import os
import select
import sys
from contextlib import nullcontext
from typing import Callable

from ui.console import ConsoleView
from ui.turn_keys import TurnKeys, key_by_key

MAX_DISCARDED_BYTES = 1 << 20


def discard_type_ahead() -> int:
    """Empty standard input's queue and prompt-toolkit's store; how many keys were thrown away."""
    if not sys.stdin.isatty():
        return 0
    from prompt_toolkit.input import create_input
    from prompt_toolkit.input.typeahead import get_typeahead

    return len(get_typeahead(create_input())) + discard_terminal_queue(sys.stdin.fileno())


def discard_terminal_queue(fd: int) -> int:
    """Read what waits (in non-canonical mode, so a line without its Enter counts too), then flush."""
    import termios

    settings = key_by_key(fd)
    if settings is None:
        return 0
    cooked, raw = settings
    count = 0
    try:
        termios.tcsetattr(fd, termios.TCSANOW, raw)
        while count < MAX_DISCARDED_BYTES and select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            count += len(chunk.decode("utf-8", "replace"))
    except OSError:
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, cooked)
        termios.tcflush(fd, termios.TCIFLUSH)
    return count


def asking_fresh(view: ConsoleView, ask: Callable[..., str], keys: TurnKeys | None = None,
                 discard: Callable[[], int] = discard_type_ahead) -> Callable[..., str]:
    """`ask`, which reads only what is typed once the question is on the screen.

    `keys` is the reader of the turn the question comes in: it pauses while the question waits.
    """
    def fresh(*args, **kwargs) -> str:
        view.ticker.stop()  # a spinner ran while the hooks decided to ask
        view.console.file.flush()
        with keys.paused() if keys is not None else nullcontext(0) as held:
            dropped = held + discard()
            if dropped:
                view.notice(f"Ignored {dropped} key{'s' * (dropped != 1)} typed before this question "
                            "was on the screen: answer now.", style="yellow")
            return ask(*args, **kwargs)
    return fresh
