"""The core composition: an agent from the core's parts alone, then the layers that attach to it.

The core is the state, the system prompt builder, the hook registry with the
plan-mode guard (deny) and the permission-mode question (ask), the Tool record,
the plan-mode tools, the loop and the executor. Its tools are EnterPlanMode and
ExitPlanMode, Read, Write and Edit reading plainly, and a plain Bash with no
judge (so plan mode denies every command). The UI comes in as callbacks:
`present` (ExitPlanMode shows the plan and returns the user's review) and
`approve` (a PermissionRequest answered yes, yes for the session, or no).

A layer is one function, `layer(agent)`, beside its feature, that fills the
core's seams: it adds or replaces tools, adds a prompt section, a preparer, a
listener, an overflow recovery or a batch runner. Nothing here names a layer;
ui/product.py lists the product's. With no layers this is the whole lesson
(step42_plan_mode/minimal.py runs it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from agent.approval import Approve
from agent.executor import Executor
from agent.loop import Agent
from hooks import permission_ask, plan_mode_guard
from hooks.registry import HookRegistry
from models.base import Model
from state import AppState
from tools.files import make_file_tools
from tools.plain_bash import make_plain_bash
from tools.plan_mode import PlanReview, make_plan_mode_tools

Layer = Callable[[Agent], None]


def build_hooks() -> HookRegistry:
    """The PreToolUse registry: the plan-mode guard denies, the permission mode asks."""
    hooks = HookRegistry()
    hooks.on_pre_tool_use(plan_mode_guard.NAME, plan_mode_guard.plan_mode_guard, "deny")
    hooks.on_pre_tool_use(permission_ask.NAME, permission_ask.permission_ask, "ask")
    return hooks


def assemble(workspace: Path, state: AppState, model: Model, present: Callable[[str], PlanReview],
             approve: Approve, layers: Sequence[Layer] = ()) -> Agent:
    """The core agent, with each of `layers` attached in order."""
    tools = [*make_file_tools(workspace), make_plain_bash(workspace),
             *make_plan_mode_tools(workspace, state, present)]
    executor = Executor({tool.name: tool for tool in tools}, build_hooks(), state, approve)
    agent = Agent(model, executor, state, workspace)
    for layer in layers:
        layer(agent)
    return agent
