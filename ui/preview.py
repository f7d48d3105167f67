"""Drawing a call's preview before the permission question: the command, the diff, the content.

The core computes the preview (tools/preview.py); this draws it: a command
syntax-highlighted with every invisible character revealed, a unified diff in
red and green, a new file's content highlighted by its extension. Long ones are
shortened, and say how many lines are hidden; the question then offers to show the
whole (ui/callbacks.py), so nothing asked about stays unseen. Everything passes `safe` first:
the text came from the model. `change_lines` draws the diff a Write or Edit made
when nobody was asked first (edit mode, yolo, a session rule), under its result.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from tools.base import Preview, counted
from ui.safe_text import invisible_warning, reveal, safe

MAX_LINES = 40
CHANGE_LINES = 16
DIFF_STYLES = {"+": "green", "-": "red", "@": "cyan"}


def shortened(text: str, max_lines: int) -> tuple[str, int]:
    """The first `max_lines` lines of `text`, and how many were left out."""
    lines = text.splitlines()
    return "\n".join(lines[:max_lines]), max(len(lines) - max_lines, 0)


def hidden_note(hidden: int) -> Text:
    """The line that says how much of a preview is not shown."""
    return Text(f"… {counted(hidden, 'more line')} not shown", style="dim italic")


def diff_text(diff: str) -> Text:
    """A unified diff coloured by line (additions green, removals red, hunks cyan), file names left out."""
    text = Text()
    for line in diff.splitlines():
        if not line.startswith(("+++ ", "--- ")):
            text.append(line + "\n", style=DIFF_STYLES.get(line[:1], ""))
    text.rstrip()
    return text


def change_lines(diff: str, max_lines: int = CHANGE_LINES) -> tuple[list[Text], int]:
    """The diff a call made, coloured line by line without its file names; and how many lines are cut."""
    body = [line for line in safe(diff).splitlines() if not line.startswith(("+++ ", "--- "))]
    shown = [Text(line, style=DIFF_STYLES.get(line[:1], "")) for line in body[:max_lines]]
    return shown, max(len(body) - max_lines, 0)


def lexer_for(path: str, content: str) -> str:
    """The lexer for a new file's content, chosen by its name (its content decides between several).

    Only the lexers whose file names match are loaded: rich's Syntax.guess_lexer loads all of
    pygments' 250 modules of lexers to choose, 0.2 s before the first question.
    """
    from pygments.lexers import find_lexer_class_for_filename

    found = find_lexer_class_for_filename(path, content)
    return (found.aliases[0] if found.aliases else found.name) if found else "default"


def hidden_lines(preview: Preview) -> int:
    """How many lines of `preview` a shortened drawing leaves out (a command is always drawn whole)."""
    return 0 if preview.kind == "command" else shortened(safe(preview.text), MAX_LINES)[1]


def render_preview(preview: Preview, whole: bool = False) -> RenderableType:
    """The preview as the user sees it above the question: its first MAX_LINES lines, or `whole`."""
    from rich.syntax import Syntax  # with pygments: not needed before the prompt

    if preview.kind == "command":
        command = Syntax(reveal(preview.text), "bash", theme="ansi_dark", word_wrap=True,
                         background_color="default")
        warning = invisible_warning(preview.text)
        return Group(Text(warning, style="bold red"), command) if warning else command
    body, hidden = shortened(safe(preview.text), len(preview.text) + 1 if whole else MAX_LINES)
    if preview.kind == "diff":
        title = Text.assemble((safe(preview.path), "bold"), "  ", (f"+{preview.added}", "green"),
                              " ", (f"−{preview.removed}", "red"))
        shown: RenderableType = diff_text(body) if body else Text("(no change)", style="dim")
    else:
        title = Text.assemble((safe(preview.path), "bold"),
                              (f"  new file, {counted(preview.added, 'line')}", "green"))
        shown = Syntax(body, lexer_for(preview.path, body), theme="ansi_dark",
                       line_numbers=True, word_wrap=True, background_color="default")
    parts: list[RenderableType] = [title, shown]
    if preview.note:
        parts.insert(1, Text(safe(preview.note), style="bold red"))
    if hidden:
        parts.append(hidden_note(hidden))
    return Group(*parts)
