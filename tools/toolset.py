"""The tool set of a session, built in one place so index.py, sub-agents and tests agree.

The UI callbacks a tool needs (ExitPlanMode's `present`, AskUserQuestion's
`ask`) come in from the caller, and so do stepagent's home, where the memory
tools keep their files, the model's catalog reader for ListModels, and the
sub-agent runner (the Agent tool's `run_subagent`). Without `run_subagent`
there is no Agent tool: that is a sub-agent's own tool set, before
SUBAGENT_EXCLUDED is taken out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from models.catalog import ModelInfo
from state import AppState
from tools.agent_tool import SubAgentReport, SubAgentTask, make_agent_tool
from tools.ask_user import Answers, Questionnaire, make_ask_tool
from tools.base import Tool
from tools.bash.classifier.classify import classify
from tools.bash.tool import make_bash_tool
from tools.files import make_file_tools
from tools.judgement import Judgement
from tools.list_models import make_list_models_tool
from tools.memory import make_memory_tools
from tools.memory_files import MemoryFolder
from tools.plan_mode import PlanReview, make_plan_mode_tools
from tools.search import make_search_tools
from tools.todos import make_todo_tools


def build_tools(workspace: Path, state: AppState, present: Callable[[str], PlanReview],
                bash_classifier: Callable[[str], Judgement] = classify,
                home: Path | None = None,
                list_models: Callable[[], list[ModelInfo]] | None = None,
                model_name: Callable[[], str] = lambda: "",
                ask: Callable[[Questionnaire], Answers] | None = None,
                ask_timeout: float | None = None,
                run_subagent: Callable[[SubAgentTask], SubAgentReport] | None = None,
                ) -> dict[str, Tool]:
    """Every tool of a session; the memory tools only when stepagent has a home to keep them in.

    `list_models` reads the endpoint's catalog for ListModels; `model_name` is the session's model.
    """
    tools = [*make_file_tools(workspace), *make_search_tools(workspace),
             make_bash_tool(workspace, state, bash_classifier),
             *make_plan_mode_tools(workspace, state, present), *make_todo_tools(state),
             make_list_models_tool(list_models, model_name), make_ask_tool(state, ask, ask_timeout)]
    if home is not None:
        tools += make_memory_tools(MemoryFolder(home, workspace), state)
    if run_subagent is not None:
        tools.append(make_agent_tool(run_subagent))
    return {tool.name: tool for tool in tools}
