"""The journal: every event of the session, written to the session store as it happens.

It listens to the state's event stream (events.py): messages, mode changes and
choices of plan model (agent/plan_model.py) with their cause, hook decisions (a
sub-agent's too, with the sub-agent named), sub-agents starting and ending,
AskUserQuestion's countdowns, started calls, the diff each Write or Edit made,
each reply's token usage and todo lists become entries, in order; a rewind's history is an entry as a compaction's is, and
rewind's checkpoints go to a table of their own. A tool result is a message
stored the moment its call ends, and a call is marked started before its
handler runs, so a session killed mid-turn loses no result that was ready, and
a resume can tell a call that never ran from one whose result was lost
(`closing_result`; a plan review or a question cut off did nothing, so it never ran). If a write fails (the store locked, corrupt or full, an
entry it cannot take, Ctrl-C during the write) the user is told once and the
session goes on in memory, so what is stored stays a history a resume can
complete; the audit trail shown by /trace is kept in memory as well.

`read_session` is the way back: it replays a session's entries into what a
resumed session needs (or, up to a checkpoint's place, what rewind needs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agent.events import (Event, MessageAdded, ModeChanged, PlanReviewed, TokensUsed, ToolDecision,
                          ToolFinished, ToolStarted)
from agent.executor import NOT_RUN
from agent.plan_model import PlanModelChosen, plan_model_of
from agent.subagents import SubAgentDecision, SubAgentFinished, SubAgentStarted, SubAgentTokensUsed
from session.compaction import Compacted
from session.lock import SessionLock
from session.plan_revisions import Revision, drop_pending_file, record_review
from session.rewind.events import CheckpointTaken, Rewound
from session.store import SessionStore, StoreUnavailable
from state import AppState, PermissionMode
from tools.ask_user import AskCountdown
from tools.plan_mode import EXIT_PLAN_MODE
from tools.memory import MemoryChanged
from tools.todos import Todo, TodosChanged

NOT_STARTED = f"{NOT_RUN} the session ended before this call started."
RESULT_LOST = ("Result lost: this call started, but the session ended before it finished, so it "
               "may have done some or all of its work. Check its effects before running it again.")
UNANSWERED_AT_END = (f"{NOT_RUN} the session ended while this call waited for the user's answer, so "
                     "nothing was answered: no plan was approved and no question answered.")
ASKS_ONLY = {EXIT_PLAN_MODE, "AskUserQuestion"}  # tools that do nothing but wait for the user


AUDITED = {"mode", "plan_model", "hook", "subagent", "review"}


def entry_for(event: Event) -> tuple[str, dict[str, Any]] | None:
    """The stored entry for an event; None for events only the screen needs."""
    if isinstance(event, MessageAdded):
        return "message", event.message
    if isinstance(event, ModeChanged):
        return "mode", {"plan_mode": event.plan_mode, "permission_mode": event.permission_mode,
                        "cause": event.cause}
    if isinstance(event, PlanModelChosen):
        return "plan_model", {"name": event.name, "cause": event.cause}
    if isinstance(event, ToolDecision):
        return "hook", _decision(event)
    if isinstance(event, SubAgentDecision):
        return "hook", {**_decision(event.decision), "agent": event.agent}
    if isinstance(event, SubAgentStarted):
        return "subagent", {"agent": event.agent, "phase": "started", "plan_mode": event.plan_mode,
                            "model": event.model}
    if isinstance(event, SubAgentFinished):
        return "subagent", {"agent": event.agent, "phase": "finished", "ending": event.ending,
                            "requests": event.requests, "tool_calls": event.tool_calls,
                            "seconds": round(event.seconds, 3)}
    if isinstance(event, AskCountdown):
        return "countdown", {"key": event.key, "started_at": event.started_at,
                             "visible_at": event.visible_at, "deadline_at": event.deadline_at}
    if isinstance(event, ToolStarted):
        return "started", {"tool_call_id": event.call_id, "tool": event.tool}
    if isinstance(event, PlanReviewed):
        return "review", {"outcome": event.summary or event.outcome, "answer": event.outcome,
                          "digest": event.digest, "mode": event.mode}
    if isinstance(event, ToolFinished) and event.change:
        return "change", {"tool": event.tool, "file_path": event.args.get("file_path", ""),
                          "diff": event.change}
    if isinstance(event, TokensUsed):
        return "usage", _usage(event)
    if isinstance(event, SubAgentTokensUsed):
        return "usage", {**_usage(event.used), "agent": event.agent}
    if isinstance(event, TodosChanged):
        return "todos", {"todos": [todo.as_dict() for todo in event.new]}
    if isinstance(event, MemoryChanged):
        return "memory", {"action": event.action, "type": event.type, "name": event.name,
                          "description": event.description, "path": event.path}
    if isinstance(event, Rewound):
        return "rewind", {"checkpoint": event.number, "messages": list(event.messages)}
    if isinstance(event, Compacted):
        return "compaction", {"messages": list(event.messages)}
    return None


SUBJECT_KEYS = ("file_path", "command", "pattern", "path", "description")
SUBJECT_WIDTH = 80


def _usage(event: TokensUsed) -> dict[str, Any]:
    return {"input_tokens": event.input_tokens, "output_tokens": event.output_tokens,
            "cached_tokens": event.cached_tokens}


def _decision(event: ToolDecision) -> dict[str, Any]:
    return {"tool": event.tool, "decision": event.decision, "hook": event.hook,
            "reason": event.reason, "asked": event.asked, "left_with": event.left_with,
            "subject": subject_of(event.args)}


def subject_of(args: dict[str, Any]) -> str:
    """What a call works on (its path, command or pattern), in one short line, for /trace."""
    value = next((args[key] for key in SUBJECT_KEYS if isinstance(args.get(key), str)), "")
    line = " ".join(value.split())
    return line if len(line) <= SUBJECT_WIDTH else line[:SUBJECT_WIDTH - 1] + "…"


@dataclass
class Journal:
    """Writes the session's events to the store as they happen, and keeps the audit trail /trace shows."""

    store: SessionStore | None
    state: AppState
    workspace: Path
    warn: Callable[[str], None]
    lock: SessionLock | None = None
    audit: list[dict[str, Any]] = field(default_factory=list)
    revisions: list[Revision] = field(default_factory=list)
    _created: set[str] = field(default_factory=set)

    def claim(self, session_id: str) -> bool:
        """Become the one writer of `session_id`; False if another process writes it."""
        return self.lock is None or self.lock.hold(session_id)

    def leave_store(self) -> None:
        """Write nothing more to the store (it is damaged): the session goes on in memory."""
        self.store = None

    def on_event(self, event: Event) -> None:
        """Store the event's entry, or rewind's checkpoint; a damaged store is left, once, warned of."""
        entry = entry_for(event)
        if entry is None and not isinstance(event, CheckpointTaken):
            return
        kind, payload = entry if entry is not None else ("", {})
        revision = self._revision(event)
        if revision is not None:
            payload = {**payload, "revision": revision.number}
        if kind in AUDITED:
            self.audit.append({"kind": kind, **payload})
        if self.store is None:
            return
        session_id = self.state.session_id
        try:
            if session_id not in self._created:
                self.claim(session_id)
                begun = self.store.create_session(session_id, self.workspace)
                self._created.add(session_id)
                if begun:
                    self._record_opening(session_id, event)
            if isinstance(event, CheckpointTaken):
                self.store.add_checkpoint(session_id, event)
            else:
                self.store.append(session_id, kind, payload)
            if revision is not None:
                self.store.add_revision(session_id, revision)
            if isinstance(event, TodosChanged):
                self.store.replace_todos(session_id, event.new)
        except StoreUnavailable as failure:
            self._leave(str(failure))
        except Exception as failure:  # an entry the store did not take: later ones could not stand alone
            self._leave(f"the session store failed on a write ({type(failure).__name__}: {failure})")
        except KeyboardInterrupt:  # it may or may not have been written: store nothing after it
            self._leave("a write to the session store was interrupted")
            raise

    def _leave(self, why: str) -> None:
        self.store = None
        self.warn(f"{why}. Going on in memory; this session will not be saved from here.")

    def _record_opening(self, session_id: str, event: Event) -> None:
        """A session begun here (the first, or one /clear starts) starts with its modes and plan model.

        One resumed or forked has its own already: a resume adds no entry that did not happen.
        """
        if not isinstance(event, ModeChanged):
            opened = ModeChanged(self.state.plan_mode, self.state.permission_mode.value,
                                 "session opened")
            self.store.append(session_id, *entry_for(opened))
        chosen = plan_model_of(self.state)
        if chosen and chosen.plan_model and not isinstance(event, PlanModelChosen):
            self.store.append(session_id, *entry_for(PlanModelChosen(chosen.plan_model,
                                                                     "session opened")))

    def _revision(self, event: Event) -> Revision | None:
        """A reviewed plan becomes a revision (kept here and in the store): the next one, or the
        pending one reviewed again; a pending plan's file goes if it was dropped (plan_revisions.py)."""
        if not isinstance(event, PlanReviewed):
            return None
        try:
            drop_pending_file(self.workspace, self.state.session_id, self.revisions, event)
        except OSError as failure:
            self.warn(f"The plan saved for later could not be removed: {failure.strerror}.")
        return record_review(self.revisions, event)


@dataclass
class Restored:
    """What a stored session's entries add up to: what a resume puts back (plan model included)."""

    session_id: str
    messages: list[dict[str, Any]]
    plan_mode: bool
    permission_mode: str
    todos: tuple[Todo, ...]
    audit: list[dict[str, Any]]
    countdowns: dict[str, AskCountdown] = field(default_factory=dict)
    started: dict[str, str] = field(default_factory=dict)  # call id → tool
    revisions: list[Revision] = field(default_factory=list)
    plan_model: str = ""

    def closing_result(self, call_id: str) -> str:
        """The result a resume gives a call that has none: result lost if it started, else not run.

        A call that only waited for the user (a plan review, a question) did nothing: not run.
        """
        if call_id not in self.started:
            return NOT_STARTED
        return UNANSWERED_AT_END if self.started[call_id] in ASKS_ONLY else RESULT_LOST


def _message(payload: Any) -> dict[str, Any]:
    """A stored message, checked for what resuming relies on: a role, and an id on each call."""
    if not isinstance(payload, dict) or not isinstance(payload.get("role"), str):
        raise TypeError("a message role")
    if not all(isinstance(call, dict) and isinstance(call.get("id"), str)
               for call in payload.get("tool_calls") or []):
        raise TypeError("a tool call id")
    return payload


def read_session(store: SessionStore, session_id: str, upto: int | None = None) -> Restored:
    """Replay a session's entries, those up to number `upto` if given; StoreUnavailable if no session.

    A rewind replays up to a checkpoint's place.
    """
    messages: list[dict[str, Any]] = []
    plan_mode, permission_mode, plan_model = False, "build", ""
    audit: list[dict[str, Any]] = []
    countdowns: dict[str, AskCountdown] = {}
    started: dict[str, str] = {}
    try:
        for entry in store.entries(session_id):
            if upto is not None and entry.seq > upto:
                break
            if entry.kind == "started":
                started[entry.payload["tool_call_id"]] = entry.payload.get("tool", "")
            elif entry.kind == "message":
                messages.append(_message(entry.payload))
            elif entry.kind in ("compaction", "rewind"):
                messages = [_message(message) for message in entry.payload["messages"]]
            elif entry.kind == "countdown":
                countdowns[entry.payload["key"]] = AskCountdown(**entry.payload)
            elif entry.kind in AUDITED:
                audit.append({"kind": entry.kind, **entry.payload})
                if entry.kind == "mode":
                    plan_mode = bool(entry.payload["plan_mode"])
                    permission_mode = PermissionMode(entry.payload["permission_mode"]).value
                elif entry.kind == "plan_model":
                    plan_model = str(entry.payload["name"])
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreUnavailable(f"session {session_id} in {store.path} is damaged "
                               f"(an entry lacks {exc})") from None
    return Restored(session_id, messages, plan_mode, permission_mode, store.todos(session_id), audit,
                    countdowns, started, store.revisions(session_id), plan_model)
