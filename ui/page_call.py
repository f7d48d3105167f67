"""One tool call on the session page: a line that opens to its decision, diff, arguments and result.

Collapsed by default (HTML's own <details>, no script), so a long session's
page opens at once. The line says the tool, what it worked on, and the
decision in words and a mark as well as the console's colour: ✓ allowed,
? asked, ✗ denied. A Write or Edit shows the diff it made, as the journal
stored it; a call that never ran, failed, or comes from a session stored
before diffs were, shows the diff its arguments ask for, and says so.
"""

from __future__ import annotations

import json
from typing import Any

from session.journal import subject_of
from session.story_records import Call, Decision
from tools.preview import unified_diff
from ui.page_text import diff_block, preformatted, text

FILE_TOOLS = {"Write", "Edit"}


def verdict_class(decision: Decision | None) -> str:
    """The CSS class of a decision: allow, ask (the user was asked) or deny."""
    if decision is None:
        return "dim"
    if decision.decision != "allow":
        return "deny"
    return "ask" if decision.asked else "allow"


def verdict(decision: Decision | None) -> str:
    """The decision as marks and words (✓ allowed, ? ASKED, ✗ DENIED) as well as in its colour."""
    if decision is None:
        return '<span class="verdict dim">· no decision recorded</span>'
    asked = '<span class="verdict ask">? ASKED →</span> ' if decision.asked else ""
    said = ('<span class="verdict allow">✓ allowed</span>' if decision.decision == "allow"
            else '<span class="verdict deny">✗ NOT RUN</span>' if decision.left_with
            else '<span class="verdict deny">✗ DENIED</span>')
    by = f' <span class="{verdict_class(decision)}">{text(decision.by)}</span>' if decision.by else ""
    return asked + said + by


def decision_details(decision: Decision) -> str:
    """The hook, the rules, the token and the reason, as a definition list."""
    rows = [("decision", verdict(decision)), ("hook", text(decision.hook or "none objected"))]
    if decision.rules:
        rows.append(("rule", " · ".join(f"<code>{text(rule)}</code>" for rule in decision.rules)))
    if decision.token:
        rows.append(("token", f"<code>{text(decision.token)}</code>"))
    if decision.reason:
        rows.append(("reason", text(decision.reason)))
    if decision.agent:
        rows.append(("sub-agent", text(decision.agent)))
    return '<dl class="decision">' + "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows) + "</dl>"


def asked_diff(call: Call) -> str:
    """The diff a Write or Edit's arguments ask for, without the file around it."""
    args = call.argument_dict
    name = str(args.get("file_path", "file"))
    if call.name == "Edit":
        return unified_diff(str(args.get("old_string", "")), str(args.get("new_string", "")), name)
    return unified_diff("", str(args.get("content", "")), name)


def change_section(call: Call) -> str:
    """The diff of a Write or Edit, saying whether it is what the file went through."""
    if call.change:
        return "<h4>Diff it made</h4>" + diff_block(call.change)
    why = ("not run, so nothing changed; what it asked for" if not call.started
           else "what it asked for (no change was stored for this call)")
    return f"<h4>Diff: {why}</h4>" + diff_block(asked_diff(call))


def arguments_text(arguments: Any) -> str:
    """The arguments as indented JSON, or as they were sent when they are not JSON."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, indent=1, ensure_ascii=False)


def first_line(arguments: dict[str, Any]) -> str:
    """The first line of the first text argument (a plan's title), for calls /trace names no subject for."""
    value = next((value for value in arguments.values() if isinstance(value, str) and value.strip()), "")
    return subject_of({"description": value.strip().split("\n", 1)[0]})


def call_block(call: Call) -> str:
    """The call as one collapsed line that opens to everything about it."""
    subject = subject_of(call.argument_dict) or first_line(call.argument_dict)
    kind = verdict_class(call.decision)
    parts = [f'<details class="call {kind}" id="call-{call.number}"><summary>'
             f'<span class="tool">{text(call.name)}</span> '
             f'<span class="subject">{text(subject)}</span> {verdict(call.decision)}</summary><div>']
    if call.decision is not None and (call.decision.reason or call.decision.hook):
        parts.append("<h4>Decision</h4>" + decision_details(call.decision))
    if call.name in FILE_TOOLS and call.argument_dict:
        parts.append(change_section(call))
    parts.append("<h4>Arguments</h4>" + preformatted(arguments_text(call.arguments)))
    result = "(no result: the session ended first)" if call.result is None else call.result
    parts.append("<h4>Result</h4>" + preformatted(result, "result"))
    parts.append("</div></details>")
    return "".join(parts)
