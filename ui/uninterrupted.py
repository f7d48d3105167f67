"""Hold Ctrl-C back for the few instructions that start or stop a live area of the screen.

rich's Live keeps state in the console (the live stack, a render hook); a
KeyboardInterrupt landing half-way through starting or stopping one leaves that
state broken, and the next spinner fails. The reader of keys typed during a turn
(ui/turn_keys.py) is the same: stopped half-way, it would leave the terminal
without echo. Blocking SIGINT for those moments delays the interrupt by
microseconds: it is delivered, and the turn cancelled, right after. A thread
started inside the block keeps SIGINT blocked (threads inherit the mask), so
the kernel hands Ctrl-C to the main thread, whose wait it must break.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def uninterrupted() -> Iterator[None]:
    """Run the block with SIGINT held back (main thread, where the platform allows it)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
