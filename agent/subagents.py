"""Sub-agents: a fresh agent for one task, built by the same assembly as its parent.

A sub-agent is the same loop with its own history and its own state, and it
answers once (tools/agent_tool.py turns that answer into the Agent call's
result). What it takes from its parent, and why:

- Tools: the parent's set (ReadSessionContext included), built anew for the
  sub-agent's state, minus SUBAGENT_EXCLUDED. It has nothing to enter or leave plan mode with, no
  question for the user, and no sub-agents of its own.
- Plan mode, inherited and kept in step (failure mode 6 in DESIGN.md). A
  `general` sub-agent follows its parent's mode for as long as it runs:
  planning while the parent plans, under the same guard and sandbox; free to
  change things (asking, in build mode) once the parent has left plan mode, and
  back to planning if the parent goes back. Its own state changes only through
  AppState's functions, driven by the parent's ModeChanged events, so it can
  neither leave plan mode by itself nor be left planning after its parent left.
  An `explore` sub-agent plans from start to end, whatever its parent's mode.
- Permission questions: asked through the parent's `approve`, on the main
  thread (agent/batch.py's Mailbox), labelled with the sub-agent's description.
  A "yes, don't ask again" is the session's rule, for parent and sub-agents alike.
- Events: its hook decisions reach the parent's stream as SubAgentDecision, so
  the screen and /trace show them with the sub-agent as their cause, and its
  memory changes as they are, so the user sees every one; the tokens its
  replies cost as SubAgentTokensUsed, so /usage adds them to the session's
  (but not to how full the parent's context is). Its messages stay its own.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable

from agent.approval import Approve
from agent.batch import Mailbox
from agent.events import (Event, MemoryChanged, ModeChanged, SubAgentDecision, SubAgentFinished,
                          SubAgentStarted, SubAgentTokensUsed, TokensUsed, ToolDecision)
from agent.loop import Agent
from models.base import Model, ModelError
from models.catalog import resolve_model
from state import AppState, PermissionMode
from tools.agent_tool import SubAgentReport, SubAgentTask

BuildAgent = Callable[[AppState, Model, Approve], Agent]
ROLE = {"explore": "Research only: read, search and run read-only commands. Change nothing.",
        "general": "Do the task, changing files where it needs it and where you are allowed to."}


def briefing(task: SubAgentTask) -> str:
    """The sub-agent's first message: who it works for, what to report, then the task."""
    return (f"You are a sub-agent ({task.subagent_type}) started by another agent. "
            f"{ROLE[task.subagent_type]} You cannot ask the user anything. When you are done, "
            "reply with a concise report of what you found or did, with file paths; that reply "
            f"is all the other agent will see.\n\nTask: {task.prompt}")


@dataclass
class SubAgents:
    """Builds and runs the sub-agents of one parent agent."""

    parent: AppState
    model: Model
    build: BuildAgent
    approve: Approve
    mailbox: Mailbox
    model_named: Callable[[str], Model]
    _one_at_a_time: threading.Lock = field(default_factory=threading.Lock)

    def run(self, task: SubAgentTask) -> SubAgentReport:
        """Run the task in a fresh sub-agent and report how it ended."""
        try:
            model = self._model_for(task.model)
        except ModelError as failure:
            return SubAgentReport("not_started", problem=str(failure))
        state = AppState(permission_mode=self.parent.permission_mode)
        follow = self._follower(state, task)
        self.parent.events.subscribe(follow)
        self._follow_now(state, task)
        state.events.subscribe(lambda event: self._relay(task, event))
        agent = self.build(state, model, lambda request: self.mailbox.call(
            lambda: self.approve(replace(request, reason=f"[sub-agent {task.label}] {request.reason}"))))
        self._emit(SubAgentStarted(task.label, state.plan_mode, model.name))
        began = time.monotonic()
        try:
            outcome = agent.run_turn(briefing(task))
        finally:
            self.parent.events.unsubscribe(follow)
        self._emit(SubAgentFinished(task.label, outcome.ending, agent.requests,
                                    agent.executor.calls, time.monotonic() - began))
        return SubAgentReport(outcome.ending, outcome.text, outcome.error, agent.executor.calls)

    def _model_for(self, name: str | None) -> Model:
        """The parent's model, or the named one once the endpoint's catalog knows it."""
        if name is None:
            return self.model
        list_models = getattr(self.model, "list_models", None)
        if list_models is None:
            raise ModelError("this model cannot list other models; leave out `model`")
        return self.model_named(resolve_model(name, list_models()))

    def _follower(self, state: AppState, task: SubAgentTask) -> Callable[[Event], None]:
        def follow(event: Event) -> None:
            if isinstance(event, ModeChanged):
                self._follow_now(state, task)
        return follow

    def _follow_now(self, state: AppState, task: SubAgentTask) -> None:
        """Put the sub-agent in its parent's mode (an explore sub-agent always plans)."""
        cause = f"inherited from the parent ({task.label})"
        if task.subagent_type == "explore" or self.parent.plan_mode:
            state.enter_plan_mode(cause)
        else:
            state.leave_plan_mode(cause, then=PermissionMode(self.parent.permission_mode))
        if state.permission_mode is not self.parent.permission_mode:
            state.set_permission_mode(PermissionMode(self.parent.permission_mode), cause)

    def _relay(self, task: SubAgentTask, event: Event) -> None:
        if isinstance(event, ToolDecision):
            self._emit(SubAgentDecision(task.label, event))
        elif isinstance(event, TokensUsed):
            self._emit(SubAgentTokensUsed(task.label, event))
        elif isinstance(event, MemoryChanged):
            self._emit(event)

    def _emit(self, event: Event) -> None:
        """Sub-agents run on several threads; the parent's listeners hear one event at a time."""
        with self._one_at_a_time:
            self.parent.events.emit(event)

