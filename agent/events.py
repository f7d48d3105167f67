"""The session's event stream: what happened, for whoever listens.

The state, the agent's history and the executor emit events; the session
journal (session/journal.py) stores them, the reminders keep their own log from
them, and the console shows them. Emitters do not know their listeners, which is
what keeps the loop and the UI apart. This module is a leaf: it imports nothing
from stepagent, so the state at the bottom can emit events too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


class Event:
    """What every record on the stream is; a layer defines its own records beside its feature."""


def mode_label(plan_mode: bool, permission_mode: str) -> str:
    """The mode as the user names it: plan while planning, else the permission mode."""
    return "plan" if plan_mode else permission_mode


@dataclass(frozen=True)
class ModeChanged(Event):
    """The plan flag or the permission mode changed, and who changed it."""

    plan_mode: bool
    permission_mode: str
    cause: str

    @property
    def label(self) -> str:
        """The mode now in force, as the user names it."""
        return mode_label(self.plan_mode, self.permission_mode)


@dataclass(frozen=True)
class MessageAdded(Event):
    """A message joined the history (the journal stores it the moment it does)."""

    message: dict[str, Any]


@dataclass(frozen=True)
class ToolRequested(Event):
    """A tool call arrived, before any hook or question: the console shows it first."""

    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ToolFinished(Event):
    """A tool's handler ran: its one-line summary, the result the model gets, the diff it made."""

    tool: str
    args: dict[str, Any]
    summary: str
    content: str
    is_error: bool = False
    change: str = ""


@dataclass(frozen=True)
class ToolDecision(Event):
    """What the hooks (and the user, if asked) decided for one call."""

    tool: str
    args: dict[str, Any]
    decision: str
    hook: str = ""
    reason: str = ""
    asked: bool = False
    left_with: str = ""  # what the user left the question with (/exit, Shift+Tab…): no answer


@dataclass(frozen=True)
class ToolStarted(Event):
    """A call passed its checks and its handler is about to run: from here it may have effects."""

    call_id: str
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PlanReviewed(Event):
    """How the user's review of a plan ended, naming the exact text they saw by its digest."""

    plan: str
    digest: str
    outcome: str
    feedback: str = ""
    edits: str = ""
    mode: str = ""
    summary: str = ""


@dataclass(frozen=True)
class TokensUsed(Event):
    """What one model reply cost, as far as the server reported it (None: not reported)."""

    input_tokens: int | None
    output_tokens: int | None
    cached_tokens: int | None = None


@dataclass
class EventBus:
    """Emitters call `emit`; listeners `subscribe` and are called in order."""

    listeners: list[Callable[[Event], None]] = field(default_factory=list)

    def subscribe(self, listener: Callable[[Event], None]) -> None:
        """Call `listener` with every event from now on."""
        self.listeners.append(listener)

    def unsubscribe(self, listener: Callable[[Event], None]) -> None:
        """Stop calling `listener`."""
        self.listeners.remove(listener)

    def emit(self, event: Event) -> None:
        """Tell every listener in order; a failing one is raised after the rest have heard.

        One listener's failure must not keep the event from the others: the journal
        still stores what the console could not show, or was drawing when Ctrl-C came.
        """
        failure: BaseException | None = None
        for listener in tuple(self.listeners):  # sub-agents subscribe from their threads
            try:
                listener(event)
            except (Exception, KeyboardInterrupt) as exc:
                failure = failure or exc
        if failure is not None:
            raise failure
