"""The prompt's cost: the fixed part (system prompt plus tool schemas) in plan and in build mode,
and every request of a planning session, with anything it says twice.

Tokens are estimated at four characters per token. Targets: a fixed prompt ≤ 10,000
characters, and no line of an instruction said twice in one request (the system prompt's
plan section, EnterPlanMode's result and the plan-mode reminder once said the same ~500
tokens three times). The session runs the product's real agent with a scripted model:
the model enters plan mode itself, reads, answers; the user says more; the model presents
its plan, the user approves it, and the model builds.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from common import Targets

from agent.assemble import assemble
from models.scripted import ScriptedModel
from state import AppState
from tests.repeats import repeated_lines
from tools.plan_mode import PlanReview
from ui.product import product_layers

TARGET = 10_000
PLAN = "1. Write hello.txt with a greeting."
SCRIPT = [
    {"text": "", "tool_calls": [{"name": "EnterPlanMode", "arguments": {}}]},
    {"text": "", "tool_calls": [{"name": "Glob", "arguments": {"pattern": "*"}}]},
    {"text": "There is no greeting file yet."},
    {"text": "", "tool_calls": [{"name": "ExitPlanMode", "arguments": {"plan": PLAN}}]},
    {"text": "", "tool_calls": [{"name": "Write", "arguments": {"file_path": "hello.txt",
                                                                 "content": "hello\n"}}]},
    {"text": "Done."},
]


def fixed_prompts(targets: Targets) -> None:
    """The system prompt and the tool schemas, in plan and in build mode."""
    workspace = Path("/home/user/project")
    for plan_mode in (True, False):
        state = AppState()
        if plan_mode:
            state.enter_plan_mode("bench")
        agent = assemble(workspace, state, ScriptedModel([]), lambda plan: PlanReview("reject"),
                         lambda request: False, product_layers())
        system = agent.system_prompt()
        schemas = json.dumps([tool.schema() for tool in agent.executor.tools.values()])
        total = len(system) + len(schemas)
        print(f"fixed prompt ({'plan' if plan_mode else 'build'} mode): system {len(system)} + "
              f"tool schemas {len(schemas)} = {total} characters ≈ {total // 4} tokens "
              f"{targets.check('prompt size', total, TARGET, f'{TARGET:,} characters')}")


def planning_session(targets: Targets) -> None:
    """Each request of the scripted session: its mode, its size, and what it says twice."""
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-prompt-") as folder:
        state, model = AppState(), ScriptedModel(SCRIPT)
        modes: list[str] = []
        agent = assemble(Path(folder), state, model, lambda plan: PlanReview("approve"),
                         lambda request: True, product_layers())
        agent.preparers.append(lambda _agent: modes.append(state.mode_label))
        agent.run_turn("Plan a greeting file.")
        agent.run_turn("Keep it to one line.")
        repeats = 0
        for number, (mode, messages, tools) in enumerate(zip(modes, model.requests, model.tool_schemas), 1):
            size = sum(len(str(m.get("content") or "")) for m in messages) + len(json.dumps(tools))
            twice = repeated_lines(messages)
            repeats += len(twice)
            print(f"request {number} ({mode} mode): {len(messages)} messages, {size} characters ≈ "
                  f"{size // 4} tokens; lines said twice: {len(twice)}")
            for line in twice:
                print(f"  twice: {line[:100]}")
        print(f"lines of instructions said twice in one request: {repeats} "
              f"{targets.check('instructions said once', repeats, 0, '0')}")


def main() -> int:
    targets = Targets()
    fixed_prompts(targets)
    planning_session(targets)
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
