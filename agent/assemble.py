"""Build a working agent from its parts, with no UI: the one assembly index.py, tests and bench share.

The UI comes in as callbacks: `present` (ExitPlanMode shows the plan and returns
the user's review), `approve` (a PermissionRequest with a preview of the call,
answered yes, yes for the session, or no with feedback) and `ask`
(AskUserQuestion's questions, answered). Tests pass fakes; index.py passes the
console's. This is where the seams are filled: the hook registry (deny hooks,
then ask hooks), the tool set, the preparers that run before each request
(automatic compaction, due reminders, session mentions), and the listener that
stops what Bash calls left running when plan mode begins. Sub-agents are built
here too, by the same parts (agent/subagents.py says what they inherit).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from agent.approval import Approve
from agent.batch import Mailbox
from agent.executor import Executor
from agent.loop import Agent
from agent.subagents import SubAgents
from hooks import permission_ask, plan_mode_guard
from hooks.registry import HookRegistry
from hooks.session_rules import SessionRules
from models.base import Model
from session.compaction import AutoCompact, OverflowRecovery
from session.context_tool import make_session_context_tool
from session.mentions import session_mentions
from session.reminders import ReminderLog, Reminders
from session.store import SessionStore
from state import AppState
from tools.agent_tool import SUBAGENT_EXCLUDED
from tools.ask_user import Answers, Questionnaire
from tools.bash.classifier.classify import classify
from tools.bash.stop_left_running import stop_when_planning
from tools.judgement import Judgement
from tools.plan_mode import PlanReview
from tools.toolset import build_tools

SUBAGENT_MAX_STEPS = 30


def build_hooks() -> HookRegistry:
    """The PreToolUse registry: the plan-mode guard denies, the permission mode asks."""
    hooks = HookRegistry()
    hooks.on_pre_tool_use(plan_mode_guard.NAME, plan_mode_guard.plan_mode_guard, "deny")
    hooks.on_pre_tool_use(permission_ask.NAME, permission_ask.permission_ask, "ask")
    return hooks


def assemble(workspace: Path, state: AppState, model: Model, present: Callable[[str], PlanReview],
             approve: Approve, classifier: Callable[[str], Judgement] = classify,
             compact_after_tokens: tuple[int, float] = (128_000, 0.8),
             home: Path | None = None, store: SessionStore | None = None,
             ask: Callable[[Questionnaire], Answers] | None = None,
             ask_timeout: float | None = None,
             model_named: Callable[[str], Model] | None = None) -> Agent:
    """The agent with its tools, hooks and preparers; the UI comes in as callbacks.

    `home` is stepagent's own folder ($STEPAGENT_HOME): with it, the session has
    memory (the Remember and Forget tools, the memory section of the prompt).
    With the session `store`, ReadSessionContext reads earlier sessions; its
    handoff's side request goes to whichever model the agent has at the time.
    `model_named` makes the model a sub-agent asks for by name; by default the
    session's model with another name.
    """
    mailbox = Mailbox()

    def build_subagent(child: AppState, child_model: Model, child_approve: Approve) -> Agent:
        return assemble_subagent(workspace, child, child_model, child_approve, classifier, home,
                                 executor.rules, store)

    subagents = SubAgents(state, model, build_subagent, approve, mailbox,
                          model_named or (lambda name: dataclasses.replace(model, name=name)))
    tools = build_tools(workspace, state, present, classifier, home,
                        list_models=getattr(model, "list_models", None), model_name=lambda: model.name,
                        ask=ask, ask_timeout=ask_timeout, run_subagent=subagents.run)
    executor = Executor(tools, build_hooks(), state, approve, mailbox=mailbox)
    reminders = Reminders(ReminderLog(planning=state.plan_mode))
    state.events.subscribe(reminders.log.on_event)
    state.events.subscribe(stop_when_planning(state.events, workspace))
    agent = Agent(model, executor, state, workspace,
                  preparers=[AutoCompact(*compact_after_tokens), reminders, session_mentions],
                  recover_overflow=OverflowRecovery(compact_after_tokens[0]), home=home)
    if store is not None:
        add_session_context(agent, store)
    return agent


def add_session_context(agent: Agent, store: SessionStore) -> None:
    """ReadSessionContext for this agent; its handoff's side request goes to the agent's model."""
    tool = make_session_context_tool(
        store, lambda rules, material: side_request(agent.model, rules, material))
    agent.executor.tools[tool.name] = tool


def side_request(model: Model, instructions: str, material: str) -> str:
    """One request outside the conversation, with no tools: the instructions, then the material."""
    messages = [{"role": "system", "content": instructions}, {"role": "user", "content": material}]
    return model.complete(messages, [], lambda piece: None).text


def assemble_subagent(workspace: Path, state: AppState, model: Model, approve: Approve,
                      classifier: Callable[[str], Judgement] = classify,
                      home: Path | None = None, rules: SessionRules | None = None,
                      store: SessionStore | None = None) -> Agent:
    """A sub-agent: its parent's tools minus SUBAGENT_EXCLUDED, the same hooks and loop, its own history.

    Its parent's tools include ReadSessionContext when there is a store.
    """
    tools = build_tools(workspace, state, _no_plans, classifier, home,
                        list_models=getattr(model, "list_models", None), model_name=lambda: model.name)
    allowed = {name: tool for name, tool in tools.items() if name not in SUBAGENT_EXCLUDED}
    executor = Executor(allowed, build_hooks(), state, approve, rules=rules or SessionRules())
    agent = Agent(model, executor, state, workspace, max_steps=SUBAGENT_MAX_STEPS, home=home)
    if store is not None:
        add_session_context(agent, store)
    return agent


def _no_plans(plan: str) -> PlanReview:
    """A sub-agent has no ExitPlanMode; this `present` exists only to build the shared tool set."""
    return PlanReview("reject")
