"""Tokens spent: per turn and for the session, and how full the context window is.

A listener on the event stream: each TokensUsed (one per model reply, when the
server reports usage) adds to the turn and the session, and so does each
SubAgentTokensUsed (a sub-agent's reply, relayed by agent/subagents.py). The latest reply's
input plus output is the context the conversation fills now; without a report,
the history's estimate stands in (session/compaction.py), as it does right
after a compaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.events import Event, TokensUsed
from agent.subagents import SubAgentTokensUsed
from session.compaction import Compacted


@dataclass
class Tally:
    """Token counts summed over replies; `reported` is False until a server reports any."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    replies: int = 0
    reported: bool = False

    def add(self, used: TokensUsed) -> None:
        """Count one reply's usage."""
        self.replies += 1
        self.input_tokens += used.input_tokens or 0
        self.output_tokens += used.output_tokens or 0
        self.cached_tokens += used.cached_tokens or 0
        self.reported = self.reported or used.input_tokens is not None or used.output_tokens is not None

    def line(self) -> str:
        """`tokens in 1,234 (1,000 cached) · out 56`, or a note that the server reported none."""
        if not self.reported:
            return "tokens: not reported by the server"
        cached = f" ({self.cached_tokens:,} cached)" if self.cached_tokens else ""
        return f"tokens in {self.input_tokens:,}{cached} · out {self.output_tokens:,}"


@dataclass
class UsageMeter:
    """The turn's and the session's tallies, and the context the last reply filled."""

    turn: Tally = field(default_factory=Tally)
    session: Tally = field(default_factory=Tally)
    context_tokens: int | None = None

    def reset(self) -> None:
        """A fresh conversation: nothing spent yet."""
        self.turn, self.session, self.context_tokens = Tally(), Tally(), None

    def start_turn(self) -> None:
        """A new turn: its tally starts at zero."""
        self.turn = Tally()

    def on_event(self, event: Event) -> None:
        """Count a reply's tokens; after a compaction the context is estimated again.

        A sub-agent's reply counts as spent, but its context is its own, not this conversation's.
        """
        if isinstance(event, Compacted):
            self.context_tokens = None
        if isinstance(event, SubAgentTokensUsed):
            self.turn.add(event.used)
            self.session.add(event.used)
        if isinstance(event, TokensUsed):
            self.turn.add(event)
            self.session.add(event)
            if event.input_tokens is not None:
                self.context_tokens = event.input_tokens + (event.output_tokens or 0)
