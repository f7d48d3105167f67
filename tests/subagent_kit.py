"""Parts for sub-agent tests: a model that routes each sub-agent to its own script,
and a session wired as index.py wires it, with fake UI callbacks."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agent.approval import PermissionRequest
from agent.assemble import assemble
from ui.product import product_layers
from agent.events import Event
from agent.subagents import SubAgentDecision, SubAgentFinished
from models.base import Reply
from models.catalog import ModelInfo
from models.scripted import ScriptedModel
from state import AppState
from tools.ask_user import Answers, Questionnaire
from tools.plan_mode import PlanReview
from ui.modes import select


@dataclass
class Hooked:
    """A scripted model that runs `before[n]()` ahead of its n-th request (1-based)."""

    script: ScriptedModel
    before: dict[int, Callable[[], None]] = field(default_factory=dict)
    name: str = "hooked"

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        action = self.before.get(len(self.script.requests) + 1)
        if action:
            action()
        return self.script.complete(messages, tools, on_text)

    @property
    def requests(self) -> list[list[dict[str, Any]]]:
        return self.script.requests

    @property
    def tool_schemas(self) -> list[list[dict[str, Any]]]:
        return self.script.tool_schemas


@dataclass
class Routed:
    """The parent's script, and one model per sub-agent, picked by a word of its task."""

    parent: Any
    subs: dict[str, Any]
    name: str = "routed"
    catalog: list[ModelInfo] = field(default_factory=list)

    def list_models(self) -> list[ModelInfo]:
        return self.catalog

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        task = next(m["content"] for m in messages if m["role"] == "user")
        for word, model in self.subs.items():
            if task.startswith("You are a sub-agent") and word in task:
                return model.complete(messages, tools, on_text)
        return self.parent.complete(messages, tools, on_text)


@dataclass
class Parent:
    """A parent session whose sub-agents follow their own scripts."""

    workspace: Path
    turns: list[dict[str, Any]]
    subs: dict[str, Any]
    mode: str = "build"
    permission_answers: list[bool] = field(default_factory=list)
    questions: list[tuple[str, str]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = AppState()
        select(self.state, self.mode, "test")
        self.state.events.subscribe(self.events.append)
        self.model = Routed(ScriptedModel(self.turns), self.subs)
        self.agent = assemble(self.workspace, self.state, self.model, self._present, self._approve,
                              product_layers(ask=self._ask))

    def _present(self, plan: str) -> PlanReview:
        return PlanReview("reject")

    def _approve(self, request: PermissionRequest) -> bool:
        self.questions.append((request.reason, threading.current_thread().name))
        return self.permission_answers.pop(0)

    def _ask(self, questionnaire: Questionnaire) -> Answers:
        return Answers()

    def run(self, text: str = "go"):
        return self.agent.run_turn(text)

    def tool_results(self) -> list[str]:
        return [m["content"] for m in self.agent.messages if m["role"] == "tool"]

    def sub_decisions(self) -> list[SubAgentDecision]:
        return [e for e in self.events if isinstance(e, SubAgentDecision)]

    def finished(self) -> list[SubAgentFinished]:
        return [e for e in self.events if isinstance(e, SubAgentFinished)]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` and its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
