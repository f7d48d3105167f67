"""Session text made inert for the HTML page: nothing a model, a file or a command wrote can run.

The page's first line of defence (its Content-Security-Policy is the second):
every piece of text from the session reaches the page through `text`, which
shows control, escape and bidi characters as visible placeholders (the same
table the console uses, ui/safe_text.py) and then escapes &, <, >, " and ', so a
`<script>`, an `onerror=` attribute, a `javascript:` link or a `</textarea>` is
drawn as the characters it is made of. The page never puts session text in a
URL, a script, a style or an attribute other than a quoted title.
"""

from __future__ import annotations

import html
from typing import Any

from tools.preview import lines_of
from ui.safe_text import safe


def text(value: Any) -> str:
    """`value` as HTML text: placeholders for invisible characters, then every markup character escaped."""
    return html.escape(safe(str(value)), quote=True)


def preformatted(value: Any, css_class: str = "") -> str:
    """A block that keeps the text's lines and spaces."""
    return f'<pre class="{css_class}">{text(value)}</pre>' if css_class else f"<pre>{text(value)}</pre>"


DIFF_CLASSES = (("+++", "same"), ("---", "same"), ("@@", "hunk"), ("+", "add"), ("-", "del"))


def diff_block(diff: str) -> str:
    """A unified diff, one line per element; the +/− mark stays, so it reads without colour."""
    lines = []
    for line in lines_of(diff):
        kind = next((name for start, name in DIFF_CLASSES if line.startswith(start)), "same")
        lines.append(f'<span class="{kind}">{text(line)}</span>')
    return f'<pre class="diff">{"".join(lines)}</pre>'
