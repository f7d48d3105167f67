"""The session page's conversation: each turn with its prompt, its ending and what happened in it.

Part of the HTML export (ui/page.py puts it last on the page). The model's
text, the user's prompts and feedback, reminders (collapsed), mode changes,
todo lists, reviews that link to their plan revision, and each tool call as
one collapsed line (ui/page_call.py). A turn plan mode covered is marked PLAN
in words as well as by its border's colour.
"""

from __future__ import annotations

from typing import Any

from session.story_records import Story, Turn
from ui.page_call import call_block, verdict
from ui.page_text import preformatted, text
from ui.page_timeline import review_mark
from ui.page_todos import todo_list


def planned_turns(story: Story) -> set[int]:
    """The numbers of the turns that plan mode covered, wholly or in part."""
    return {number for span in story.spans for number in range(span.first_turn, span.last_turn + 1)}


def item_html(kind: str, item: Any) -> str:
    """One thing that happened in a turn: text, a call, feedback, a review, a reminder, a mode change."""
    if kind == "call":
        return call_block(item)
    if kind == "text":
        return f'<div class="said"><span class="who">assistant</span>{text(item)}</div>'
    if kind == "feedback":
        number, said = item
        return (f'<div class="said user"><span class="who">you, feedback on '
                f'<a href="#revision-{number}">revision {number}</a></span>{text(said)}</div>')
    if kind == "review":
        return (f'<p class="review plan">{review_mark(item)} your review of '
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
    """One turn: its prompt, how it ended, and what happened in it, marked PLAN if planning covered it."""
    tag = ' <span class="tag plan">PLAN</span>' if planning else ""
    prompt = (f'<div class="said user"><span class="who">you</span>{text(turn.prompt)}</div>'
              if turn.number else '<p class="note">Before the first prompt:</p>')
    body = "".join(item_html(kind, item) for kind, item in turn.items)
    return (f'<section class="turn{" planning" if planning else ""}" id="turn-{turn.number}">'
            f'<h3>Turn {turn.number}{tag} <span class="tag">{text(turn.ending)}</span></h3>{prompt}{body}'
            "</section>")


def conversation_section(story: Story) -> str:
    """Every turn, in order."""
    planned = planned_turns(story)
    turns = "".join(turn_block(turn, turn.number in planned) for turn in story.turns)
    return f'<section id="conversation"><h2>Conversation</h2>{turns or "<p>No messages.</p>"}</section>'
