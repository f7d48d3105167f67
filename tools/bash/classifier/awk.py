"""awk is a language: read-only only when its program cannot write or run.

Refused: a program from a file or a library (`-f`, `-i`, `-l`, `-E`, gawk's
`-i inplace`), `system(...)`, pipes to or from commands, and `print >`/`printf >`
redirections (awk has no other way to write). `||` is logical or, not a pipe.
"""

from __future__ import annotations

import re

from tools.judgement import READ_ONLY, Judgement, unsafe

VALUE_FLAGS = {"-F", "-v"}
UNSAFE_FLAGS = ("-f", "-i", "-l", "-E", "--file", "--include", "--load", "--exec", "--source")
WRITES = [(re.compile(r"\bsystem\s*\("), "system() runs a shell command"),
          (re.compile(r"(?<!\|)\|(?!\|)"), "a pipe in awk runs a shell command"),
          (re.compile(r"\bprintf?\b[^;{}\n]*>"), "print > writes a file"),
          (re.compile(r"\b(fflush|close)\s*\("), "awk I/O control is not judged")]
ALTERNATIVE = "awk '{ print $1 }' FILE prints to the screen; compare inside parentheses: print ($1 > 5)"


def judge_awk(args: list[str]) -> Judgement:
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        flag = args[i]
        if flag.startswith(UNSAFE_FLAGS):
            return unsafe("awk loading a program file or extension cannot be judged", flag)
        i += 2 if flag in VALUE_FLAGS else 1
    if i < len(args) and args[i] == "--":
        i += 1
    if i >= len(args):
        return unsafe("awk without a program reads one it cannot judge", "awk")
    program = re.sub(r'"(\\.|[^"\\])*"', '""', args[i])
    for pattern, rule in WRITES:
        match = pattern.search(program)
        if match:
            return unsafe(rule, match.group(0), ALTERNATIVE)
    return READ_ONLY
