"""What this session has learnt about its endpoint, and the requests shaped by it.

It starts from the family's defaults (models/endpoint.py). When a server
refuses a request for a reason the client can fix (models/refusals.py), `learn`
changes the shape once: drop a parameter the server does not know, send
`max_completion_tokens` for `max_tokens`, send reasoning back or stop sending
it. The change is kept for the rest of the session (sub-agents share it) and
the client says so in one dim line. Each lesson is learnt at most once, so a
refusal can cause one retry, not a loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from models.endpoint import Family
from models.refusals import Refusal
from models.stream import REASONING_FIELDS

OPTIONAL_PARAMETERS = ("stream_options", "max_tokens", "max_completion_tokens",
                       "parallel_tool_calls", "tool_choice")


@dataclass
class Adaptations:
    """The endpoint's family plus everything learnt from its refusals."""

    family: Family
    dropped: list[str] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    reasoning_back: bool | None = None

    def sends_reasoning(self) -> bool:
        """Does the history sent to this endpoint carry the model's earlier reasoning?"""
        return self.family.reasoning_back if self.reasoning_back is None else self.reasoning_back

    def shape(self, body: dict[str, Any]) -> dict[str, Any]:
        """The request's parameters (all but the messages) as this endpoint accepts them."""
        return {self.renamed.get(key, key): value for key, value in body.items()
                if self.renamed.get(key, key) not in self.dropped}

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        """One history message as this endpoint accepts it (`sends_reasoning` decides how)."""
        if message.get("role") != "assistant":
            return message
        if not self.sends_reasoning():
            return {key: value for key, value in message.items() if key not in REASONING_FIELDS}
        if message.get("tool_calls") and not any(name in message for name in REASONING_FIELDS):
            return {**message, "reasoning_content": ""}
        return message

    def optional_in(self, body: dict[str, Any]) -> list[str]:
        """The parameters of this body the client could do without."""
        return [name for name in OPTIONAL_PARAMETERS if name in body]

    def learn(self, refusal: Refusal, body: dict[str, Any]) -> str | None:
        """Adapt to a refusal; what changed, in words, or None when nothing can be changed."""
        if refusal.kind == "rename_max_tokens" and "max_tokens" not in self.renamed:
            self.renamed["max_tokens"] = "max_completion_tokens"
            return "sending max_completion_tokens instead of max_tokens, as this model requires"
        if refusal.kind == "unknown_parameter":
            names = [refusal.parameter] if refusal.parameter else self.optional_in(body)
            new = [name for name in names if name not in self.dropped]
            if new:
                self.dropped.extend(new)
                return f"the server refused {', '.join(new)}; sending requests without it from now on"
        if refusal.kind == "reasoning_required" and not self.sends_reasoning():
            self.reasoning_back = True
            return "the server needs the model's reasoning sent back; doing so from now on"
        if refusal.kind == "reasoning_refused" and self.sends_reasoning():
            self.reasoning_back = False
            return "the server refuses reasoning in the history; leaving it out from now on"
        return None

    def describe(self) -> str:
        """One line for --doctor: the family and what was dropped or changed so far."""
        changes = [f"dropped {', '.join(self.dropped)}" if self.dropped else "no parameters dropped"]
        changes += [f"{old} sent as {new}" for old, new in self.renamed.items()]
        if self.reasoning_back is not None:
            changes.append("reasoning sent back" if self.reasoning_back else "reasoning not sent back")
        return f"{self.family.label}; {'; '.join(changes)}"
