"""A running estimate of the tokens a history holds, for the compaction check and the toolbar.

About four characters of JSON per token: enough to decide when to compact and
to show how full the context is when the server reports no usage. Both look at
the history often (each step, each keystroke), so each message is measured
once: the history only grows by appending, and compaction, /clear and resume
put new message objects in (a message is never edited once in the history,
models/wire.py relies on it too). When the first or the last counted message is
no longer where it was, the history was replaced and is counted again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

CHARS_PER_TOKEN = 4


@dataclass
class TokenEstimate:
    """Tokens of the history it was last shown, counting only messages it has not seen."""

    _counted: list[dict[str, Any]] = field(default_factory=list, repr=False)
    _chars: int = 0

    def tokens(self, messages: list[dict[str, Any]]) -> int:
        """About how many tokens `messages` holds."""
        counted = self._counted
        if counted and not (len(messages) >= len(counted) and messages[0] is counted[0]
                            and messages[len(counted) - 1] is counted[-1]):
            counted.clear()
            self._chars = 0
        # Each message's JSON plus the ", " between them, as in the whole history's JSON.
        for message in messages[len(counted):]:
            self._chars += len(json.dumps(message)) + 2
            counted.append(message)
        return self._chars // CHARS_PER_TOKEN
