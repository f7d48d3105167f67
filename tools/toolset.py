"""The tool set of a session, built in one place so index.py and tests agree.

The UI callbacks a tool needs (ExitPlanMode's `present`) come in from the caller,
and so does stepagent's home, where the memory tools keep their files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from state import AppState
from tools.base import Tool
from tools.bash.classifier.classify import classify
from tools.bash.tool import make_bash_tool
from tools.files import make_file_tools
from session.memory import MemoryFolder
from tools.judgement import Judgement
from tools.memory import make_memory_tools
from tools.plan_mode import PlanReview, make_plan_mode_tools
from tools.search import make_search_tools
from tools.todos import make_todo_tools


def build_tools(workspace: Path, state: AppState, present: Callable[[str], PlanReview],
                bash_classifier: Callable[[str], Judgement] = classify,
                home: Path | None = None) -> dict[str, Tool]:
    """Every tool of a session; the memory tools only when stepagent has a home to keep them in."""
    tools = [*make_file_tools(workspace), *make_search_tools(workspace),
             make_bash_tool(workspace, state, bash_classifier),
             *make_plan_mode_tools(workspace, state, present), *make_todo_tools(state)]
    if home is not None:
        tools += make_memory_tools(MemoryFolder(home, workspace), state)
    return {tool.name: tool for tool in tools}
