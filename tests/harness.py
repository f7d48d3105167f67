"""A whole session wired as index.py wires it, with a scripted model and fake UI.

Tests drive it like a user: script the model's turns, queue the answers the
user will give, run a turn, then look at files, tool results and requests.
`run_index` runs the product's own command line in the test's process instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

import index
from agent.approval import PermissionAnswer, PermissionRequest
from agent.assemble import assemble
from ui.product import product_layers
from agent.events import ToolDecision
from models.scripted import ScriptedModel
from session.journal import Journal
from session.live import Session as LiveSession
from session.lock import SessionLock
from session.store import SessionStore
from session.valid_history import history_problem
from state import AppState, PermissionMode
from tools.bash.classifier.classify import classify
from tools.base import Judgement, QuestionLeft
from ui.modes import select
from ui.plan_review import plan_review
from tools.plan_mode import PlanReview


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def turn(text: str = "", *calls: dict[str, Any]) -> dict[str, Any]:
    return {"text": text, "tool_calls": list(calls)}


@dataclass
class Session:
    workspace: Path
    turns: list[dict[str, Any]]
    plan_answers: list[str] = field(default_factory=list)
    permission_answers: list[bool | PermissionAnswer | QuestionLeft] = field(default_factory=list)
    mode: str = "build"
    classifier: Callable[[str], Judgement] = classify
    shown_plans: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    permission_requests: list[PermissionRequest] = field(default_factory=list)
    decisions: list[ToolDecision] = field(default_factory=list)
    home: Path | None = None
    store: SessionStore | None = None

    def __post_init__(self) -> None:
        self.state = AppState()
        select(self.state, self.mode, "test")
        self.state.events.subscribe(self._listen)
        self.model = ScriptedModel(self.turns)
        self.agent = assemble(self.workspace, self.state, self.model, self._present, self._approve,
                              product_layers(self.home, self.store, classifier=self.classifier))
        self.executor = self.agent.executor

    def _listen(self, event) -> None:
        if isinstance(event, ToolDecision):
            self.decisions.append(event)

    def _present(self, plan: str) -> PlanReview:
        self.shown_plans.append(plan)
        return plan_review(self.plan_answers.pop(0))

    def _approve(self, request: PermissionRequest) -> bool | PermissionAnswer:
        self.questions.append(request.reason)
        self.permission_requests.append(request)
        answer = self.permission_answers.pop(0)
        if isinstance(answer, QuestionLeft):
            raise answer
        return answer

    def run(self, text: str = "go"):
        return self.agent.run_turn(text)

    def tool_results(self) -> list[str]:
        return [m["content"] for m in self.agent.messages if m["role"] == "tool"]

    def last_request(self) -> list[dict[str, Any]]:
        return self.model.requests[-1]

    @property
    def permission(self) -> PermissionMode:
        return self.state.permission_mode


def journaled(workspace: Path, store: SessionStore, turns: list[dict[str, Any]],
              lock: SessionLock | None = None, **options: Any) -> tuple[Session, LiveSession]:
    """A test session whose events are journaled to `store` (one writer if given a lock),
    and its live Session."""
    session = Session(workspace, turns, store=store, **options)
    journal = Journal(store, session.state, workspace, warn=lambda text: None, lock=lock)
    session.state.events.subscribe(journal.on_event)
    return session, LiveSession(session.agent, journal)


def assert_valid_history(messages: list[dict[str, Any]]) -> None:
    """Every tool call is answered by exactly one tool message before the next
    assistant message, and no tool message answers an unknown call."""
    problem = history_problem(messages)
    assert not problem, problem


def run_index(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str,
              **env: str) -> tuple[int, str, str]:
    """index.main in this process, in the current folder, with `env` set: no interpreter start-up,
    and the real client's openai is imported once per worker rather than once per run (about a
    second of CPU each). Its exit code, stdout and stderr."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = index.main(list(args))
    shown = capsys.readouterr()
    return code, shown.out, shown.err
