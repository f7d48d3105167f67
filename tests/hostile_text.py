"""Text a hostile README could make the model (or a file, or a command) send: one of each kind
of terminal sequence, each followed by a marker naming the path it came through. The one
table of hostile sequences: the safe() unit tests and the screen tests both use it."""

from __future__ import annotations

import re

ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"
SEQUENCES = {
    "csi-clear": f"{ESC}[2J{ESC}[H",
    "csi-erase-up": f"{ESC}[1A{ESC}[2K",
    "csi-truecolour": f"{ESC}[38;2;255;0;0m",
    "osc-title": f"{ESC}]0;pwned title{BEL}",
    "osc8-link": f"{ESC}]8;;https://evil.example{ST}click here{ESC}]8;;{ST}",
    "dcs": f"{ESC}Pq#0;2;0;0;0{ST}",
    "sos": f"{ESC}Xhidden text{ST}",
    "pm": f"{ESC}^hidden text{ST}",
    "apc": f"{ESC}_hidden text{ST}",
    "esc-save-restore": f"{ESC}7{ESC}8",
    "esc-reset": f"{ESC}c",
    "c1-csi": "\x9b2J",
    "c1-osc": "\x9d0;pwned title\x9c",
    "carriage-return": "echo ok\r# rest",
    "backspace": "rm -rf ~\b\b\b\b\b\b\b\bls      ",
    "bidi-override": "echo \u202egnp.exe",
    "arabic-letter-mark": "a\u061cb",
    "bidi-isolate": "a\u2066b\u2069c",
}
# bidi-isolate stays last: the screen tests wait for its marker to know a path is fully drawn.
# Prefixes neither rich nor prompt_toolkit ever write: seeing one means untrusted text got through.
NEVER_DRAWN = [f"{ESC}]", f"{ESC}P", f"{ESC}X", f"{ESC}^", f"{ESC}_", f"{ESC}c", f"{ESC}7", "\x9b",
               "\x9d", "\x9c", "\u202e", "\u061c", "\u2066", "\u2069"]
TERMINAL_CODES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\r")


def marker(path: str, kind: str) -> str:
    return f"mark-{path}-{kind}"


def payloads(path: str) -> list[str]:
    """Each sequence followed by its marker, for one path."""
    return [sequence + marker(path, kind) for kind, sequence in SEQUENCES.items()]


def split_after_escapes(text: str) -> list[str]:
    """`text` cut right after every ESC and C1 control, so each sequence spans chunks."""
    return [piece for piece in re.split(r"(?<=[\x1b\x80-\x9f])", text) if piece]


def visible(raw: str) -> str:
    """What a person reads: the screen output without our own colour and cursor codes."""
    return TERMINAL_CODES.sub("", raw)
