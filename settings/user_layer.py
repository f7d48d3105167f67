"""The user's hooks and rules as a layer: one registry, the lesson's, opened to the user.

`user_rules_layer` puts them on the PreToolUse registry (hooks/registry.py) in the order
the design fixes, and on the executor's seam after each call:

  schema (the executor) → deny hooks: the plan-mode guard, then the deny rules
                        → ask hooks: the user's PreToolUse hooks and the ask / allow rules,
                          then the permission mode's question
                        → handler → the PostToolUse hooks

The plan-mode guard is registered by the core and runs first; what this layer adds can only
deny more, ask more, or say a question is not needed (a hook's allow, an allow rule). An
allow ends the ask hooks only, never the deny hooks, so nothing here can lift a plan-mode
denial or a deny rule, in any mode, yolo included. Sub-agents get this layer too: their
calls meet the same rules and hooks.

`user_events_layer` (the main agent only) hangs the other events on the loop's seams:
UserPromptSubmit and SessionStart on `admit` (the user's text before it is sent), Stop on
`before_stop` (the model's answer before the turn ends; at most MAX_STOP_BLOCKS times in a
row, then the turn ends anyway).
"""

from __future__ import annotations

import dataclasses

from agent.loop import Agent, TurnEnded
from hooks.registry import ToolCallEvent, Verdict
from hooks.session_rules import AllowRule, SessionRules, rules_of
from settings.files import SettingsUnwritable
from settings.trust import keep_rule
from settings.user_hooks import UserHooks
from tools.base import ToolResult

DENY_RULES = "deny-rules"
USER_HOOKS = "user-hooks"
MAX_STOP_BLOCKS = 3
CONTEXT_HEADING = "[Context from your hooks]"


def user_rules_layer(agent: Agent, hooks: UserHooks) -> None:
    """The layer: the user's rules and tool hooks on the registry and after each call.

    Deny rules after the plan-mode guard; the user's hooks and ask/allow rules before the
    permission question; PostToolUse after each call; kept rules written to the user's settings.
    """
    registry = agent.executor.hooks
    registry.on_pre_tool_use(DENY_RULES, lambda event: deny_rule(hooks, event), "deny")
    registry.on_pre_tool_use(USER_HOOKS, lambda event: user_decision(hooks, event), "ask",
                             before="permission-mode")
    agent.executor.after_call.append(lambda event, result: post_tool_use(hooks, event, result))
    agent.executor.ask = KeptRules(rules_of(agent.executor).rules, hooks)


def deny_rule(hooks: UserHooks, event: ToolCallEvent) -> Verdict | None:
    """The denial of the first deny rule that covers the call, in the rule's name."""
    rule = hooks.rule("deny", event.tool.name, event.args)
    if rule is None:
        return None
    return Verdict("deny", rule.name, f"Denied by {rule.name}. Nothing was run. The user does not "
                   "allow this; do not try it another way.")


def user_decision(hooks: UserHooks, event: ToolCallEvent) -> Verdict | None:
    """The user's hooks, then their ask and allow rules: deny, ask, allow (no question), or none."""
    tool, args = event.tool.name, event.args
    ruling = hooks.pre_tool_use(tool, args, event.state)
    if ruling.verdict == "deny":
        return Verdict("deny", ruling.by, ruling.reason)
    if ruling.verdict == "ask":
        return Verdict("ask", ruling.by, ruling.reason or f"{ruling.by} asks before {tool}. Allow it?")
    asked = hooks.rule("ask", tool, args)
    if asked is not None:
        return Verdict("ask", asked.name, f"Your {asked.name} asks before this {tool} call. Allow it?")
    if ruling.verdict == "allow":
        return Verdict("allow", ruling.by, ruling.reason)
    allowed = hooks.rule("allow", tool, args)
    return Verdict("allow", allowed.name, "") if allowed is not None else None


def post_tool_use(hooks: UserHooks, event: ToolCallEvent, result: ToolResult) -> ToolResult:
    """The result, with what the PostToolUse hooks tell the model after it."""
    feedback = hooks.post_tool_use(event.tool.name, event.args, result.content, result.is_error, event.state)
    if not feedback:
        return result
    return dataclasses.replace(result, content=f"{result.content}\n\n{feedback}")


class KeptRules(SessionRules):
    """The session's rules, with those kept for a project or every project written down.

    They go to the user's settings (settings/trust.py), so they hold in later sessions too.
    """

    def __init__(self, rules: list[AllowRule], hooks: UserHooks):
        super().__init__(rules)
        self.hooks = hooks

    def add(self, rule: AllowRule) -> None:
        """Remember a rule for the session, and keep it past the session if it says so."""
        super().add(rule)
        if rule.kept == "session":
            return
        try:
            keep_rule(self.hooks.home, self.hooks.workspace, "project" if rule.kept == "project" else "user",
                      rule.label)
        except SettingsUnwritable as failure:
            self.hooks.notify(f"{failure}; {rule.label} holds for this session only.")


def user_events_layer(agent: Agent, hooks: UserHooks) -> None:
    """UserPromptSubmit and SessionStart before the user's text is sent, Stop before a turn ends."""
    started: dict[str, str] = {}
    blocks = [0]

    def admit(text: str) -> str:
        view = agent.state.view()
        refused, context = hooks.user_prompt(text, view)
        if refused:
            raise TurnEnded("refused", error=refused)
        if view.session_id not in started:
            source = "resume" if agent.messages else ("clear" if started else "startup")
            started[view.session_id] = source
            context = "\n".join(filter(None, [hooks.session_start(source, view), context]))
        blocks[0] = 0
        return f"{text}\n\n{CONTEXT_HEADING}\n{context}" if context else text

    def before_stop(answer: str) -> str:
        if blocks[0] >= MAX_STOP_BLOCKS:
            return ""
        reason = hooks.stop(agent.state.view(), active=blocks[0] > 0)
        blocks[0] += bool(reason)
        return reason

    agent.admit.append(admit)
    agent.before_stop.append(before_stop)

