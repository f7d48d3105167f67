"""Agent: hand a task to a sub-agent, which works on its own and answers once.

This file is the model-facing side: the schema, the description, and turning
the sub-agent's report into one tool result (its final answer, capped). The
sub-agent itself is built and run by agent/subagents.py, injected as `run`.

Agent is allowed while planning because a sub-agent inherits plan mode: it runs
under the same guard and sandbox as its parent, and has no tool that could
leave plan mode (see SUBAGENT_EXCLUDED). Its calls of one reply may run side by
side (`concurrent`), at most three at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from tools.base import Tool, ToolResult, error, object_schema
from tools.plan_mode import ENTER_PLAN_MODE, EXIT_PLAN_MODE

SUBAGENT_TYPES = ("explore", "general")
SUBAGENT_EXCLUDED = frozenset({ENTER_PLAN_MODE, EXIT_PLAN_MODE, "AskUserQuestion", "Agent"})
MAX_ANSWER = 20_000
DESCRIPTION = (
    "Start a sub-agent for a self-contained task and get its final answer back. It starts with "
    "an empty conversation, so the prompt must say everything it needs: the goal, what is known, "
    "and what to report. subagent_type 'explore' researches read-only (reading, searching, "
    "read-only commands) in every mode; 'general' may also change things when you may. A "
    "sub-agent works in plan mode whenever you do. Several Agent calls in one reply run at the "
    "same time (at most 3 at once), so send independent research tasks together. Optional "
    "model: a model id of this endpoint for the sub-agent (ListModels shows them).")
PARAMETERS = object_schema(
    {"description": {"type": "string", "minLength": 1,
                     "description": "A few words naming the task, shown to the user."},
     "prompt": {"type": "string", "minLength": 1, "description": "The whole task."}},
    {"subagent_type": {"type": "string", "enum": list(SUBAGENT_TYPES),
                       "description": "explore (read-only, the default) or general."},
     "model": {"type": "string", "minLength": 1}})


@dataclass(frozen=True)
class SubAgentTask:
    """What the model asked a sub-agent to do."""

    description: str
    prompt: str
    subagent_type: str = "explore"
    model: str | None = None

    @property
    def label(self) -> str:
        """How the user sees this sub-agent: its type and description."""
        return f"{self.subagent_type}: {self.description}"


@dataclass(frozen=True)
class SubAgentReport:
    """How a sub-agent's run ended ("left": the user left its question): its answer, or why there is none."""

    ending: str
    answer: str = ""
    problem: str = ""
    tool_calls: int = 0


def make_agent_tool(run: Callable[[SubAgentTask], SubAgentReport]) -> Tool:
    """The Agent tool; `run` builds and runs the sub-agent."""
    def start(args: dict[str, Any]) -> ToolResult:
        task = SubAgentTask(args["description"].strip(), args["prompt"],
                            args.get("subagent_type", "explore"), args.get("model"))
        report = run(task)
        if report.ending == "left":  # the user left its question: the parent's turn ends too
            return ToolResult(f"The sub-agent ({task.label}) stopped: {report.problem}", is_error=True,
                              end_turn=True)
        if report.ending != "answered":
            return error(f"The sub-agent ({task.label}) gave no answer: "
                         f"{report.problem or report.ending}.")
        return ToolResult(cap(report.answer) or "(the sub-agent answered with no text)")

    return Tool("Agent", DESCRIPTION, PARAMETERS, start, allowed_in_plan_mode=True, concurrent=True)


def cap(answer: str) -> str:
    """The answer, cut at MAX_ANSWER characters with a note saying so."""
    if len(answer) <= MAX_ANSWER:
        return answer
    return f"{answer[:MAX_ANSWER]}\n… the answer was cut at {MAX_ANSWER} of {len(answer)} characters."
