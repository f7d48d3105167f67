"""Record a real session as a lesson, and check a replay of it.

`--record FILE` subscribes a Recorder to the event stream: every model reply
becomes a turn of a scenario in the format models/scripted.py replays (text and
tool calls), each call keeps its tool result beside it ("result", for reference
and for checking), the user's message opens its turn ("user"), and a call the
user was asked about keeps the answer ("allowed"). Paths of the workspace and
the session id are written as <workspace> and <session>, so the recording
replays anywhere. The file is rewritten after every message, so a session that
dies keeps what it said. A plan's review is kept as what it was ("review":
approved and in which mode, feedback and its words, rejected, or pending in a
run nobody could review); feedback is the model's next message to read, not a
turn of the user's.

`--script FILE --check` replays the user's messages against the scripted model,
answers questions and reviews plans as the recording did, and lists every tool
result that differs from the recorded one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agent.events import Event, MessageAdded, ToolDecision
from agent.history import reminder_kind
from state import AppState, PermissionMode
from tools.plan_mode import APPROVED, EXIT_PLAN_MODE, NOT_APPROVED, PENDING, REJECTED, PlanReview
from tools.workspace import write_atomically

APPROVED_MODE = re.compile(r"You are in (\w+) mode")


def normalise(text: str, workspace: Path, session_id: str) -> str:
    """Text with this run's workspace path and session id replaced by placeholders."""
    return text.replace(str(workspace), "<workspace>").replace(session_id, "<session>")


def parsed(arguments: str) -> Any:
    """A call's arguments as the scenario stores them: parsed when they are JSON."""
    try:
        return json.loads(arguments or "{}")
    except ValueError:
        return arguments


@dataclass
class Recorder:
    """Turns the event stream into a scenario file."""

    path: Path
    state: AppState
    workspace: Path
    title: str
    turns: list[dict[str, Any]] = field(default_factory=list)
    mode: str = ""
    _user: str = ""
    _calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    _awaiting_feedback: dict[str, Any] | None = None

    def on_event(self, event: Event) -> None:
        """Record replies, results and the user's answers; rewrite the file after each message."""
        if isinstance(event, ToolDecision) and event.asked and self._pending_call(event.tool):
            self._pending_call(event.tool)["allowed"] = event.decision == "allow"
            return
        if not isinstance(event, MessageAdded):
            return
        message = event.message
        if message["role"] == "user" and not reminder_kind(message) and self._awaiting_feedback:
            self._awaiting_feedback["review"]["feedback"] = str(message.get("content") or "")
            self._awaiting_feedback = None
        elif message["role"] == "user" and not reminder_kind(message):
            self._user = str(message.get("content") or "")
            self.mode = self.mode or self.state.mode_label
        elif message["role"] == "assistant":
            self._add_turn(message)
        elif message["role"] == "tool" and message["tool_call_id"] in self._calls:
            call = self._calls.pop(message["tool_call_id"])
            call["result"] = normalise(str(message["content"]), self.workspace, self.state.session_id)
            review = review_in(call["result"]) if call["name"] == EXIT_PLAN_MODE else None
            if review:
                call["review"] = review
                self._awaiting_feedback = call if review["outcome"] == "feedback" else None
        else:
            return
        self.write()

    def write(self) -> None:
        """The scenario as it stands, written atomically."""
        scenario = {"title": self.title, "mode": self.mode or "build", "turns": self.turns}
        write_atomically(self.path, json.dumps(scenario, indent=1, ensure_ascii=False) + "\n")

    def _add_turn(self, message: dict[str, Any]) -> None:
        turn: dict[str, Any] = {"text": message.get("content") or ""}
        if self._user:
            turn = {"user": self._user, **turn}
            self._user = ""
        calls = []
        for call in message.get("tool_calls") or []:
            recorded = {"name": call["function"]["name"],
                        "arguments": parsed(call["function"]["arguments"])}
            self._calls[call["id"]] = recorded
            calls.append(recorded)
        if calls:
            turn["tool_calls"] = calls
        self.turns.append(turn)

    def _pending_call(self, name: str) -> dict[str, Any] | None:
        return next((call for call in self._calls.values() if call["name"] == name
                     and "result" not in call), None)


def review_in(result: str) -> dict[str, Any] | None:
    """The review an ExitPlanMode result reports; None when the plan was never shown."""
    if result.startswith(APPROVED):
        mode = APPROVED_MODE.search(result)
        return {"outcome": "approve", "mode": mode.group(1) if mode else None}
    outcomes = {NOT_APPROVED: "feedback", REJECTED: "reject", PENDING: "pending"}
    return next(({"outcome": outcome} for text, outcome in outcomes.items()
                 if result.startswith(text)), None)


def load_recording(path: Path) -> dict[str, Any]:
    """A recorded scenario (its turns are what the scripted model replays)."""
    return json.loads(path.read_text(encoding="utf-8"))


def recorded_calls(recording: dict[str, Any]) -> list[dict[str, Any]]:
    """Every recorded tool call, in order."""
    return [call for turn in recording.get("turns", []) for call in turn.get("tool_calls", [])]


def replay_answers(recording: dict[str, Any]) -> tuple[Callable[[str], PlanReview],
                                                     Callable[[str], bool]]:
    """`present` and `approve` callbacks that answer as the user did when it was recorded."""
    reviews = [call["review"] for call in recorded_calls(recording) if "review" in call]
    answers = [call["allowed"] for call in recorded_calls(recording) if "allowed" in call]

    def present(plan: str) -> PlanReview:
        review = reviews.pop(0) if reviews else {"outcome": "reject"}
        mode = PermissionMode(review["mode"]) if review.get("mode") else None
        return PlanReview(review["outcome"], review.get("feedback", ""), mode)

    def approve(question: str) -> bool:
        return bool(answers and answers.pop(0))

    return present, approve


def user_messages(recording: dict[str, Any]) -> list[str]:
    """The user's messages, in the order they opened turns."""
    return [turn["user"] for turn in recording.get("turns", []) if "user" in turn]


def differences(recording: dict[str, Any], messages: list[dict[str, Any]], workspace: Path,
                session_id: str) -> list[str]:
    """One report per tool result of the replay that differs from the recording."""
    replayed = [normalise(str(m["content"]), workspace, session_id)
                for m in messages if m["role"] == "tool"]
    reports = []
    for number, call in enumerate(recorded_calls(recording), 1):
        got = replayed[number - 1] if number <= len(replayed) else "(not replayed)"
        if "result" in call and got != call["result"]:
            reports.append(f"call {number} {call['name']}({json.dumps(call['arguments'])[:80]}):\n"
                           f"  recorded: {call['result'][:300]!r}\n  replayed: {got[:300]!r}")
    return reports
