"""The Bash hardening layer: one function that puts the hardened Bash in place of the core's.

With it, each command is judged by the read-only classifier (classifier/), once
per call, and a command decided while planning runs in the OS sandbox
(sandbox/); without it, the core's plain Bash (tools/plain_bash.py) has no
judge, so plan mode denies every command. Stopping what earlier calls left
running when plan mode begins is its companion layer (stop_left_running.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from tools.bash.classifier.classify import classify
from tools.bash.tool import make_bash_tool
from tools.base import Judgement

if TYPE_CHECKING:
    from agent.loop import Agent


def bash_layer(agent: "Agent", classifier: Callable[[str], Judgement] = classify) -> None:
    """The agent's Bash judged by `classifier` and sandboxed while planning."""
    agent.executor.tools["Bash"] = make_bash_tool(agent.workspace, agent.state, classifier)
