"""The fixed prompt cost: system prompt plus tool schemas, in plan and in build mode.

Tokens are estimated at four characters per token. Target: ≤ 10,000 characters.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from common import Targets

from agent.assemble import assemble
from ui.product import product_layers
from models.scripted import ScriptedModel
from state import AppState
from tools.plan_mode import PlanReview


TARGET = 10_000


def main() -> int:
    targets = Targets()
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
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
