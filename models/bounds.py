"""How long and how large one model request may grow: the model client's bounds.

A request is bounded four ways, so no server can hold a turn forever:
- first byte: the server must start answering within `first_byte_seconds`
  (the HTTP read timeout, which also ends a stream that sends no byte at all);
- idle: a stream must send an event within `idle_seconds` of the last one;
  `: keep-alive` comments and blank lines do not count;
- deadline: the whole request, retries included, ends `deadline_seconds`
  after it began (`--timeout` sets it);
- size: a reply longer than `max_chars` (text, reasoning and tool arguments)
  is not read further (models/stream.py counts).
A stalled stream is retried like a dropped one; a passed deadline and a reply
too long end the request with one line.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from models.defaults import DEFAULT_DEADLINE_SECONDS
from models.stream import StreamBroken

CONNECT_SECONDS = 10.0


class StreamStalled(StreamBroken):
    """The stream sent no event for too long (comments and keep-alives do not count)."""


class DeadlinePassed(Exception):
    """The request ran past its deadline."""


@dataclass(frozen=True)
class RequestBounds:
    """The limits of one model request, and the clock they are measured with."""

    first_byte_seconds: float = 180.0
    idle_seconds: float = 120.0
    deadline_seconds: float = DEFAULT_DEADLINE_SECONDS
    max_chars: int = 4_000_000
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    def deadline(self) -> float:
        """When a request starting now must end, on this clock."""
        return self.clock() + self.deadline_seconds

    def left(self, deadline: float) -> float:
        """Seconds left before `deadline`; DeadlinePassed when none are."""
        remaining = deadline - self.clock()
        if remaining <= 0:
            raise DeadlinePassed()
        return remaining

    def watched(self, lines: Iterable[str], deadline: float) -> Iterator[str]:
        """The stream's lines, ended by a stall between events or by the deadline."""
        last_event = self.clock()
        for line in lines:
            now = self.clock()
            if now >= deadline:
                raise DeadlinePassed()
            if line.startswith("data:"):
                last_event = now
            elif now - last_event > self.idle_seconds:
                raise StreamStalled(f"no event for {self.idle_seconds:g} s")
            yield line
