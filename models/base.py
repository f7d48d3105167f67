"""What the agent loop needs from a model: one `complete` call per round trip.

`complete` streams text through `on_text` as it arrives and returns the whole
reply: its text and its tool calls (several at once are fine), and, where the
server reports it, token usage (the real client's reply carries the model's
reasoning too: models/stream.py, ReasonedReply). Any failure the
user should read is a ModelError with a one-line message; a context overflow
is the ContextOverflow kind of it, so the loop can compact and try again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for; `arguments` is JSON text, as the model wrote it."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Usage:
    """Tokens one reply cost, as far as the server said (None: not reported)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None


CUT = {"length": "the reply was cut off at the model's output limit (finish_reason length): "
                  "what came is incomplete",
       "content_filter": "the endpoint's content filter stopped the reply (finish_reason "
                         "content_filter): what came is incomplete"}


@dataclass
class Reply:
    """One whole reply: text, tool calls, and what the server said about it."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str = "stop"

    @property
    def cut(self) -> str:
        """Why the reply is not whole (cut at the length limit, or filtered), '' when it is."""
        return CUT.get(self.finish_reason, "")

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


class ContextOverflow(ModelError):
    """The request is longer than the model's context window (`limit` tokens, when the server said)."""

    def __init__(self, message: str, limit: int | None = None):
        super().__init__(message)
        self.limit = limit


class Model(Protocol):
    """Anything the loop can ask for a reply."""

    name: str

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        """Stream one reply: text through on_text as it arrives, then the whole Reply."""
        ...


def stream_words(text: str, on_text: Callable[[str], None]) -> None:
    """Hand `text` over word by word, as a streaming server would (for models that have it whole)."""
    for piece in re.findall(r"\S+\s*|\s+", text):
        on_text(piece)
