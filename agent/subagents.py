"""Sub-agents: a fresh agent for one task, built by the same assembly as its parent.

`subagent_layer` attaches the feature to an agent: the Agent tool
(tools/agent_tool.py), and in the executor's `batch` seam the runner that lets
several Agent calls of one reply run side by side (agent/batch.py).

A sub-agent is the same loop with its own history and its own state, and it
answers once (tools/agent_tool.py turns that answer into the Agent call's
result). What it takes from its parent, and why:

- Tools: the parent's set (ReadSessionContext included), built anew for the
  sub-agent's state by the core and the tool layers the parent's assembly names,
  minus SUBAGENT_EXCLUDED. It has nothing to enter or leave plan mode with, no
  question for the user, and no sub-agents of its own; so while planning, its
  system prompt's plan section is PLANNING, which describes no way out.
- Plan mode, inherited and kept in step. A
  `general` sub-agent follows its parent's mode for as long as it runs:
  planning while the parent plans, under the same guard and sandbox; free to
  change things (asking, in build mode) once the parent has left plan mode, and
  back to planning if the parent goes back. Its own state changes only through
  AppState's functions, driven by the parent's ModeChanged events, so it can
  neither leave plan mode by itself nor be left planning after its parent left
  (failure mode 6, step42_plan_mode/failure_modes.md).
  An `explore` sub-agent plans from start to end, whatever its parent's mode.
- Permission questions: asked through the parent's `approve`, on the main
  thread (agent/batch.py's Mailbox), labelled with the sub-agent's description.
  A "yes, don't ask again" is the session's rule, for parent and sub-agents alike.
  A question the user leaves (/exit, /mode, Shift+Tab) ends the parent's turn too.
- Events: its hook decisions reach the parent's stream as SubAgentDecision, so
  the screen and /trace show them with the sub-agent as their cause, and its
  memory changes as they are, so the user sees every one; the tokens its
  replies cost as SubAgentTokensUsed, so /usage adds them to the session's
  (but not to how full the parent's context is). Its messages stay its own.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from agent.approval import Approve, PermissionAnswer, PermissionRequest
from agent.assemble import Layer, assemble
from agent.batch import Mailbox, side_by_side
from agent.events import Event, ModeChanged, TokensUsed, ToolDecision
from agent.loop import Agent
from agent.prompt import PLAN_HEADING, PromptContext, plan_mode_section
from models.base import Model, ModelError
from models.catalog import resolve_model
from state import AppState, PermissionMode
from tools.memory import MemoryChanged
from tools.agent_tool import SUBAGENT_EXCLUDED, SubAgentReport, SubAgentTask, make_agent_tool
from tools.base import QuestionLeft
from tools.plan_mode import PlanReview

BuildAgent = Callable[[AppState, Model, Approve], Agent]
SUBAGENT_MAX_STEPS = 30
PLANNING = ("Plan mode is active: the agent that started you is planning, so you work under the "
            "same rules. Do not edit files or run commands that change anything; such calls are "
            "denied. You cannot leave plan mode. Research what your task asks and report your "
            "findings as your final answer.")
ROLE = {"explore": "Research only: read, search and run read-only commands. Change nothing.",
        "general": "Do the task, changing files where it needs it and where you are allowed to."}


@dataclass(frozen=True)
class SubAgentStarted(Event):
    """A sub-agent began its task; `agent` is its label (type and description)."""

    agent: str
    plan_mode: bool
    model: str


@dataclass(frozen=True)
class SubAgentDecision(Event):
    """A hook decision inside a sub-agent, relayed to its parent's stream."""

    agent: str
    decision: ToolDecision


@dataclass(frozen=True)
class SubAgentFinished(Event):
    """A sub-agent ended: how, after how many requests and tool calls, in how long."""

    agent: str
    ending: str
    requests: int
    tool_calls: int
    seconds: float


@dataclass(frozen=True)
class SubAgentTokensUsed(Event):
    """What one of a sub-agent's model replies cost, relayed to its parent's stream."""

    agent: str
    used: TokensUsed


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
        left: list[QuestionLeft] = []
        agent = self.build(state, model, self._asking(task, left))
        self._emit(SubAgentStarted(task.label, state.plan_mode, model.name))
        began = time.monotonic()
        try:
            outcome = agent.run_turn(briefing(task))
        finally:
            self.parent.events.unsubscribe(follow)
        self._emit(SubAgentFinished(task.label, outcome.ending, agent.requests,
                                    agent.executor.calls, time.monotonic() - began))
        if left:
            said = left[0].TOLD.format(left[0], "answering its question", self.parent.mode_label)
            return SubAgentReport("left", problem=f"the user {said}", tool_calls=agent.executor.calls)
        return SubAgentReport(outcome.ending, outcome.text, outcome.error, agent.executor.calls)

    def _asking(self, task: SubAgentTask, left: list[QuestionLeft]) -> Approve:
        """The parent's `approve`, on the main thread; a question the user left is kept in `left`."""
        def approve(request: PermissionRequest) -> PermissionAnswer | bool:
            try:
                return self.mailbox.call(lambda: self.approve(
                    replace(request, reason=f"[sub-agent {task.label}] {request.reason}")))
            except QuestionLeft as stop:
                left.append(stop)
                raise
        return approve

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


def subagent_layer(agent: Agent, child_layers: Sequence[Layer],
                   model_named: Callable[[str], Model] | None = None) -> None:
    """The layer: the Agent tool, whose sub-agents are the core with `child_layers`, run side by side.

    `model_named` makes the model a sub-agent asks for by name; by default the
    agent's model under that name.
    """
    mailbox = Mailbox()
    executor = agent.executor

    def build(state: AppState, model: Model, approve: Approve) -> Agent:
        child = assemble(agent.workspace, state, model, _no_plans, approve, child_layers)
        for name in SUBAGENT_EXCLUDED:
            child.executor.tools.pop(name, None)
        child.executor.ask = executor.ask  # the parent's "don't ask again" rules hold here too
        child.max_steps = SUBAGENT_MAX_STEPS
        child.sections = [planning_section if section is plan_mode_section else section
                          for section in child.sections]
        return child

    def ask_parent(request: PermissionRequest) -> PermissionAnswer | bool:
        return executor.approve(request)  # whatever answers the parent's questions by then

    subagents = SubAgents(agent.state, agent.model, build, ask_parent, mailbox,
                          model_named or (lambda name: dataclasses.replace(agent.model, name=name)))
    tool = make_agent_tool(subagents.run)
    executor.tools[tool.name] = tool
    executor.batch = side_by_side(mailbox)


def planning_section(context: PromptContext) -> str | None:
    """A sub-agent's plan section while planning: the rules, and no way out to describe."""
    return PLAN_HEADING + PLANNING if context.state.plan_mode else None


def _no_plans(plan: str) -> PlanReview:
    """A sub-agent has no ExitPlanMode; the core it is built from still takes a `present`."""
    return PlanReview("reject")
