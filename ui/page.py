"""/export --html: a session as one self-contained HTML page, to look at what happened.

The page is drawn from the session's story (session/story.py): a header with
the session's facts, the timeline (tokens per turn, plan mode's spans and
reviews; ui/page_timeline.py), every plan revision with its diff against the
one before and the feedback that led to it, every hook decision in a table,
the todo lists as they changed, the files Write and Edit changed, and the
conversation turn by turn with each tool call collapsed (ui/page_call.py).

Self-contained and inert: one inline stylesheet and one inline script, both
admitted by hash in a Content-Security-Policy that allows nothing else (no
other script, no load from anywhere, no form, no base URL). All session text
is escaped (ui/page_text.py). Calls are closed <details>, and off-screen turns
are not laid out (content-visibility), so a long session opens at once; the
script only opens and closes calls on a click, and for printing.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any, Iterator

from session.story import Call, Decision, Revision, Story, Turn
from tools.base import counted
from tools.preview import unified_diff
from ui.page_call import call_block, verdict, verdict_class
from ui.page_text import diff_block, preformatted, text
from ui.page_timeline import review_mark, timeline_svg

PAGE_MARK = "<!DOCTYPE html>\n<!-- stepagent session page -->\n"
HERE = Path(__file__).resolve().parent
TODO_MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}
PROMPT_SHOWN = 90


def source_hash(source: str) -> str:
    """The CSP hash source for an inline <style> or <script> with exactly this content."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


def content_policy(style: str, script: str) -> str:
    """Nothing may load or run but the page's own stylesheet and script."""
    return (f"default-src 'none'; style-src {source_hash(style)}; script-src {source_hash(script)}; "
            "base-uri 'none'; form-action 'none'")


def short(value: str, width: int = PROMPT_SHOWN) -> str:
    """One line of at most `width` characters."""
    line = " ".join(value.split())
    return line if len(line) <= width else line[:width - 1] + "…"


def _planned_turns(story: Story) -> set[int]:
    return {number for span in story.spans for number in range(span.first_turn, span.last_turn + 1)}


def _decided(story: Story) -> Iterator[tuple[Turn, Decision, Call | None]]:
    for turn in story.turns:
        for kind, item in turn.items:
            if kind == "call" and item.decision is not None:
                yield turn, item.decision, item
            elif kind == "decision":
                yield turn, item, None


def header(story: Story, workspace: str) -> str:
    verdicts = [verdict_class(decision) for _, decision, _ in _decided(story)]
    counts = ", ".join(f"{verdicts.count(kind)} {word}" for kind, word in
                       (("allow", "allowed"), ("ask", "asked and allowed"), ("deny", "denied")))
    facts = " · ".join([counted(len(story.turns), "turn"), counted(story.messages, "message"),
                        counted(len(story.calls), "tool call"), f"hook decisions: {counts}",
                        counted(len(story.spans), "plan-mode span"),
                        counted(len(story.revisions), "plan revision")])
    links = "".join(f'<a href="#{anchor}">{name}</a>' for anchor, name in
                    (("timeline", "Timeline"), ("revisions", "Plan revisions"), ("decisions", "Decisions"),
                     ("todos", "Todos"), ("changes", "Changes"), ("conversation", "Conversation")))
    return (f"<header><h1>stepagent session <code>{text(story.session_id)}</code></h1>"
            f'<p class="facts">workspace <code>{text(workspace)}</code> · opened in '
            f"{text(story.opened_in or 'build')} mode</p><p class=\"facts\">{facts}</p>"
            f'<nav>{links}<button type="button" id="open-all">open every call</button>'
            f'<button type="button" id="close-all">close every call</button></nav></header>')


def timeline_section(story: Story) -> str:
    spans = "".join(
        f'<li><span class="tag plan">PLAN</span> turns {span.first_turn}–{span.last_turn}, entered by '
        f"{text(span.entered_by)}; reviews: "
        f"{text(', '.join(f'{review_mark(o)} {o} (turn {t})' for t, o in span.reviews) or 'none')}; "
        f"<strong>ended: {text(span.ended)}</strong></li>" for span in story.spans)
    basis = ("as the server reported them" if story.tokens_reported else
             "estimated at four characters per token from the messages (the server reported no "
             "usage; the system prompt and tool schemas are not counted)")
    rows = "".join(f'<tr><td><a href="#turn-{turn.number}">{turn.number}</a></td>'
                   f"<td>{text(short(turn.prompt))}</td><td>{text(turn.ending)}</td>"
                   f"<td>{turn.tokens(story.tokens_reported)[0]:,}</td>"
                   f"<td>{turn.tokens(story.tokens_reported)[1]:,}</td></tr>" for turn in story.turns)
    return ('<section id="timeline"><h2>Timeline</h2>' + timeline_svg(story) +
            '<p class="legend"><span class="mode">■ tokens in</span><span class="ask">■ tokens out</span>'
            '<span class="plan">▓ plan mode</span><span>✓ approved · ✎ feedback · ✗ rejected</span></p>'
            f'<p class="dim">Tokens {basis}.</p>'
            + (f"<ol>{spans}</ol>" if spans else "<p>Plan mode was not used in this session.</p>") +
            f"<details><summary>Every turn: how it ended, tokens in and out</summary><table><tr><th>turn</th>"
            f"<th>prompt</th><th>ended</th><th>in</th><th>out</th></tr>{rows}</table></details></section>")


def revision_block(revision: Revision, previous: Revision | None) -> str:
    parts = [f'<article class="revision" id="revision-{revision.number}"><h3>Revision {revision.number} '
             f'<span class="dim">turn {revision.turn} · <a href="#call-{revision.call}">call '
             f"#{revision.call}</a></span></h3>"]
    if previous is not None:
        feedback = f", with feedback: “{text(previous.feedback)}”" if previous.feedback else ""
        parts.append(f"<p>Led to it: revision {previous.number} was answered "
                     f"<em>{text(previous.outcome)}</em>{feedback}</p>")
        diff = unified_diff(previous.plan + "\n", revision.plan + "\n", "plan")
        parts.append(f"<details open><summary>What changed since revision {previous.number}</summary>"
                     f"{diff_block(diff) if diff else '<p>(the same text)</p>'}</details>")
    parts.append(f'<p class="review plan">{review_mark(revision.outcome)} Answer: {text(revision.outcome)}</p>')
    parts.append(f"<details{' open' if previous is None else ''}><summary>The plan as shown</summary>"
                 f"{preformatted(revision.plan)}</details></article>")
    return "".join(parts)


def revisions_section(story: Story) -> str:
    blocks = [revision_block(revision, story.revisions[index - 1] if index else None)
              for index, revision in enumerate(story.revisions)]
    return ('<section id="revisions"><h2>Plan revisions</h2>' +
            ("".join(blocks) or "<p>No plan was put to the user in this session.</p>") + "</section>")


def decisions_section(story: Story) -> str:
    rows = []
    for turn, decision, call in _decided(story):
        where = f'<a href="#call-{call.number}">#{call.number}</a>' if call else "sub-agent"
        rows.append(f"<tr><td>{where}</td><td>{turn.number}</td><td>{text(decision.tool)}</td>"
                    f"<td>{text(decision.subject)}</td><td>{verdict(decision)}</td>"
                    f"<td>{text(decision.hook)}</td><td>{text(' · '.join(decision.rules))}</td>"
                    f"<td><code>{text(decision.token)}</code></td></tr>")
    return (f'<section id="decisions"><h2>Hook decisions</h2><details><summary>All {len(rows)} decisions: '
            "the hook, the rule and the token that decided each</summary><table><tr><th>call</th>"
            "<th>turn</th><th>tool</th><th>on</th><th>decision</th><th>hook</th><th>rule</th>"
            f"<th>token</th></tr>{''.join(rows)}</table></details></section>")


def todo_list(todos: list[dict[str, Any]]) -> str:
    items = "".join(f'<li class="todo-{text(todo.get("status", ""))}">'
                    f'<span class="mono">{TODO_MARKS.get(todo.get("status", ""), "[?]")}</span> '
                    f'{text(todo.get("content", ""))}</li>' for todo in todos)
    return f'<ol class="todos">{items}</ol>' if items else "<p>(empty)</p>"


def todos_section(story: Story) -> str:
    lists = "".join(f"<h3>In turn {turn}</h3>{todo_list(todos)}" for turn, todos in story.todo_lists)
    return ('<section id="todos"><h2>Todos as they changed</h2>'
            '<p class="dim">[ ] pending · [~] in progress · [x] completed</p>' +
            (lists or "<p>No todo list was kept in this session.</p>") + "</section>")


def changes_section(story: Story) -> str:
    rows = []
    for call in story.calls:
        if call.name not in {"Write", "Edit"}:
            continue
        lines = call.change.split("\n")
        counts = (f"+{sum(line.startswith('+') and not line.startswith('+++') for line in lines)} "
                  f"−{sum(line.startswith('-') and not line.startswith('---') for line in lines)}"
                  if call.change else "not run" if not call.started else "no change stored")
        rows.append(f'<li><a href="#call-{call.number}">#{call.number}</a> {text(call.name)} '
                    f"<code>{text(call.argument_dict.get('file_path', ''))}</code> {verdict(call.decision)} "
                    f"· {counts}</li>")
    return ('<section id="changes"><h2>Changes by Write and Edit</h2>' +
            (f"<ul>{''.join(rows)}</ul>" if rows else "<p>No Write or Edit in this session.</p>") +
            '<p class="dim">Each call\'s diff is inside it, in the conversation.</p></section>')


def item_html(kind: str, item: Any) -> str:
    if kind == "call":
        return call_block(item)
    if kind == "text":
        return f'<div class="said"><span class="who">assistant</span>{text(item)}</div>'
    if kind == "feedback":
        number, said = item
        return (f'<div class="said user"><span class="who">you, feedback on '
                f'<a href="#revision-{number}">revision {number}</a></span>{text(said)}</div>')
    if kind == "review":
        return (f'<p class="review plan">{review_mark(item.outcome)} your review of '
                f'<a href="#revision-{item.number}">revision {item.number}</a>: {text(item.outcome)}</p>')
    if kind == "reminder":
        reminder, body = item
        return (f'<details><summary class="note">reminder to the model ({text(reminder)})</summary>'
                f"{preformatted(body)}</details>")
    if kind == "mode":
        label, cause = item
        return f'<p class="note mode">◆ mode → <strong>{text(label)}</strong> (by {text(cause)})</p>'
    if kind == "todos":
        return f'<div class="note">todo list now:{todo_list(item)}</div>'
    if kind == "decision":
        return (f'<p class="note">{verdict(item)} {text(item.tool)} {text(item.subject)}'
                f"{' in sub-agent ' + text(item.agent) if item.agent else ''}</p>")
    return f'<p class="note">{text(item)}</p>'


def turn_block(turn: Turn, planning: bool) -> str:
    tag = ' <span class="tag plan">PLAN</span>' if planning else ""
    prompt = (f'<div class="said user"><span class="who">you</span>{text(turn.prompt)}</div>'
              if turn.number else '<p class="note">Before the first prompt:</p>')
    body = "".join(item_html(kind, item) for kind, item in turn.items)
    return (f'<section class="turn{" planning" if planning else ""}" id="turn-{turn.number}">'
            f'<h3>Turn {turn.number}{tag} <span class="tag">{text(turn.ending)}</span></h3>{prompt}{body}'
            "</section>")


def conversation_section(story: Story) -> str:
    planned = _planned_turns(story)
    turns = "".join(turn_block(turn, turn.number in planned) for turn in story.turns)
    return f'<section id="conversation"><h2>Conversation</h2>{turns or "<p>No messages.</p>"}</section>'


def page_html(story: Story, workspace: str) -> str:
    """The whole page, as one string."""
    style = (HERE / "page.css").read_text(encoding="utf-8")
    script = (HERE / "page.js").read_text(encoding="utf-8")
    body = (header(story, workspace) + "<main>" + timeline_section(story) + revisions_section(story) +
            decisions_section(story) + todos_section(story) + changes_section(story) +
            conversation_section(story) + "</main>")
    return (f'{PAGE_MARK}<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{content_policy(style, script)}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>stepagent session {text(story.session_id)}</title><style>{style}</style></head>"
            f"<body>{body}<script>{script}</script></body></html>\n")
