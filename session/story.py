"""A stored session read back whole, as the HTML page shows it: turns, calls, decisions, plan spans.

Part of the session store, for the export (ui/page.py draws what this reads).
One pass over the entries the journal wrote (session/journal.py), in order:
each user prompt starts a turn; each tool call gathers its arguments, the hook
decision that let it run or stopped it, the diff a Write or Edit made and its
result; the mode entries give plan mode's spans, each with how it began and
ended; every plan ExitPlanMode put to the user is a revision, with the answer
it got and the feedback that led to the next one (the exact text shown, the
feedback and the user's own edits come from the store's plan revisions,
session/plan_revisions.py, when it kept them). Nothing here renders: the
records (story_records.py) hold the session's own text, unescaped.

An entry the story cannot read (a damaged store) is named where it stood and
left out; entries of a kind it does not know are skipped. What the journal
does not store is inferred, and says so: how a turn ended
(answered, plan rejected, interrupted, stopped early) from its last entries,
and, when the server reported no usage, each turn's tokens estimated from the
size of what was sent and received (about four characters per token).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent.events import mode_label
from agent.executor import INTERRUPTED
from agent.history import reminder_kind
from session.store import Entry
from session.plan_revisions import Revision as Reviewed
from session.story_records import Call, Decision, PlanSpan, Revision, Story, Turn, review_answer
from tools.base import counted

ESTIMATED_CHARS_PER_TOKEN = 4
APPROVAL = "ExitPlanMode approval"
TURN_ENDING_KINDS = {"rejected", "saved", "left", "pending", "failed"}  # the turn ends with the review


def _arguments(raw: Any) -> Any:
    try:
        return json.loads(raw or "{}") if isinstance(raw, str) else raw
    except ValueError:
        return raw


def _size(message: dict[str, Any]) -> int:
    """About how many characters a message is when sent: its text and its calls' arguments."""
    content = message.get("content")
    calls = message.get("tool_calls") or []
    return (len(content) if isinstance(content, str) else 0) + sum(
        len(str((call.get("function") or {}).get("arguments") or "")) + 40 for call in calls)


def _span_ending(cause: str, permission_mode: str) -> str:
    if cause == APPROVAL:
        return f"approved into {permission_mode} mode"
    return f"left by {cause}"


@dataclass
class _Reader:
    """The state of the one pass over the entries."""

    session_id: str
    kept: dict[Any, Reviewed] = field(default_factory=dict)
    opened_in: str = ""
    turns: list[Turn] = field(default_factory=list)
    calls: dict[str, Call] = field(default_factory=dict)
    waiting: list[Call] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    spans: list[PlanSpan] = field(default_factory=list)
    revisions: list[Revision] = field(default_factory=list)
    todo_lists: list[tuple[int, list[dict[str, Any]]]] = field(default_factory=list)
    planning: bool = False
    last_started: Call | None = None
    running: tuple[Turn, int] | None = None
    closing_span: PlanSpan | None = None
    feedback_due: Revision | None = None
    sent_chars: int = 0
    messages: int = 0
    reported: bool = False

    @property
    def turn(self) -> Turn:
        if not self.turns:  # entries before the first prompt (a resumed or a forked session)
            self.turns.append(Turn(0, ""))
        return self.turns[-1]

    def _add(self, item: tuple[str, Any]) -> None:
        """Put an event's item in the turn: under the call that was running when it happened."""
        turn = self.turn
        if self.running is not None and self.running[0] is turn:
            turn.items.insert(self.running[1], item)
            self.running = (turn, self.running[1] + 1)
        else:
            turn.items.append(item)

    def read(self, entry: Entry) -> None:
        """Add one entry to the story; a damaged one is named in place and the rest go on."""
        handler = READERS.get(entry.kind)
        if handler is None:
            return
        try:
            handler(self, entry.payload)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            self.turn.items.append(("note", f"Entry {entry.seq} ({entry.kind}) is damaged: left out here."))

    def _message(self, message: dict[str, Any]) -> None:
        size = _size(message)
        self.messages += 1
        role, content = message.get("role"), message.get("content")
        text = content if isinstance(content, str) else ""
        if role == "user":
            self._user(message, text)
        elif role == "assistant":
            self._assistant(message, text, size)
        elif role == "tool":
            call = self.calls.get(message.get("tool_call_id", ""))
            if call is not None:
                call.result = text
                if call is self.last_started:
                    self.running = None
                if call in self.waiting:  # answered without a decision (interrupted, not run)
                    self.waiting.remove(call)
        self.sent_chars += size

    def _user(self, message: dict[str, Any], text: str) -> None:
        kind = reminder_kind(message)
        if kind:
            self.turn.items.append(("reminder", (kind, text)))
        elif self.feedback_due is not None and self.feedback_due.kind == "feedback":
            self.feedback_due.feedback = self.feedback_due.feedback or text
            self.turn.items.append(("feedback", (self.feedback_due.number, text)))
            self.feedback_due = None
        else:
            if self.feedback_due is not None:
                self.feedback_due.feedback = self.feedback_due.feedback or text
                self.feedback_due = None
            self.turns.append(Turn(self.turns[-1].number + 1 if self.turns else 1, text))

    def _assistant(self, message: dict[str, Any], text: str, size: int) -> None:
        turn = self.turn
        sent, received = turn.estimated
        turn.estimated = (sent + self.sent_chars // ESTIMATED_CHARS_PER_TOKEN,
                          received + size // ESTIMATED_CHARS_PER_TOKEN)
        if text.strip():
            turn.items.append(("text", text))
        for raw in message.get("tool_calls") or []:
            function = raw.get("function") or {}
            call = Call(len(self.calls) + 1, raw.get("id", ""), str(function.get("name", "")),
                        _arguments(function.get("arguments")))
            self.calls[call.id] = call
            self.waiting.append(call)
            turn.items.append(("call", call))

    def _hook(self, payload: dict[str, Any]) -> None:
        decision = Decision(str(payload["tool"]), str(payload["decision"]), str(payload.get("hook") or ""),
                            str(payload.get("reason") or ""), bool(payload.get("asked")),
                            str(payload.get("subject") or ""), str(payload.get("agent") or ""),
                            str(payload.get("left_with") or ""))
        self.decisions.append(decision)
        if decision.agent:
            self._add(("decision", decision))
            return
        call = next((c for c in self.waiting if c.name == decision.tool), None)
        if call is None:
            self._add(("decision", decision))
            return
        self.waiting.remove(call)
        call.decision = decision

    def _started(self, payload: dict[str, Any]) -> None:
        call = self.calls.get(payload["tool_call_id"])
        if call is not None:
            call.started = True
            self.last_started = call
            turn = self.turn
            self.running = next(((turn, index + 1) for index in range(len(turn.items) - 1, -1, -1)
                                 if turn.items[index][1] is call), None)

    def _change(self, payload: dict[str, Any]) -> None:
        if self.last_started is not None:
            self.last_started.change = str(payload.get("diff") or "")

    def _review(self, payload: dict[str, Any]) -> None:
        kind, outcome = review_answer(str(payload["outcome"]), str(payload.get("answer") or ""))
        call = self.last_started
        plan = str(call.argument_dict.get("plan", "")).strip() if call else ""
        revision = Revision(len(self.revisions) + 1, self.turn.number, call.number if call else 0, plan,
                            kind, outcome, digest=str(payload.get("digest") or ""))
        kept = self.kept.get(payload.get("revision"))
        if kept is not None:  # the store kept the exact text shown, the feedback and the user's edits
            revision.plan, revision.feedback, revision.edits = kept.plan, kept.feedback, kept.edits
        self.revisions.append(revision)
        self.feedback_due = revision if kind != "approved" else None
        span = self.closing_span or (self.spans[-1] if self.spans and not self.spans[-1].ended else None)
        if span is not None:
            span.reviews.append(revision)
        self.closing_span = None
        self._add(("review", revision))
        if kind in TURN_ENDING_KINDS:
            self.turn.ending = outcome + (": the user speaks next" if kind == "rejected" else "")

    def _mode(self, payload: dict[str, Any]) -> None:
        planning = bool(payload["plan_mode"])
        cause = str(payload.get("cause", ""))
        label = mode_label(planning, payload["permission_mode"])
        if self.turns:
            self._add(("mode", (label, cause)))
        else:
            self.opened_in = self.opened_in or label
        if planning and not self.planning:
            self.spans.append(PlanSpan(self.turns[-1].number if self.turns else 1, cause))
        elif self.planning and not planning:
            self.spans[-1].ended = _span_ending(cause, payload["permission_mode"])
            self.spans[-1].last_turn = self.turn.number
            self.closing_span = self.spans[-1] if cause == APPROVAL else None  # its review comes next
        self.planning = planning

    def _todos(self, payload: dict[str, Any]) -> None:
        todos = [todo for todo in payload["todos"] if isinstance(todo, dict)]
        self.todo_lists.append((self.turn.number, todos))
        self._add(("todos", todos))

    def _usage(self, payload: dict[str, Any]) -> None:
        self.reported = True
        sent, received = self.turn.reported
        self.turn.reported = (sent + (payload.get("input_tokens") or 0),
                              received + (payload.get("output_tokens") or 0))

    def _compaction(self, payload: dict[str, Any]) -> None:
        self.sent_chars = sum(_size(message) for message in payload["messages"])
        self._add(("note", "The conversation was compacted here: the model was sent a summary in "
                           "place of the messages above."))

    def _rewind(self, payload: dict[str, Any]) -> None:
        self.sent_chars = sum(_size(message) for message in payload["messages"])
        self._add(("note", f"The conversation was rewound here to checkpoint {payload['checkpoint']}: "
                           "the model was sent the history as it was then."))

    def _memory(self, payload: dict[str, Any]) -> None:
        self._add(("note", f"Memory {payload['action']}: {payload['name']} ({payload['description']})"))

    def _subagent(self, payload: dict[str, Any]) -> None:
        if payload["phase"] == "started":
            where = " in plan mode" if payload.get("plan_mode") else ""
            self._add(("note", f"Sub-agent {payload['agent']} started{where}."))
        else:
            self._add(("note", f"Sub-agent {payload['agent']} {payload['ending']}: "
                               f"{counted(payload['tool_calls'], 'tool call')}, "
                               f"{counted(payload['requests'], 'model request')}."))

    def story(self) -> Story:
        if self.spans and not self.spans[-1].ended:
            self.spans[-1].last_turn = self.turns[-1].number if self.turns else 1
            self.spans[-1].ended = "still planning when the session was exported"
        for turn in self.turns:
            turn.ending = turn.ending or _inferred_ending(turn)
        return Story(self.session_id, self.opened_in, self.turns, list(self.calls.values()), self.decisions,
                     self.spans, self.revisions, self.todo_lists, self.reported, self.messages)


READERS = {"message": _Reader._message, "hook": _Reader._hook, "started": _Reader._started,
           "change": _Reader._change, "review": _Reader._review, "mode": _Reader._mode,
           "todos": _Reader._todos, "usage": _Reader._usage, "compaction": _Reader._compaction,
           "rewind": _Reader._rewind, "memory": _Reader._memory, "subagent": _Reader._subagent}


def _inferred_ending(turn: Turn) -> str:
    """How a turn ended, read from its last entries (the journal does not store it)."""
    said = [item for item in turn.items if item[0] in {"text", "call"}]
    if not said:
        return "no reply"
    kind, last = said[-1]
    if kind == "text":
        return "answered"
    if last.result is not None and last.result.startswith(INTERRUPTED):
        return "interrupted (Ctrl-C)"
    return "stopped before an answer"


def read_story(session_id: str, entries: list[Entry], revisions: list[Reviewed] = ()) -> Story:
    """The session told from its stored entries, in one pass, with the plan revisions the store kept."""
    reader = _Reader(session_id, {revision.number: revision for revision in revisions})
    for entry in entries:
        reader.read(entry)
    return reader.story()
