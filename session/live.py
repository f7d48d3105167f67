"""A running session: the agent, its journal and the store, as the REPL commands see them.

/compact, /resume, /trace and /todos act on this object; the core stays free of
UI, and the REPL stays free of storage details. A session has one writer: resume
claims it through the journal's lock, and a session another process holds can
be forked (a new session with a copy of its history) instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.history import open_calls
from agent.plan_model import plan_model_of
from agent.loop import Agent
from session.compaction import SUMMARY_HEADING, compact
from session.journal import Journal, read_session
from session.session_list import SessionInfo
from session.store import SessionStore, StoreUnavailable
from session.trace import trace_lines
from session.valid_history import history_problem
from session.changes import SessionChanges
from agent.history import reminder_kind
from session.token_estimate import TokenEstimate
from session.usage import UsageMeter
from settings.user_hooks import UserHooks
from state import SESSION_ID_PREFIX, AppState, PermissionMode, new_session_id
from tools.todos import Todo, replace_todos, todos_of

AMBIGUOUS_SHOWN = 5


class NoSuchSession(StoreUnavailable):
    """The store has no session with that id."""


class AmbiguousSession(NoSuchSession):
    """A start of an id that more than one stored session has."""


class SessionBusy(Exception):
    """Another stepagent process is writing this session."""

    def __init__(self, session_id: str):
        super().__init__(f"session {session_id} is open in another stepagent process")
        self.session_id = session_id


@dataclass
class Session:
    """The agent with its journal, usage and changes: what the REPL's commands act on.

    `user_hooks` are the user's hooks and rules in effect (/hooks and /permissions list them).
    """

    agent: Agent
    journal: Journal
    context_window: int = 128_000
    usage: UsageMeter = field(default_factory=UsageMeter)
    changes: SessionChanges = field(init=False)
    estimate: TokenEstimate = field(default_factory=TokenEstimate, repr=False)
    user_hooks: UserHooks | None = None

    def __post_init__(self) -> None:
        self.changes = SessionChanges(self.agent.workspace)
        self.agent.state.events.subscribe(self.usage.on_event)
        self.agent.state.events.subscribe(self.changes.on_event)

    def clear(self, todos: tuple[Todo, ...] = ()) -> str:
        """Start a fresh conversation under a new session id; modes stay. Returns the old id.

        Its todo list is `todos`: empty, or the approved plan's handed over (c).
        """
        state = self.agent.state
        old = state.session_id
        self.agent.messages.clear()
        state.session_id = new_session_id()
        if todos or todos_of(state):
            replace_todos(state, todos)
        self.usage.reset()
        self.changes.clear()
        self.journal.audit.clear()
        self.journal.revisions.clear()
        return old

    def todos(self) -> tuple[Todo, ...]:
        """The session's todo list, for the toolbar and the status line."""
        return todos_of(self.agent.state)

    def context_tokens(self) -> int:
        """How much of the context window the conversation fills: as reported, else estimated."""
        return self.usage.context_tokens or self.estimate.tokens(self.agent.messages)

    def context_share(self) -> str:
        """`context 12%`: the short form, for the status line during a turn."""
        return f"context {100 * self.context_tokens() // self.context_window}%"

    def context_line(self) -> str:
        """`context 12% (15,000 of 128,000 tokens)`."""
        used = self.context_tokens()
        return f"context {100 * used // self.context_window}% ({used:,} of {self.context_window:,} tokens)"

    @property
    def store(self) -> SessionStore | None:
        """The session store, or None once the session goes on in memory."""
        return self.journal.store

    def compact(self) -> str:
        """Replace the history with the model's summary of it (/compact); returns the summary."""
        return compact(self.agent, self.context_window)

    def recent(self) -> list[SessionInfo]:
        """This workspace's stored sessions, newest first; none when there is no store."""
        return self.store.sessions(self.agent.workspace) if self.store else []

    def stored(self) -> int:
        """How many sessions of this workspace are stored, listed or not."""
        return self.store.session_count(self.agent.workspace) if self.store else 0

    def latest_id(self) -> str:
        """The newest stored session of this workspace other than this one ('' if none), for --continue."""
        return latest_session(self.store, self.agent.workspace, self.agent.state.session_id) if self.store else ""

    def find(self, wanted: str) -> str:
        """The stored session of this workspace that `wanted` names (see find_session)."""
        if self.store is None:
            raise StoreUnavailable("the session store is not available")
        return find_session(self.store, self.agent.workspace, wanted)

    def resume(self, wanted: str) -> str:
        """Put a stored session back exactly: messages, modes, plan model, todos, audit trail, countdowns.

        `wanted` is its id or a unique start of it; returns the whole id. The countdowns are
        AskUserQuestion's deadlines, emitted again for it to find.
        """
        session_id = self.find(wanted)
        restored = read_session(self.store, session_id)
        if not self.journal.claim(session_id):
            raise SessionBusy(session_id)
        state = self.agent.state
        state.session_id = restored.session_id
        self.journal.audit[:] = restored.audit
        self.journal.revisions[:] = restored.revisions
        self.agent.messages[:] = restored.messages
        for call_id in open_calls(self.agent.messages):
            self.agent.add({"role": "tool", "tool_call_id": call_id,
                            "content": restored.closing_result(call_id)})
        if restored.todos != todos_of(state):
            replace_todos(state, restored.todos)
        put_modes_back(state, restored.plan_mode, restored.permission_mode, "resume")
        if (per_phase := plan_model_of(state)) is not None:
            per_phase.choose(restored.plan_model, "resume")
        for countdown in restored.countdowns.values():
            state.events.emit(countdown)
        return session_id

    def last_exchange(self) -> tuple[str, str]:
        """The user's last message and the last answer to it ('' for either that is missing)."""
        messages = self.agent.messages
        spoken = [i for i, m in enumerate(messages) if m["role"] == "user"
                  and isinstance(m.get("content"), str) and not reminder_kind(m)]
        if not spoken:
            return "", ""
        answers = [m["content"] for m in messages[spoken[-1] + 1:] if m["role"] == "assistant"
                   and isinstance(m.get("content"), str) and m["content"].strip()]
        return messages[spoken[-1]]["content"], answers[-1] if answers else ""

    def compacted_summary(self) -> str:
        """The summary a compaction left at the start of the history, '' when there is none."""
        for message in self.agent.messages:
            if reminder_kind(message) == "summary":
                text = message["content"].split("\n", 1)[-1].rsplit("\n", 1)[0]
                return text.removeprefix(SUMMARY_HEADING).strip()
        return ""

    def last_command_output(self) -> str:
        """The whole result of the latest Bash call, '' if no command has run."""
        bash_ids = {call["id"] for message in self.agent.messages if message["role"] == "assistant"
                    for call in message.get("tool_calls") or [] if call["function"]["name"] == "Bash"}
        results = [m["content"] for m in self.agent.messages
                   if m["role"] == "tool" and m["tool_call_id"] in bash_ids]
        return results[-1] if results else ""

    def fork(self, session_id: str) -> str:
        """Copy a stored session into a new one and resume that; returns the new id.

        `session_id` may be a unique start of the id.
        """
        if self.store is None:
            raise StoreUnavailable("the session store is not available")
        session_id = self.find(session_id)
        fork_id = new_session_id()
        self.store.copy_session(session_id, fork_id, self.agent.workspace)
        self.resume(fork_id)
        return fork_id

    def integrity(self) -> str:
        """What holds of the conversation after a turn stopped early: checked, never assumed.

        Intact means the history is a valid next request and, while the session is
        saved, the stored copy replays to the same messages. A stored copy that does
        not is left as it is, and the session goes on in memory.
        """
        problem = history_problem(self.agent.messages)
        if problem:
            return f"The conversation is damaged ({problem}); /clear starts a new one."
        if self.store is None:
            return "The conversation is intact in memory; this session is not being saved."
        try:
            stored = read_session(self.store, self.agent.state.session_id).messages
        except StoreUnavailable as failure:
            stored, problem = None, str(failure)
        if stored == self.agent.messages:
            return "The conversation is intact."
        self.leave_store()
        problem = problem or history_problem(stored or []) or "it lacks part of the conversation"
        return (f"The conversation goes on in memory, but its saved copy is not whole ({problem}); "
                "this session is saved no further, and resuming it would not bring it back whole.")

    def leave_store(self) -> None:
        """Go on in memory: the store is damaged, and what it holds is left as it is."""
        self.journal.leave_store()

    def trace(self) -> list[str]:
        """The audit trail as /trace prints it (session/trace.py)."""
        return trace_lines(self.journal.audit, self.agent.requests, self.agent.executor.calls)


def latest_session(store: SessionStore, workspace: Path, other_than: str = "") -> str:
    """The newest stored session of `workspace` other than `other_than` ('' if none)."""
    earlier = [info for info in store.sessions(workspace) if info.id != other_than]
    return earlier[0].id if earlier else ""


def find_session(store: SessionStore, workspace: Path, wanted: str) -> str:
    """This workspace's stored session whose id is `wanted`, or the one id that starts with it.

    The `sess_` every id begins with may be left out. Only this workspace's sessions match,
    as only they are listed; an exact id from another workspace is refused, naming it.
    NoSuchSession when there is none; AmbiguousSession, naming them, when several start with it.
    """
    owner = store.workspace_of(wanted)
    if owner is not None and owner != str(workspace):
        raise NoSuchSession(f"session {wanted} belongs to another workspace, {owner}; resume it "
                            "from there")
    if owner is not None:
        return wanted
    starts = {wanted, SESSION_ID_PREFIX + wanted.removeprefix(SESSION_ID_PREFIX)} if wanted else ()
    matches = sorted({found for start in starts for found in store.ids_starting(start, workspace)})
    if len(matches) > 1:
        shown = ", ".join(matches[:AMBIGUOUS_SHOWN]) + (", …" * (len(matches) > AMBIGUOUS_SHOWN))
        raise AmbiguousSession(f"{len(matches)} sessions start with {wanted}: {shown}; give more "
                               "of the id")
    if not matches:
        raise NoSuchSession(f"no session of this workspace starts with {wanted!r}")
    return matches[0]


def put_modes_back(state: AppState, plan_mode: bool, permission_mode: str, cause: str) -> None:
    """Set the modes a stored session or a checkpoint had, through the state's own functions.

    Only leave_plan_mode turns planning off, here as anywhere.
    """
    if permission_mode != state.permission_mode.value:
        state.set_permission_mode(PermissionMode(permission_mode), cause)
    if plan_mode:
        state.enter_plan_mode(cause)
    else:
        state.leave_plan_mode(cause)
