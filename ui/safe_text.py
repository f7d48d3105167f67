"""Untrusted text made safe for the screen: nothing it contains can redraw the terminal.

This is part of the approval screen's line of defence. Plan mode promises that
the user sees what they approve; a model steered by a hostile README, a file or
a command's output could otherwise clear the screen (ESC [2J), retitle the
window (OSC), move the cursor, hide a command's tail behind a carriage return,
or reverse a line with a bidirectional override, and draw a fake plan above a
real question. Every piece of text that did not come from stepagent itself goes
through `safe` before it reaches the terminal:

  C0 controls (except newline and tab) → their control pictures: ␛ ␍ ␇ ␈ …, DEL → ␡
  C1 controls (U+0080–U+009F)         → \\x9b …
  bidirectional controls              → \\u202e …
  lone surrogates (which cannot be encoded, and would crash the print) → \\udc80 …

An escape sequence of any kind (CSI, OSC, DCS, SOS, PM, APC, or a single
character after ESC) starts with ESC or a C1 control, so once that character is
a placeholder the rest of the sequence is plain, visible text: `␛[2J`. Because
each character is mapped on its own, a sequence split across streamed chunks is
caught too. Untrusted text reaches rich only as a Text or a Markdown built
here, never as a markup string, so `[bold]` or `:smile:` in it stays literal;
a Markdown link shows its address beside its words, since the words can lie.
`reveal` goes further for a command about to run and a plan under review: every
invisible character is shown, so the user approves the exact string.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.markdown import Markdown
    from rich.syntax import Syntax
    from rich.text import Text

BIDI_CONTROLS = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
KEPT_CONTROLS = frozenset("\n\t")
SURROGATES = range(0xD800, 0xE000)
# Characters that draw nothing although their Unicode category says they are letters or marks.
BLANK_GLYPHS = frozenset([0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10),
                          *range(0xE0100, 0xE01F0)])
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


def placeholder(character: str) -> str:
    """The visible stand-in for one control or invisible character."""
    code = ord(character)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "␡"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


SCREEN_TABLE = {code: placeholder(chr(code))
                for code in [*range(0x20), 0x7F, *range(0x80, 0xA0), *BIDI_CONTROLS, *SURROGATES]
                if chr(code) not in KEPT_CONTROLS}
CRLF = re.compile(r"\r\n")


def safe(text: str) -> str:
    """`text` with every control, escape and bidi character shown as a visible placeholder.

    A carriage return right before a newline (a Windows line ending) hides
    nothing, so it is dropped rather than shown on every line.
    """
    return CRLF.sub("\n", text).translate(SCREEN_TABLE)


def is_invisible(character: str) -> bool:
    """True when the terminal would draw nothing (or something misleading) for `character`."""
    if character in KEPT_CONTROLS or character == " ":
        return False
    code = ord(character)
    return (code in SCREEN_TABLE or code in BLANK_GLYPHS
            or unicodedata.category(character) in INVISIBLE_CATEGORIES)


def reveal(command: str) -> str:
    """The exact command, with every invisible character (zero-width, odd spaces, controls) shown."""
    return "".join(placeholder(c) if is_invisible(c) else c for c in command)


def safe_line(text: str, style: str = "") -> Text:
    """Untrusted text as a rich Text: placeholders for controls, and markup kept literal."""
    from rich.text import Text  # rich: not needed for the prompt's first draw

    return Text(safe(text), style=style)


def safe_markdown(text: str) -> Markdown:
    """Untrusted markdown, rendered after `safe`; a link shows where it goes."""
    from rich.markdown import Markdown  # with markdown-it and pygments: not needed before the prompt

    return Markdown(safe(text), hyperlinks=False)


def verbatim_markdown(text: str) -> Syntax:
    """Untrusted markdown shown as written, every character of it, with markdown's colours.

    For what the user approves: rendered markdown hides HTML comments, tags and link
    definitions, and a zero-width or tag character (U+E0000…) draws nothing, so a plan
    could carry steps its reviewer never saw; each invisible character is revealed.
    """
    from rich.syntax import Syntax  # pygments: not needed before the first plan

    return Syntax(reveal(CRLF.sub("\n", text)), "markdown", theme="ansi_dark", background_color="default",
                  word_wrap=True)


def invisible_warning(text: str, what: str = "command", then: str = "It runs exactly as shown.") -> str:
    """A line flagging a command (or `what`) that holds invisible characters; '' when it holds none."""
    shown = sorted({placeholder(c) for c in text if is_invisible(c)})
    if not shown:
        return ""
    return f"This {what} contains invisible characters, shown as {', '.join(shown)}. {then}"
