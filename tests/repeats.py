"""What one request says twice: the lines of its messages that appear more than once.

An instruction the model already has in the request (the system prompt's plan section, a
tool result, a reminder kept in the history) costs tokens again and says nothing new. A
line counts when it is long enough to be an instruction rather than a word or a list mark.
bench/prompt_size.py and tests/test_prompt_once.py read requests with it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

SHORTEST = 40  # characters: shorter lines ("1. Write x", "ok") repeat by nature


def repeated_lines(messages: list[dict[str, Any]]) -> list[str]:
    """Every line of at least SHORTEST characters said more than once in these messages."""
    lines = Counter(line.strip() for message in messages
                    for line in str(message.get("content") or "").splitlines()
                    if len(line.strip()) >= SHORTEST)
    return sorted(line for line, count in lines.items() if count > 1)
