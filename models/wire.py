"""The request body as JSON bytes, each history message encoded once.

The model client's seam between the history and the wire. Our messages are
already Chat Completions wire format, so they are not walked against the SDK's
types (that cost grew with every message, bench/client_overhead.py). Between
two requests the history only grows: the loop appends, and compaction, /clear
and resume put new message objects in. A message is never edited once in the
history, so its encoding is kept while the same object is in the history, and
only new messages are encoded. How a message is shaped for this endpoint
(models/quirks.py: reasoning sent back or not) is part of the key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import compress, count, repeat
from operator import is_not, itemgetter
from typing import Any, Callable, Hashable

Message = dict[str, Any]
_UNSEEN: tuple[None, bytes] = (None, b"")


@dataclass
class WireEncoder:
    """Encodes request bodies; keeps the encoding of each message it has seen, by identity."""

    _shape_key: Hashable = None
    _encoded: dict[int, tuple[Message, bytes]] = field(default_factory=dict, repr=False)

    def encode(self, body: dict[str, Any], messages: list[Message],
               shape: Callable[[Message], Message], shape_key: Hashable) -> bytes:
        """`body` with `messages` (each shaped by `shape`, whose behaviour `shape_key` names) as JSON."""
        if shape_key != self._shape_key:
            self._shape_key, self._encoded = shape_key, {}
        known = self._encoded
        # Looked up in bulk (map, not a loop: at 1,600 messages the loop cost more than
        # the rest of the request); only the messages not seen before are encoded.
        seen = list(map(known.get, map(id, messages), repeat(_UNSEEN)))
        parts = list(map(itemgetter(1), seen))
        for index in compress(count(), map(is_not, map(itemgetter(0), seen), messages)):
            message = messages[index]
            parts[index] = json.dumps(shape(message)).encode()
            # The message is kept beside its encoding, so its id cannot be reused meanwhile.
            known[id(message)] = (message, parts[index])
        if len(known) > 2 * len(messages):
            self._encoded = {id(message): known[id(message)] for message in messages}
        rest = json.dumps(body).encode()
        tail = b"]" + (b", " + rest[1:] if body else b"}")
        if not parts:
            return b'{"messages": [' + tail
        # Only the ends are joined by hand: every copy of the whole body costs (mapped) memory.
        parts[0] = b'{"messages": [' + parts[0]
        parts[-1] += tail
        return b", ".join(parts)
