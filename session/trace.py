"""/trace: the session's audit trail as lines, from the journal's audit entries.

Mode changes, the plan model's changes, sub-agents, the user's plan reviews (each
naming the revision by the digest of the text shown) and every hook's decision,
with a denial's reason wrapped below it.
"""

from __future__ import annotations

import re
import textwrap

from agent.events import mode_label
from agent.executor import LEFT_QUESTION, NOBODY_TO_ASK, UNANSWERED
from tools.base import counted

TRACE_WIDTH = 100
TOOL_COLUMN = 14
REASON_INDENT = " " * 6


def trace_lines(audit: list[dict], requests: int, calls: int) -> list[str]:
    """The audit trail as /trace prints it: mode changes and every hook's decision.

    One line per decision (✓ or ✗, the tool, who decided, what the call worked on),
    a denial's reason wrapped and indented below it.
    """
    lines = [f"{counted(requests, 'model request')} and "
             f"{counted(calls, 'tool call')} in this run:"]
    tools = [len(entry["tool"]) for entry in audit if entry["kind"] == "hook"]
    width = max([TOOL_COLUMN, *(length + 2 for length in tools)])
    for entry in audit:
        if entry["kind"] == "mode":
            label = mode_label(entry["plan_mode"], entry["permission_mode"])
            lines.append(f"  ◆ mode → {label:5} (by {entry['cause']})")
        elif entry["kind"] == "plan_model":
            lines.append(f"  ◆ plan model → {entry['name'] or 'off'} (by {entry['cause']})")
        elif entry["kind"] == "subagent":
            lines.append("  ◇ " + _subagent_line(entry))
        elif entry["kind"] == "review":
            lines.append(_review_line(entry))
        else:
            lines.extend(_decision_lines(entry, width))
    return lines


def _decision_lines(entry: dict, width: int) -> list[str]:
    """A decision's line, its tool name in a column `width` wide; a denial's reason below it."""
    denied = entry["decision"] != "allow"
    verb = "denied" if denied else "allowed"
    if entry.get("left_with"):
        verb = LEFT_QUESTION.format(entry["left_with"])
    elif entry["asked"]:
        verb += " by you"
    elif entry["hook"] == UNANSWERED:
        verb = NOBODY_TO_ASK
    elif entry["hook"]:
        verb += f" by {entry['hook']}"
    subject = f" · {entry['subject']}" if entry.get("subject") else ""
    agent = f"  (sub-agent {entry['agent']})" if entry.get("agent") else ""
    lines = [f"  {'✗' if denied else '✓'} {entry['tool']:{width}}{verb}{subject}{agent}"]
    if denied and entry.get("reason"):
        reason = re.sub(r"^\(rule: ([^)]*)\): ", r"rule \1: ",
                        entry["reason"].removeprefix(f"Denied by {entry['hook']} "))
        lines.extend(textwrap.wrap(reason, TRACE_WIDTH, initial_indent=REASON_INDENT,
                                   subsequent_indent=REASON_INDENT))
    return lines


def _review_line(entry: dict) -> str:
    """Your review, naming the revision by the first digits of the SHA-256 of the text you saw."""
    if "digest" not in entry:  # a session stored before revisions were kept
        return f"      your review: {entry['outcome']}"
    return (f"      your review of plan revision {entry['revision']} (sha256 {entry['digest'][:12]}): "
            f"{entry['outcome']}")


def _subagent_line(entry: dict) -> str:
    if entry["phase"] == "started":
        return f"sub-agent {entry['agent']} started{' in plan mode' if entry['plan_mode'] else ''}"
    return (f"sub-agent {entry['agent']} {entry['ending']}: {counted(entry['tool_calls'], 'tool call')}, "
            f"{counted(entry['requests'], 'model request')}, {entry['seconds']:.1f} s")
