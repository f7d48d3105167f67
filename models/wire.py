"""The request body as JSON bytes; a conversation's history is kept encoded between requests.

The model client's seam between the history and the wire. Our messages are
already Chat Completions wire format, so they are not walked against the SDK's
types (that cost grew with every message, bench/client_overhead.py), and the
history is not walked either. A conversation's messages after its system prompt
are kept as one run of JSON bytes, with the message objects they encode. Between
two requests the history only grows: the loop appends. So a request costs one
comparison of the run's messages with the request's (list equality: the same
objects, compared by pointer), the encoding of the messages appended since, and
one copy of the bytes. When the request no longer starts with the whole run
(/rewind, an interrupted reply), the run is cut back to the part it does start
with. A message is never edited once in the history, so the same object encodes
the same.

Each conversation has a run of its own, found by the first message after the
system prompt: the loop's, each sub-agent's (they share the model), a side
request's; compaction, /clear and resume start a new one. How a message is shaped
for this endpoint (models/quirks.py: reasoning sent back or not) is part of the key.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from itertools import compress, count, islice
from operator import is_not
from typing import Any, Callable, Hashable

Message = dict[str, Any]
RUNS_KEPT = 8


@dataclass
class _Run:
    """A conversation's history as sent: the message objects and their encodings joined by ", "."""

    messages: list[Message] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    encoded: bytearray = field(default_factory=bytearray)

    def follow(self, history: list[Message], start: int, shape: Callable[[Message], Message]) -> None:
        """Become `history[start:]`: cut back to the part it starts with, then encode the rest."""
        kept = len(self.messages)
        if history[start:start + kept] != self.messages:
            differing = map(is_not, self.messages, islice(history, start, None))
            kept = next(compress(count(), differing), min(kept, len(history) - start))
            del self.messages[kept:], self.ends[kept:]
            del self.encoded[self.ends[-1] if self.ends else 0:]
        for message in islice(history, start + kept, None):
            if self.encoded:
                self.encoded += b", "
            self.encoded += json.dumps(shape(message)).encode()
            self.ends.append(len(self.encoded))
            self.messages.append(message)


@dataclass
class WireEncoder:
    """Encodes request bodies; keeps each conversation's history encoded (a few conversations)."""

    _shape_key: Hashable = None
    _runs: dict[int, _Run] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def encode(self, body: dict[str, Any], messages: list[Message],
               shape: Callable[[Message], Message], shape_key: Hashable) -> bytes:
        """`body` with `messages` (each shaped by `shape`, whose behaviour `shape_key` names) as JSON."""
        start = next(compress(count(), (message.get("role") != "system" for message in messages)),
                     len(messages))
        pieces = [b'{"messages": [']
        for message in islice(messages, start):
            pieces += (json.dumps(shape(message)).encode(), b", ")
        with self._lock:
            if start < len(messages):
                run = self._run(id(messages[start]), shape_key)
                run.follow(messages, start, shape)
                pieces += (run.encoded, b", ")
            rest = json.dumps(body).encode()
            tail = b"]" + (b", " + rest[1:] if body else b"}")
            if len(pieces) > 1:
                pieces.pop()
            return b"".join((*pieces, tail))

    def _run(self, key: int, shape_key: Hashable) -> _Run:
        """The run of the conversation whose first message has id `key`, the last used kept last."""
        if shape_key != self._shape_key:
            self._shape_key, self._runs = shape_key, {}
        run = self._runs.pop(key, None) or _Run()
        self._runs[key] = run
        if len(self._runs) > RUNS_KEPT:
            del self._runs[next(iter(self._runs))]
        return run
