"""The system prompt: line 1 of plan mode's defence, the soft one.

It is built fresh from its sections for every request, never patched in place,
so entering and leaving plan mode any number of times leaves it exactly as it
started (failure mode 1, step42_plan_mode/failure_modes.md). While planning,
the plan-mode section comes first, where it weighs most. Each section is a
function of the context. SECTIONS are the core's; the agent keeps its own list
(`Agent.sections`), a seam where a layer adds a section (memory adds its index,
tools/memory.py) rather than touching the loop or this file.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

from state import AppState
from tools.plan_mode import full_instructions

PLAN_HEADING = "# Plan Mode (ACTIVE)\n"


@dataclass(frozen=True)
class PromptContext:
    """What the sections may read: the state, the workspace and the tool names."""

    state: AppState
    workspace: Path
    tool_names: tuple[str, ...]


Section = Callable[[PromptContext], Optional[str]]


def plan_mode_section(context: PromptContext) -> str | None:
    """While planning: the plan-mode instructions, placed first."""
    return PLAN_HEADING + full_instructions() if context.state.plan_mode else None


def identity_section(context: PromptContext) -> str:
    """Who the agent is and where it works."""
    return f"""You are stepagent, a coding agent working in the repository at {context.workspace}.
Work step by step: look before you change, keep changes small, and say what you did.
For non-trivial changes (a new feature, a refactor, several files, an unclear request) call EnterPlanMode first and plan before acting."""


def tools_section(context: PromptContext) -> str:
    """The tools by name, and how paths are read."""
    return ("Tools available: " + ", ".join(context.tool_names) +
            ". Paths are relative to the workspace. Prefer Read/Glob/Grep over Bash for reading.")


def environment_section(context: PromptContext) -> str:
    """The operating system and the workspace."""
    return f"Environment: {platform.system()} {platform.machine()}, workspace {context.workspace}."


SECTIONS: tuple[Section, ...] = (plan_mode_section, identity_section, tools_section,
                                 environment_section)


def build_system_prompt(context: PromptContext, sections: Sequence[Section] = SECTIONS) -> str:
    """Every section that has something to say, in order, joined by blank lines."""
    return "\n\n".join(text for section in sections if (text := section(context)))
