"""What the agent loop needs from a model: one `complete` call per round trip.

`complete` streams text through `on_text` as it arrives and returns the whole
reply: its text and its tool calls (several at once are fine). Any failure the
user should read is a ModelError with a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)

    def as_message(self) -> dict[str, Any]:
        """The assistant message in Chat Completions form, for the history."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls]
        return message


class ModelError(Exception):
    """A failure worth one clear line to the user (bad key, unknown model, no connection)."""


class Model(Protocol):
    name: str

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply: ...
