"""Compaction: replace a long history by a summary, keeping what must survive.

The model writes the summary. Afterwards the history holds two reminders: the
summary, and the continuity note — whether plan mode is on, the latest plan
file of this session with its contents (at most 80 KiB), and the todo list.
Plan mode itself is state, not history, so compaction cannot drop it: the guard
keeps enforcing it, and the plan-mode reminder is sent again in full (the
reminders' log hears the Compacted event).

`/compact` calls `compact`; `AutoCompact` is a preparer that calls it when the
estimated history passes a share of the model's context window (the system
prompt, about a thousand tokens, is left out of the estimate rather than built
twice per request). `OverflowRecovery` is the loop's answer to a server that
says the request no longer fits: it compacts to the window the server named.
Either way the model reads the history as a transcript cut to half the window,
so the request that compacts fits however large the history grew (twenty 60 KB
reads in one reply would otherwise overflow the compaction itself, for good).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.events import Event
from agent.history import wrap
from models.base import ContextOverflow
from session.plan_revisions import saved_plan
from session.token_estimate import TokenEstimate
from state import AppState
from tools.safe_read import read_capped
from tools.todos import todo_lines, todos_of

if TYPE_CHECKING:
    from agent.loop import Agent

MAX_PLAN_BYTES = 80 * 1024
SUMMARY_REQUEST = ("Write a summary of this conversation that lets you continue the work from the "
                   "summary alone: the user's goal and constraints, decisions made, files read and "
                   "changed, what is done, what remains and the next step. Plain text, no tool calls.")


SUMMARY_HEADING = "Summary of the conversation so far:"


@dataclass(frozen=True)
class Compacted(Event):
    """The history was replaced by `messages` (the summary and what must survive)."""

    messages: tuple[dict[str, Any], ...]


def continuity(state: AppState, workspace: Path) -> str:
    """What must survive a compaction: plan mode, the saved plan and the todos."""
    lines = ["Plan mode is ACTIVE: research only, then ExitPlanMode." if state.plan_mode
             else "Plan mode is off."]
    saved = saved_plan(workspace, state.session_id)
    if saved:
        try:
            text = read_capped(saved, MAX_PLAN_BYTES)[0]
        except OSError:
            text = "(it cannot be read)"
        lines.append(f"A plan file exists from plan mode at {saved}:\n{text}\n"
                     "If this plan is relevant to the current work and not yet complete, continue it.")
    lines.append("Todo list:\n" + todo_lines(todos_of(state)))
    return "\n\n".join(lines)


def transcript(messages: list[dict[str, Any]], budget_chars: int) -> str:
    """The history as plain text, its most recent part within `budget_chars`."""
    lines = []
    for message in messages:
        text = message.get("content") if isinstance(message.get("content"), str) else ""
        calls = [f"{call['function']['name']}({call['function']['arguments'][:300]})"
                 for call in message.get("tool_calls") or []]
        lines.append(f"[{message.get('role')}] {text[:2000]} {' '.join(calls)}".rstrip())
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        size += len(line) + 1
        if size > budget_chars:
            kept.append("[earlier messages omitted]")
            break
        kept.append(line)
    return "\n".join(reversed(kept))


def compact(agent: "Agent", window_tokens: int) -> str:
    """Summarise the history with the model and replace it; returns the summary.

    The model reads the history as a transcript cut to half the window (at about
    four characters a token, leaving room for the system prompt and the summary),
    so the request that compacts always fits, however large the history grew.
    """
    request = [{"role": "system", "content": agent.system_prompt()},
               {"role": "user", "content": f"{transcript(agent.messages, window_tokens * 2)}"
                                           f"\n\n{SUMMARY_REQUEST}"}]
    summary = agent.model.complete(request, [], lambda piece: None).text.strip() or "(empty summary)"
    kept = (wrap("summary", f"{SUMMARY_HEADING}\n{summary}"),
            wrap("continuity", continuity(agent.state, agent.workspace)))
    agent.messages[:] = kept
    agent.state.events.emit(Compacted(kept))
    return summary


@dataclass
class AutoCompact:
    """The preparer that compacts when the history passes a share of the window."""

    window_tokens: int
    share: float
    estimate: TokenEstimate = field(default_factory=TokenEstimate, repr=False)

    def __call__(self, agent: "Agent") -> None:
        if (len(agent.messages) > 2
                and self.estimate.tokens(agent.messages) > self.window_tokens * self.share):
            compact(agent, self.window_tokens)


@dataclass
class OverflowRecovery:
    """When the server says the request no longer fits, compact (to the window it names)."""

    window_tokens: int

    def __call__(self, agent: "Agent", overflow: ContextOverflow) -> None:
        compact(agent, overflow.limit or self.window_tokens)


def compaction_layer(agent: "Agent", window_tokens: int = 128_000, share: float = 0.8) -> None:
    """The layer: compact past `share` of the window before a request, and once on an overflow."""
    agent.preparers.append(AutoCompact(window_tokens, share))
    agent.recover_overflow = OverflowRecovery(window_tokens)
