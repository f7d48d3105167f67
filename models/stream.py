"""Assembling one streamed Chat Completions reply from server-sent events.

The model client's seam between bytes and a Reply. Servers stream the same
protocol differently, so nothing here trusts the shape of a chunk:
- tool calls arrive piece by piece (OpenAI, vLLM, llama.cpp) or whole in one
  chunk (Ollama, GLM); ids may be missing, an index may be reused for a second
  call, arguments may be `""` for a tool without parameters or already an object;
- `finish_reason` may say "stop" although tool calls came (older Ollama);
- usage may be missing, partial, repeated, or only in a last chunk without choices;
- reasoning comes as `reasoning_content` (DeepSeek, GLM, llama.cpp, older vLLM)
  or `reasoning` (Ollama, newer vLLM);
- the stream may end without `[DONE]` (fine once a finish reason came).

What the server sends can only produce a Reply or a StreamBroken, which the
client retries like a 5xx: a line that is not JSON, an error object inside the
stream, malformed `tool_calls` (not a list of objects, a function that is not an
object, arguments of another type), or a stream
that ends before any finish reason. A reply that passes `max_chars` is a
ReplyTooLong: an endless stream is not read forever.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from models.base import Reply, ToolCall, Usage

REASONING_FIELDS = ("reasoning_content", "reasoning")
ARGUMENTS = (str, dict, list, type(None))


@dataclass
class ReasonedReply(Reply):
    """A streamed reply with the model's reasoning, if the server sent any.

    The reasoning is kept in the history under the field the server used; the client decides
    per endpoint whether it is sent back (models/quirks.py).
    """

    reasoning: str = ""
    reasoning_field: str = ""

    def as_message(self) -> dict[str, Any]:
        """The assistant message, with the reasoning when there was any."""
        message = super().as_message()
        if self.reasoning:
            message[self.reasoning_field or "reasoning_content"] = self.reasoning
        return message


class StreamBroken(Exception):
    """The stream stopped being a valid reply; worth a retry."""


class ReplyTooLong(Exception):
    """The reply passed the assembler's `max_chars`; reading it further would not end."""


@dataclass
class _CallSlot:
    id: str = ""
    name: str = ""
    arguments: str = ""

    def complete(self) -> bool:
        """Has this call's name and a whole JSON argument object already arrived?"""
        try:
            return bool(self.name) and isinstance(json.loads(self.arguments), dict)
        except (ValueError, RecursionError):
            return False


@dataclass
class StreamAssembler:
    """Feeds on decoded chunks; `reply()` once the stream has ended."""

    on_text: Callable[[str], None] = lambda piece: None
    on_reasoning: Callable[[str], None] = lambda piece: None
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    reasoning_field: str = ""
    slots: list[_CallSlot] = field(default_factory=list)
    by_index: dict[Any, int] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: Usage | None = None
    max_chars: int | None = None
    chars: int = 0

    def feed(self, chunk: Any) -> None:
        """Take one decoded `data:` payload."""
        if not isinstance(chunk, dict):
            raise StreamBroken("a stream event was not a JSON object")
        if chunk.get("error"):
            raise StreamBroken(f"the server reported an error mid-stream: {_error_text(chunk['error'])}")
        if isinstance(chunk.get("usage"), dict):
            self.usage = read_usage(chunk["usage"]) or self.usage
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            if isinstance(choice, dict) and choice.get("index", 0) in (0, None):
                self._choice(choice)

    def _choice(self, choice: dict[str, Any]) -> None:
        delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
        for name in REASONING_FIELDS:
            piece = delta.get(name)
            if isinstance(piece, str) and piece:
                self._count(piece)
                self.reasoning_field = self.reasoning_field or name
                self.reasoning.append(piece)
                self.on_reasoning(piece)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._count(content)
            self.text.append(content)
            self.on_text(content)
        fragments = delta.get("tool_calls")
        if fragments is not None and not (isinstance(fragments, list)
                                          and all(isinstance(f, dict) for f in fragments)):
            raise StreamBroken("the server sent malformed tool calls (not a list of objects)")
        for fragment in fragments or []:
            self._fragment(fragment)
        if isinstance(choice.get("finish_reason"), str) and choice["finish_reason"]:
            self.finish_reason = choice["finish_reason"]

    def _count(self, piece: str) -> None:
        self.chars += len(piece)
        if self.max_chars is not None and self.chars > self.max_chars:
            raise ReplyTooLong(f"the reply passed {self.max_chars:,} characters")

    def _fragment(self, fragment: dict[str, Any]) -> None:
        function = fragment.get("function") or {}
        if not isinstance(function, dict) or not isinstance(function.get("arguments"), ARGUMENTS):
            raise StreamBroken("the server sent a malformed tool call (its function or arguments)")
        call_id = fragment.get("id") if isinstance(fragment.get("id"), str) else ""
        name = function.get("name") if isinstance(function.get("name"), str) else ""
        slot = self._slot_for(fragment.get("index"), call_id, name)
        slot.id = slot.id or call_id
        slot.name = name or slot.name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            self._count(arguments)
            slot.arguments += arguments
        elif arguments is not None:
            slot.arguments = json.dumps(arguments)

    def _slot_for(self, index: Any, call_id: str, name: str) -> _CallSlot:
        """The call this fragment continues, or a new one when it starts another call."""
        key = index if isinstance(index, (int, str)) and not isinstance(index, bool) else None
        position = self.by_index.get(key) if key is not None else (len(self.slots) - 1 if self.slots else None)
        if position is not None:
            slot = self.slots[position]
            other_id = bool(call_id and slot.id and call_id != slot.id)
            restarted = bool(name and not call_id and slot.complete())
            if not (other_id or restarted):
                return slot
        self.slots.append(_CallSlot())
        if key is not None:
            self.by_index[key] = len(self.slots) - 1
        return self.slots[-1]

    def reply(self) -> ReasonedReply:
        """The finished reply; StreamBroken if the server never said it was done."""
        if self.finish_reason is None:
            raise StreamBroken("the stream ended before the reply was finished (no finish reason)")
        return ReasonedReply("".join(self.text), self._tool_calls(), usage=self.usage,
                             finish_reason=self.finish_reason, reasoning="".join(self.reasoning),
                             reasoning_field=self.reasoning_field)

    def _tool_calls(self) -> list[ToolCall]:
        calls: list[ToolCall] = []
        seen: set[str] = set()
        for number, slot in enumerate(self.slots):
            call_id = slot.id if slot.id and slot.id not in seen else f"call_{number}_{len(seen)}"
            while call_id in seen:
                call_id += "_"
            seen.add(call_id)
            calls.append(ToolCall(call_id, slot.name, slot.arguments if slot.arguments.strip() else "{}"))
        return calls


def read_usage(block: dict[str, Any]) -> Usage | None:
    """Token counts from a usage block, whatever part of it the server filled in."""
    def count(value: Any) -> int | None:
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None

    details = block.get("prompt_tokens_details")
    cached = count(details.get("cached_tokens")) if isinstance(details, dict) else None
    if cached is None:
        cached = count(block.get("prompt_cache_hit_tokens"))
    usage = Usage(count(block.get("prompt_tokens")), count(block.get("completion_tokens")), cached)
    return usage if usage != Usage() else None


def sse_payloads(lines: Iterable[str]) -> Iterable[str]:
    """The `data:` payloads of a server-sent event stream, one per event, until `[DONE]`."""
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                payload = "\n".join(data)
                data = []
                if payload.strip() == "[DONE]":
                    return
                yield payload
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    if data and "\n".join(data).strip() != "[DONE]":
        yield "\n".join(data)


def assemble(lines: Iterable[str], assembler: StreamAssembler) -> Reply:
    """Read a whole event stream into a Reply; StreamBroken when it is not a whole reply."""
    for payload in sse_payloads(lines):
        try:
            chunk = json.loads(payload)
        except (ValueError, RecursionError):
            raise StreamBroken(f"the server sent a line that is not JSON: {payload[:80]!r}") from None
        assembler.feed(chunk)
    return assembler.reply()


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error)[:200]
