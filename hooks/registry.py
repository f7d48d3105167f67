"""The PreToolUse registry: every tool call passes here before its handler runs.

A hook's contract fits in one sentence: return nothing to let the call pass,
return a reason to stop it. What a reason means is the hook's `decision`:
"deny" ends the call with the reason as its tool result; "ask" puts the reason
to the user as a yes/no question. Deny hooks always run before ask hooks, so a
user's "yes" can never override a denial. A hook may answer with a Verdict: an ask hook's
"allow" (no question needed) ends the ask hooks only; a deny hook's counts only if it denies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Literal

from state import StateView
from tools.base import Judgement, Tool

Decision = Literal["deny", "ask"]


@dataclass(frozen=True)
class ToolCallEvent:
    """What a hook sees: the tool, its validated arguments and the session state."""

    tool: Tool
    args: dict[str, Any]
    state: StateView

    @cached_property
    def judgement(self) -> Judgement:
        """Can this call change anything? Asked of the tool once per call, whoever asks first."""
        return self.tool.judge_call(self.args)


@dataclass(frozen=True)
class Hook:
    """A registered hook: its name (shown in denials), the callback, and what its reason means."""

    name: str
    callback: Callable[[ToolCallEvent], str | Verdict | None]
    decision: Decision


@dataclass(frozen=True)
class Verdict:
    """The registry's answer for one call: allow, or which hook said what."""

    decision: Literal["allow", "deny", "ask"]
    hook: str = ""
    reason: str = ""


@dataclass
class HookRegistry:
    """The PreToolUse hooks, asked in a fixed order: every deny hook, then every ask hook."""

    hooks: list[Hook] = field(default_factory=list)

    def on_pre_tool_use(self, name: str, callback: Callable[[ToolCallEvent], str | Verdict | None],
                        decision: Decision = "deny", before: str = "") -> None:
        """Register a hook, just before the one named `before` if any; its reason denies or asks."""
        place = next((i for i, hook in enumerate(self.hooks) if hook.name == before), len(self.hooks))
        self.hooks.insert(place, Hook(name, callback, decision))

    def check(self, event: ToolCallEvent) -> Verdict:
        """The first reason from a deny hook, else from an ask hook, else allow."""
        return self.first(event, "deny") or self.first(event, "ask") or Verdict("allow")

    def first(self, event: ToolCallEvent, decision: Decision) -> Verdict | None:
        """The first reason from the hooks of this decision, in order; None if they let it pass."""
        for hook in self.hooks:
            if hook.decision != decision:
                continue
            answer = hook.callback(event)
            if isinstance(answer, Verdict):
                if answer.decision == "deny" or decision == "ask":
                    return answer
            elif answer:
                return Verdict(decision, hook.name, answer)
        return None
