"""What a terminal shows after it was sent some output: the few codes rich's live area uses, replayed.

Enough of a terminal for a console that prints and draws a transient live area:
carriage return, line feed, cursor up (CSI n A), erase line (CSI 2 K); colours
and cursor visibility are dropped. A line is as wide as the console made it.
"""

from __future__ import annotations

import re

CODE = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\r|\n|[^\x1b\r\n]+")


def replayed(output: str) -> list[str]:
    """The lines on the screen (scrollback included), trailing spaces and empty last lines dropped."""
    lines, row, column = [""], 0, 0
    for match in CODE.finditer(output):
        text, (argument, code) = match.group(), match.groups()
        if text == "\r":
            column = 0
        elif text == "\n":
            row, column = row + 1, 0
            lines += [""] * (row + 1 - len(lines))
        elif code == "A":
            row = max(row - int(argument or 1), 0)
        elif code == "K":
            lines[row], column = "", column
        elif code is None:
            line = lines[row].ljust(column)
            lines[row] = line[:column] + text + line[column + len(text):]
            column += len(text)
    shown = [line.rstrip() for line in lines]
    while shown and not shown[-1]:
        shown.pop()
    return shown
