"""/export --html: a session as one self-contained HTML page, to look at what happened.

The page is drawn from the session's story (session/story.py): a header with
the session's facts, the timeline (tokens per turn, plan mode's spans and
reviews; ui/page_timeline.py), every plan revision with its diff against the
one before and the feedback that led to it, every hook decision in a table,
the todo lists as they changed (ui/page_todos.py), the files Write and Edit
changed, and the conversation turn by turn with each tool call collapsed
(ui/page_conversation.py, ui/page_call.py).

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
from typing import Iterator

from session.story_records import Call, Decision, Revision, Story, Turn
from tools.base import counted
from tools.preview import unified_diff
from ui.page_call import verdict, verdict_class
from ui.page_conversation import conversation_section
from ui.page_text import diff_block, preformatted, text
from ui.page_timeline import review_mark, timeline_svg
from ui.page_todos import todos_section

PAGE_MARK = "<!DOCTYPE html>\n<!-- stepagent session page -->\n"
HERE = Path(__file__).resolve().parent
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


def _decided(story: Story) -> Iterator[tuple[Turn, Decision, Call | None]]:
    for turn in story.turns:
        for kind, item in turn.items:
            if kind == "call" and item.decision is not None:
                yield turn, item.decision, item
            elif kind == "decision":
                yield turn, item, None


def header(story: Story, workspace: str) -> str:
    """The session's id, workspace and counts, the links to each section, and the two buttons."""
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
    """The chart, its legend, each plan span in words, and every turn's ending and tokens."""
    spans = "".join(
        f'<li><span class="tag plan">PLAN</span> turns {span.first_turn}–{span.last_turn}, entered by '
        f"{text(span.entered_by)}; reviews: "
        f"{text(', '.join(f'{review_mark(r)} {r.outcome} (turn {r.turn})' for r in span.reviews) or 'none')}; "
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
            '<span class="plan">▓ plan mode</span><span>✓ approved · ✎ feedback · ✗ rejected · '
            '⏸ saved for later</span></p>'
            f'<p class="dim">Tokens {basis}.</p>'
            + (f"<ol>{spans}</ol>" if spans else "<p>Plan mode was not used in this session.</p>") +
            f"<details><summary>Every turn: how it ended, tokens in and out</summary><table><tr><th>turn</th>"
            f"<th>prompt</th><th>ended</th><th>in</th><th>out</th></tr>{rows}</table></details></section>")


def revision_block(revision: Revision, previous: Revision | None) -> str:
    """One plan revision: what led to it, its diff against the one before, its answer, its text."""
    digest = f" · sha256 <code>{text(revision.digest[:12])}</code>" if revision.digest else ""
    parts = [f'<article class="revision" id="revision-{revision.number}"><h3>Revision {revision.number} '
             f'<span class="dim">turn {revision.turn} · <a href="#call-{revision.call}">call '
             f"#{revision.call}</a>{digest}</span></h3>"]
    if previous is not None:
        feedback = f", with feedback: “{text(previous.feedback)}”" if previous.feedback else ""
        parts.append(f"<p>Led to it: revision {previous.number} was answered "
                     f"<em>{text(previous.outcome)}</em>{feedback}</p>")
        diff = unified_diff(previous.plan + "\n", revision.plan + "\n", "plan")
        parts.append(f"<details open><summary>What changed since revision {previous.number}</summary>"
                     f"{diff_block(diff) if diff else '<p>(the same text)</p>'}</details>")
    if revision.edits:
        parts.append("<details open><summary>The user's own edits to it, before answering</summary>"
                     f"{diff_block(revision.edits)}</details>")
    parts.append(f'<p class="review plan">{review_mark(revision)} Answer: {text(revision.outcome)}</p>')
    parts.append(f"<details{' open' if previous is None else ''}><summary>The plan as shown</summary>"
                 f"{preformatted(revision.plan)}</details></article>")
    return "".join(parts)


def revisions_section(story: Story) -> str:
    """Every plan put to the user, in order."""
    blocks = [revision_block(revision, story.revisions[index - 1] if index else None)
              for index, revision in enumerate(story.revisions)]
    return ('<section id="revisions"><h2>Plan revisions</h2>' +
            ("".join(blocks) or "<p>No plan was put to the user in this session.</p>") + "</section>")


def decisions_section(story: Story) -> str:
    """Every hook decision in one collapsed table: call, tool, subject, verdict, hook, rule, token."""
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


def changes_section(story: Story) -> str:
    """Each Write and Edit, linked to its call, with its verdict and line counts."""
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
