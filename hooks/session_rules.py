""""Yes, and don't ask again": the allow rules a user adds by answering, and where each is kept.

A layer (`session_rules_layer`): the session's rules become the executor's `ask`, so
a question a rule covers is answered by it, and the question the user is asked
offers the rule a yes may add.

A rule names a tool (every Write), or for Bash a command prefix (`git commit`).
Rules are consulted only when an ask hook asks, never before the deny hooks, so
no rule can let a call through while planning (failure mode 3,
step42_plan_mode/failure_modes.md): the plan-mode guard denies first, and a
denial is final.

A prefix rule matches a simple command only: `git commit -m x`, not
`git commit; rm -rf x`. Anything with shell syntax that chains, substitutes or
redirects is asked again, so a prefix can never hide a second command.
A rule says where it is kept (`kept`): the session, or (by a layer, settings/user_layer.py) a project or all.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from typing import Any

from agent.approval import Keeper, as_answer
from agent.executor import Executor, answered, question
from agent.loop import Agent
from hooks.registry import Verdict
from tools.base import Tool

KEPT_WHERE = {"session": "this session", "project": "this project", "user": "every project"}
SESSION_RULE = "session-rule"  # the hook name a decision made by (or adding) a rule carries
SHELL_SYNTAX = re.compile(r"[;&|`$<>(){}\n\r\\*?~#!]|\[")
TWO_WORD_PROGRAMS = {"git", "npm", "pnpm", "yarn", "cargo", "pip", "pip3", "uv", "poetry", "docker",
                     "kubectl", "go", "make", "python", "python3", "dotnet", "gh", "bundle", "rails"}


@dataclass(frozen=True)
class AllowRule:
    """Allow every call of `tool`, or for Bash every simple command starting with `prefix`."""

    tool: str
    prefix: tuple[str, ...] = ()
    kept: Keeper = "session"

    @property
    def label(self) -> str:
        """The rule as the user reads it and settings files hold it: `Write`, `Bash(git commit:*)`."""
        return f"{self.tool}({shlex.join(self.prefix)}:*)" if self.prefix else self.tool

    def matches(self, tool: str, args: dict[str, Any]) -> bool:
        """Does this rule cover this call?"""
        if tool != self.tool:
            return False
        if not self.prefix:
            return True
        words = simple_words(str(args.get("command", "")))
        return words is not None and tuple(words[:len(self.prefix)]) == self.prefix


def simple_words(command: str) -> list[str] | None:
    """The words of a command with no shell syntax beyond quoting, else None."""
    if SHELL_SYNTAX.search(command):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or "=" in words[0]:
        return None
    return words


def offered_rule(tool: str, args: dict[str, Any]) -> AllowRule | None:
    """The rule a "don't ask again" answer would add for this call, or None if none is safe."""
    if tool != "Bash":
        return AllowRule(tool)
    words = simple_words(str(args.get("command", "")))
    if not words:
        return None
    size = 2 if words[0] in TWO_WORD_PROGRAMS and len(words) > 1 and not words[1].startswith("-") else 1
    return AllowRule(tool, tuple(words[:size]))


@dataclass
class SessionRules:
    """The rules added this session, newest last; as the executor's `ask`, it answers from them."""

    rules: list[AllowRule] = field(default_factory=list)

    def add(self, rule: AllowRule) -> None:
        """Remember a rule (once)."""
        if rule not in self.rules:
            self.rules.append(rule)

    def forget(self) -> list[AllowRule]:
        """Drop the rules kept for this session only (a restarted lesson asks again); returns them.

        A rule written to a settings file (p, u) stays, as the file's own rules do."""
        dropped = [rule for rule in self.rules if rule.kept == "session"]
        self.rules = [rule for rule in self.rules if rule.kept != "session"]
        return dropped

    def matching(self, tool: str, args: dict[str, Any]) -> AllowRule | None:
        """The first rule that covers this call, if any."""
        return next((rule for rule in self.rules if rule.matches(tool, args)), None)

    def __call__(self, executor: Executor, tool: Tool, args: dict[str, Any],
                 verdict: Verdict) -> tuple[Verdict, bool]:
        """A rule's yes, or the user's answer to a question offering one; True when they were asked."""
        rule = self.matching(tool.name, args)
        if rule is not None:
            return Verdict("allow", SESSION_RULE, f"your rule {rule.label} ({KEPT_WHERE[rule.kept]})"), False
        offered = offered_rule(tool.name, args)
        request = replace(question(tool, args, verdict), rule=offered.label if offered else "")
        answer = as_answer(executor.approve(request))
        if answer.allow and answer.remember and offered is not None and not answer.unanswered:
            rule = replace(offered, kept=answer.kept)
            self.add(rule)
            return Verdict("allow", SESSION_RULE, f"your new rule {rule.label} ({KEPT_WHERE[rule.kept]})"), True
        return answered(answer, verdict)


def session_rules_layer(agent: Agent) -> None:
    """The layer: the executor asks through the session's rules."""
    agent.executor.ask = SessionRules()


def rules_of(executor: Executor) -> SessionRules:
    """The rules the executor asks through (none without the layer)."""
    return executor.ask if isinstance(executor.ask, SessionRules) else SessionRules()
