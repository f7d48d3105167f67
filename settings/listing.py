"""/hooks and /permissions: the hooks and rules in effect, each with its file and event.

Plain lines for the UI to show (it passes them through the sanitiser: a settings file
is text from a repository like any other).
"""

from __future__ import annotations

from typing import Iterable

from settings.schema import CommandHook, Settings
from settings.rules import KINDS


def hook_lines(in_effect: Settings, waiting: Settings) -> list[str]:
    """Every hook in effect: event, matcher, command, timeout and file; then those awaiting trust."""
    if not in_effect.hooks and not waiting.hooks:
        return ["No hooks. Add them to $STEPAGENT_HOME/settings.json or .stepagent/settings.json "
                "(Claude Code's \"hooks\" schema; README.md shows one)."]
    lines = [f"Hooks in effect ({len(in_effect.hooks)}):"] if in_effect.hooks else ["No hooks in effect."]
    lines += [hook_entry(hook) for hook in in_effect.hooks]
    if waiting.hooks:
        lines += ["Off until you trust this workspace:", *(hook_entry(hook) for hook in waiting.hooks)]
    return lines


def hook_entry(hook: CommandHook) -> str:
    """One hook on one line: event, matcher, command (its line breaks shown as ␊), timeout, file.

    A command padded with line breaks would otherwise draw a screenful of blank lines, and a
    listing the user approves (the trust question) would show only its tail."""
    command = hook.command.replace("\n", "\u240a")
    return (f"  {hook.event:16} {hook.matcher or '*':14} {command}  "
            f"(timeout {hook.timeout:g} s; {hook.source})")


def rule_lines(in_effect: Settings, waiting: Settings, answered: Iterable[tuple[str, str]]) -> list[str]:
    """Every rule in effect, deny first (the order they are consulted in), with where it was set.

    `answered` are the "don't ask again" answers of this session: each rule and where it is kept.
    """
    kept = list(answered)
    if not in_effect.rules and not waiting.rules and not kept:
        return ["No permission rules. Add them to $STEPAGENT_HOME/settings.json or "
                ".stepagent/settings.json ({\"permissions\": {\"allow\": [...], \"ask\": [...], "
                "\"deny\": [...]}}), or answer a question with a \"don't ask again\"."]
    lines = ["Rules in effect (deny first, then ask, then allow; plan mode is decided before any):"]
    for kind in KINDS:
        lines += [f"  {kind:5}  {rule.rule.text:28} {rule.source}" for rule in in_effect.rules
                  if rule.kind == kind]
        if kind == "allow":
            lines += [f"  allow  {label:28} {where}" for label, where in kept]
    if waiting.rules:
        lines.append("Off until you trust this workspace:")
        lines += [f"  {rule.kind:5}  {rule.rule.text:28} {rule.source}" for rule in waiting.rules]
    return lines
