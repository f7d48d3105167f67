"""The session page's timeline: tokens per turn as bars, plan mode as shaded spans behind them.

One inline SVG (no script, nothing loaded), drawn once at export. Each turn is a
column: its input tokens (below) and output tokens (above) stacked; each span
of plan mode is a shaded band over the turns it covered, labelled PLAN and how
it ended; each plan review inside it is a mark at its turn (✎ feedback,
✗ rejected, ⏸ saved for later, ✓ approved). Every shape carries a <title> (the browser's tooltip),
and the same facts are printed as text beside the chart, so nothing is told by
colour alone.
"""

from __future__ import annotations

from collections import Counter

from session.story_records import PlanSpan, Revision, Story, Turn
from ui.page_text import text

WIDTH, LEFT, RIGHT = 960, 56, 8
TOP, BARS, BAND, AXIS = 18, 110, 26, 18
HEIGHT = TOP + BARS + BAND + AXIS
MAX_BAR, MARK_STEP = 40, 14
REVIEW_MARKS = {"approved": "✓", "feedback": "✎", "rejected": "✗", "saved": "⏸"}


def review_mark(revision: Revision) -> str:
    """The mark for how one review ended (• for any other answer)."""
    return REVIEW_MARKS.get(revision.kind, "•")


def _columns(turns: list[Turn]) -> tuple[float, dict[int, int]]:
    width = (WIDTH - LEFT - RIGHT) / max(len(turns), 1)
    return width, {turn.number: index for index, turn in enumerate(turns)}


def _bars(story: Story, width: float) -> list[str]:
    totals = [sum(turn.tokens(story.tokens_reported)) for turn in story.turns]
    top = max(totals, default=0) or 1
    shapes = []
    for index, turn in enumerate(story.turns):
        sent, received = turn.tokens(story.tokens_reported)
        bar = min(max(width * 0.7, 1), MAX_BAR)
        x = LEFT + index * width + (width - bar) / 2
        sent_height, received_height = BARS * sent / top, BARS * received / top
        base = TOP + BARS
        tip = (f"turn {turn.number}: {sent:,} tokens in, {received:,} out · {turn.ending} · "
               f"{turn.prompt[:80]}")
        shapes.append(f'<g><title>{text(tip)}</title>'
                      f'<rect class="in" x="{x:.1f}" y="{base - sent_height:.1f}" width="{bar:.1f}" '
                      f'height="{sent_height:.1f}"/>'
                      f'<rect class="out" x="{x:.1f}" y="{base - sent_height - received_height:.1f}" '
                      f'width="{bar:.1f}" height="{received_height:.1f}"/></g>')
    shapes.append(f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end">{top:,}</text>'
                  f'<text x="{LEFT - 6}" y="{TOP + BARS}" text-anchor="end">0</text>')
    return shapes


def _span(span: PlanSpan, width: float, where: dict[int, int]) -> str:
    first, last = where.get(span.first_turn, 0), where.get(span.last_turn, len(where) - 1)
    x, span_width = LEFT + first * width, (last - first + 1) * width
    marks, earlier = [], Counter()
    for review in span.reviews:  # several reviews in one turn stand side by side
        centre = LEFT + (where.get(review.turn, first) + 0.5) * width + earlier[review.turn] * MARK_STEP
        earlier[review.turn] += 1
        marks.append(f'<text x="{centre:.1f}" y="{TOP + BARS + 14}" text-anchor="middle">'
                     f"<title>{text(review.outcome)}</title>{review_mark(review)}</text>")
    return (f'<g><title>{text(f"plan mode, entered by {span.entered_by}: {span.ended}")}</title>'
            f'<rect class="span" x="{x:.1f}" y="{TOP}" width="{span_width:.1f}" height="{BARS + BAND}"/>'
            f'<text x="{x + 3:.1f}" y="{TOP + BARS + BAND - 4}">PLAN → {text(span.ended)}</text>'
            f'{"".join(marks)}</g>')


def _axis(turns: list[Turn], width: float) -> list[str]:
    step = max(1, round(len(turns) / 12))
    labels = [f'<text x="{LEFT + (index + 0.5) * width:.1f}" y="{HEIGHT - 4}" text-anchor="middle">'
              f"{turn.number}</text>" for index, turn in enumerate(turns)
              if index % step == 0 or index == len(turns) - 1]
    return [f'<line class="axis" x1="{LEFT}" y1="{TOP + BARS}" x2="{WIDTH - RIGHT}" y2="{TOP + BARS}"/>',
            f'<text x="{LEFT - 6}" y="{HEIGHT - 4}" text-anchor="end">turn</text>', *labels]


def timeline_svg(story: Story) -> str:
    """The whole chart as one <svg> element."""
    width, where = _columns(story.turns)
    tokens = "tokens" if story.tokens_reported else "estimated tokens"
    shapes = [*(_span(span, width, where) for span in story.spans), *_bars(story, width),
              *_axis(story.turns, width),
              f'<text x="{LEFT}" y="12">{tokens} per turn: in (lower), out (upper)</text>']
    return (f'<svg class="timeline" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
            f'aria-label="{tokens} per turn, with plan mode shaded">{"".join(shapes)}</svg>')
