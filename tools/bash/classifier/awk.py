"""awk is a language: read-only only when its program cannot write or run.

Refused: any option but -F and -v (a program from a file or a library: `-f`,
`-i inplace`, `-l`, `-E`; more program text: gawk's `-e`), `system(...)`, pipes
to or from commands, `print >`/`printf >` redirections (awk has no other way to
write), and gawk's indirect calls (`@f()`, where f could hold "system").
`||` is logical or, not a pipe. Before the program is scanned, its string and
regex literals and its `#` comments are blanked (a `"` inside `/…/` or inside a
comment is not a string) and its line continuations joined, and a print
statement is followed across newlines. A `/` after `x++` or `x--` divides, as
gawk reads it, so what follows it is scanned, not blanked as a regex. Inside a
regex's brackets `/` does not end it (`/[/"]/`), and awks differ on where a
bracket closes, so a regex whose closing `/` may sit inside brackets is refused;
the word `system` anywhere in the program is refused too, whatever it is in.
"""

from __future__ import annotations

import re

from tools.base import Judgement
from tools.bash.judgements import READ_ONLY, unsafe

VALUE_FLAGS = {"-F", "-v"}
WRITES = [(re.compile(r"\bsystem\s*\("), "system() runs a shell command"),
          (re.compile(r"(?<!\|)\|(?!\|)"), "a pipe in awk runs a shell command"),
          (re.compile(r"\bprintf?\b[^;{}]*>"), "print > writes a file"),
          (re.compile(r"@"), "an indirect call can name any function, system included"),
          (re.compile(r"\b(fflush|close)\s*\("), "awk I/O control is not judged")]
OPERAND_BEFORE = re.compile(r"[\w)\]$.]")
ALTERNATIVE = "awk '{ print $1 }' FILE prints to the screen; compare inside parentheses: print ($1 > 5)"


def judge_awk(args: list[str]) -> Judgement:
    """Read-only unless the program writes files, pipes to commands or calls system()."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        flag = args[i]
        if flag in VALUE_FLAGS:
            i += 2
        elif flag[:2] in VALUE_FLAGS and len(flag) > 2:
            i += 1
        else:
            return unsafe("awk option not on the allowlist (-f, -e, -i, -l, -E load or add "
                          "program text)", flag, ALTERNATIVE)
    if i < len(args) and args[i] == "--":
        i += 1
    if i >= len(args):
        return unsafe("awk without a program reads one it cannot judge", "awk")
    if "system" in args[i]:
        return unsafe("system() runs a shell command (the word is refused wherever it stands)",
                      "system", ALTERNATIVE)
    program = _blank_literals(args[i].replace("\\\n", " "))
    if program is None:
        return unsafe("an awk program whose strings or regexes do not close", args[i][:40])
    for pattern, rule in WRITES:
        match = pattern.search(program)
        if match:
            return unsafe(rule, match.group(0), ALTERNATIVE)
    return READ_ONLY


def _blank_literals(program: str) -> str | None:
    """The program with the insides of strings and regex literals removed, or None
    when one does not close. A `/` opens a regex where an operand is expected."""
    out: list[str] = []
    i, n = 0, len(program)
    previous = " "
    while i < n:
        char = program[i]
        if char == "#":
            end = program.find("\n", i)
            i = n if end < 0 else end
            continue
        if char == '"' or (char == "/" and not OPERAND_BEFORE.match(previous)
                           and not _after_increment(out)):
            end = i + 1
            while end < n and program[end] != char:
                end += 2 if program[end] == "\\" else 1
            if end >= n or (char == "/" and _may_be_in_brackets(program[i + 1:end])):
                return None
            out.append(char * 2)
            previous = "0"
            i = end + 1
            continue
        out.append(char)
        previous = char if not char.isspace() else previous
        i += 1
    return "".join(out)


def _after_increment(out: list[str]) -> bool:
    """Whether the program so far ends in `++` or `--` (then a `/` is a division)."""
    before = "".join(out).rstrip()
    return before.endswith("++") or before.endswith("--")


def _may_be_in_brackets(regex: str) -> bool:
    """Whether a `/` after this regex text could still be inside a bracket expression:
    more `[` than `]` (a `[:class:]` counts both), or a `]` that stands first in one."""
    depth = 0
    for index, char in enumerate(regex):
        if char == "[":
            depth += 1
            rest = regex[index + 1:]
            if rest.startswith("]") or rest.startswith("^]"):
                return True
        elif char == "]":
            depth -= 1
    return depth != 0
