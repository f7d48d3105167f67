"""The system prompt: line 1 of plan mode's defence, the soft one.

It is built fresh from its sections for every request, never patched in place,
so entering and leaving plan mode any number of times leaves it exactly as it
started (failure mode 1). While planning, the plan-mode section comes first,
where it weighs most. Each section is a function of the context: a new feature
adds a section here rather than touching the loop.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from state import AppState


@dataclass(frozen=True)
class PromptContext:
    state: AppState
    workspace: Path
    tool_names: tuple[str, ...]


def plan_mode_section(context: PromptContext) -> str | None:
    if not context.state.plan_mode:
        return None
    return """# Plan Mode (ACTIVE)
The user wants a plan before any change. You may only research: do not edit files, run commands that change anything, commit, or change configuration. Calls that could change the system are denied.
- Research with read-only tools: Read, Glob, Grep, and Bash only for read-only commands (ls, cat, grep, git status/log/diff/show…).
- Then call ExitPlanMode with a concise, step-by-step plan in markdown and wait for the user's review.
- Never ask "is this plan OK?" in prose: ExitPlanMode is how the user sees and approves a plan.
- If the user rejects the plan, wait for them to speak before presenting again.
- The user can also leave plan mode themselves (/mode or Shift+Tab); you will be told when that happens."""


def identity_section(context: PromptContext) -> str:
    return f"""You are stepagent, a coding agent working in the repository at {context.workspace}.
Work step by step: look before you change, keep changes small, and say what you did.
For non-trivial changes (a new feature, a refactor, several files, an unclear request) call EnterPlanMode first and plan before acting."""


def tools_section(context: PromptContext) -> str:
    return ("Tools available: " + ", ".join(context.tool_names) +
            ". Paths are relative to the workspace. Prefer Read/Glob/Grep over Bash for reading.")


def environment_section(context: PromptContext) -> str:
    return f"Environment: {platform.system()} {platform.machine()}, workspace {context.workspace}."


SECTIONS: list[Callable[[PromptContext], str | None]] = [
    plan_mode_section, identity_section, tools_section, environment_section]


def build_system_prompt(context: PromptContext) -> str:
    return "\n\n".join(text for section in SECTIONS if (text := section(context)))
