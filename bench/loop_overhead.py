"""Harness overhead per model round trip, on a 200-step scripted session.

The model answers instantly and the tool does nothing, so what is left is the
loop itself: building the prompt and tool schemas, the preparers (reminders,
the compaction estimate), argument parsing and validation, the hooks, and the
history. No session store is attached (bench/session_state.py measures it).
Target: ≤ 2 ms per round trip.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import ROOT, verdict  # noqa: F401  (ROOT puts the project on sys.path)

from agent.assemble import assemble
from models.scripted import ScriptedModel
from state import AppState
from tools.base import Tool, ToolResult, object_schema
from tools.plan_mode import PlanReview

STEPS = 200
TARGET = 0.002


def run(plan_mode: bool, workspace: Path) -> float:
    """Seconds per round trip over one scripted session of STEPS steps."""
    state = AppState()
    if plan_mode:
        state.enter_plan_mode("bench")
    turns = [{"text": "step", "tool_calls": [{"name": "Noop", "arguments": {"n": i}}]}
             for i in range(STEPS - 1)] + [{"text": "done"}]
    agent = assemble(workspace, state, ScriptedModel(turns), lambda plan: PlanReview("reject"),
                     lambda request: True)
    agent.max_steps = STEPS
    agent.executor.tools["Noop"] = Tool("Noop", "does nothing", object_schema({"n": {"type": "integer"}}),
                                        lambda args: ToolResult("ok"), read_only=True)
    start = time.perf_counter()
    outcome = agent.run_turn("go")
    elapsed = time.perf_counter() - start
    if outcome.ending != "answered":
        raise SystemExit(f"the scripted session ended early ({outcome.ending}); no figure")
    return elapsed / STEPS


def main() -> None:
    for plan_mode in (False, True):
        with tempfile.TemporaryDirectory(prefix="stepagent-bench-loop-") as workspace:
            per_step = min(run(plan_mode, Path(workspace)) for _ in range(3))
        print(f"harness overhead per round trip ({'plan' if plan_mode else 'build'} mode, "
              f"{STEPS} steps): {per_step * 1000:.3f} ms {verdict(per_step, TARGET, '2 ms')}")


if __name__ == "__main__":
    main()
