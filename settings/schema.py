"""What a settings file says, in Claude Code's `hooks` and `permissions` schema:

  {"hooks": {"PreToolUse": [{"matcher": "Bash|Write",
                             "hooks": [{"type": "command", "command": "./check.sh", "timeout": 10}]}],
             "PostToolUse": [...], "UserPromptSubmit": [...], "Stop": [...], "SessionStart": [...]},
   "permissions": {"allow": ["Bash(git status:*)", "Read"], "ask": [...], "deny": ["Bash(rm:*)"]},
   "failClosedHooks": true}

The matcher is a regular expression on the tool name (SessionStart: on its source, startup,
resume or clear); empty or `*` matches everything, and a plain name (letters, digits, `_`,
`|`) must match whole. `timeout` is in seconds (default 60). `failClosedHooks` makes a
failing hook deny a call in every mode, not only while planning. The user's file may also
hold `workspaces`: per workspace, whether it is trusted and the rules kept for it.

Each entry that cannot be used is one problem line naming the file and where in it; the
rest of the file still counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from settings.files import SettingsFile
from settings.rules import KINDS, Kind, Rule, RuleError, parse_rule

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart")
DEFAULT_TIMEOUT = 60.0
PLAIN_MATCHER = re.compile(r"[\w|]+")


@dataclass(frozen=True)
class CommandHook:
    """One command hook: the event it runs on, its matcher, the command, and where it was set."""

    event: str
    matcher: str
    command: str
    timeout: float
    source: str

    @property
    def name(self) -> str:
        """How denials and /trace name it."""
        return f"{self.event} hook `{self.command}` ({self.source})"

    def matches(self, subject: str) -> bool:
        """Does the matcher cover this tool name (or SessionStart source)?"""
        if self.matcher in ("", "*"):
            return True
        if PLAIN_MATCHER.fullmatch(self.matcher):
            return subject in self.matcher.split("|")
        return re.search(self.matcher, subject) is not None


@dataclass(frozen=True)
class PermissionRule:
    """An allow, ask or deny rule and where it was set."""

    kind: Kind
    rule: Rule
    source: str

    @property
    def name(self) -> str:
        """How decisions and /trace name it: `deny rule Bash(rm:*) (project …/settings.json)`."""
        return f"{self.kind} rule {self.rule.text} ({self.source})"


@dataclass(frozen=True)
class Settings:
    """Hooks and rules from one or more files, with the problems met reading them."""

    hooks: tuple[CommandHook, ...] = ()
    rules: tuple[PermissionRule, ...] = ()
    fail_closed: bool = False
    problems: tuple[str, ...] = ()

    def __add__(self, other: "Settings") -> "Settings":
        return Settings(self.hooks + other.hooks, self.rules + other.rules,
                        self.fail_closed or other.fail_closed, self.problems + other.problems)


def parse_settings(file: SettingsFile, workspace_key: str = "") -> Settings:
    """The hooks and rules of one file.

    With `workspace_key`, also the rules the user's file keeps for that workspace.
    """
    if file.problem:
        return Settings(problems=(file.problem,))
    problems: list[str] = []
    hooks = _hooks(file.data.get("hooks", {}), file, problems)
    rules = _rules(file.data.get("permissions", {}), "permissions", file.label, file, problems)
    kept = file.data.get("workspaces", {}).get(workspace_key) if workspace_key else None
    if isinstance(kept, dict):
        rules += _rules(kept.get("permissions", {}), f"workspaces[{workspace_key!r}].permissions",
                        f"kept for this project in {file.path}", file, problems)
    fail_closed = file.data.get("failClosedHooks", False)
    if not isinstance(fail_closed, bool):
        problems.append(f"{file.path}: failClosedHooks must be true or false; taken as true.")
        fail_closed = True
    return Settings(tuple(hooks), tuple(rules), fail_closed, tuple(problems))


def _hooks(section: Any, file: SettingsFile, problems: list[str]) -> list[CommandHook]:
    if not isinstance(section, dict):
        problems.append(f"{file.path}: hooks must be an object of events; its hooks are ignored.")
        return []
    found = []
    for event, groups in section.items():
        where = f"{file.path}: hooks.{event}"
        if event not in EVENTS:
            problems.append(f"{where}: stepagent has no such event ({', '.join(EVENTS)}); ignored.")
            continue
        if not isinstance(groups, list):
            problems.append(f"{where} must be a list of {{matcher, hooks}}; ignored.")
            continue
        for number, group in enumerate(groups):
            found += _group(event, group, f"{where}[{number}]", file.label, problems)
    return found


def _group(event: str, group: Any, where: str, source: str, problems: list[str]) -> list[CommandHook]:
    matcher = group.get("matcher", "") if isinstance(group, dict) else None
    entries = group.get("hooks") if isinstance(group, dict) else None
    if not isinstance(matcher, str) or not isinstance(entries, list):
        problems.append(f"{where} must be {{\"matcher\": \"…\", \"hooks\": [...]}}; ignored.")
        return []
    try:
        re.compile(matcher)
    except re.error as exc:
        problems.append(f"{where}.matcher {matcher!r} is not a regular expression ({exc}); ignored.")
        return []
    found = []
    for number, entry in enumerate(entries):
        here = f"{where}.hooks[{number}]"
        if not isinstance(entry, dict) or entry.get("type", "command") != "command":
            problems.append(f"{here}: only {{\"type\": \"command\", \"command\": \"…\"}} hooks run here; ignored.")
            continue
        command, timeout = entry.get("command"), entry.get("timeout", DEFAULT_TIMEOUT)
        if not isinstance(command, str) or not command.strip():
            problems.append(f"{here} has no command; ignored.")
            continue
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < 86_400:
            problems.append(f"{here}.timeout must be a number of seconds; {DEFAULT_TIMEOUT:g} is used.")
            timeout = DEFAULT_TIMEOUT
        found.append(CommandHook(event, matcher, command, float(timeout), source))
    return found


def _rules(section: Any, key: str, source: str, file: SettingsFile,
           problems: list[str]) -> list[PermissionRule]:
    if not isinstance(section, dict):
        problems.append(f"{file.path}: {key} must be an object with allow, ask and deny lists; ignored.")
        return []
    found = []
    for kind in KINDS:
        texts = section.get(kind, [])
        if not isinstance(texts, list):
            problems.append(f"{file.path}: {key}.{kind} must be a list of rules; ignored.")
            continue
        for text in texts:
            try:
                found.append(PermissionRule(kind, parse_rule(text), source))
            except RuleError as exc:
                problems.append(f"{file.path}: {key}.{kind}: {exc}; ignored.")
    return found
