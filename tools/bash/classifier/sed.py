"""sed is read-only only while it prints: no -i, no script file, no w/W/e.

The script scanner walks sed's own grammar (addresses, then one command letter)
far enough to find the commands that write files or run the shell: `w`, `W`,
`e`, and the `w`/`e` flags of `s`. Anything it does not understand is unsafe.
"""

from __future__ import annotations

from tools.base import Judgement
from tools.bash.judgements import READ_ONLY, unsafe

SAFE_SHORT = set("nErsuz")
SAFE_LONG = {"--quiet", "--silent", "--regexp-extended", "--separate", "--null-data",
             "--unbuffered", "--posix", "--debug", "--sandbox"}
SIMPLE = set("pPdDqQ=lnNgGhHxzF{}")
WRITERS = set("wWe")
ALTERNATIVE = "sed -n '1,20p' FILE prints lines without changing the file"


def judge_sed(args: list[str]) -> Judgement:
    """Read-only while sed only prints: no in-place edit, no script file, no w, W or e."""
    scripts: list[str] = []
    positional: list[str] = []
    pending_script = False
    for arg in args:
        if pending_script:
            scripts.append(arg)
            pending_script = False
        elif arg.startswith("--expression="):
            scripts.append(arg.split("=", 1)[1])
        elif arg in {"-e", "--expression"}:
            pending_script = True
        elif arg.startswith("--in-place") or (arg.startswith("-") and not arg.startswith("--")
                                               and "i" in arg):
            return unsafe("sed -i edits files in place", arg, ALTERNATIVE)
        elif arg.startswith("--file") or (arg.startswith("-") and not arg.startswith("--") and "f" in arg):
            return unsafe("a sed script read from a file cannot be judged", arg)
        elif arg in SAFE_LONG:
            continue
        elif arg.startswith("-") and arg != "-":
            letters = arg[1:]
            if letters.endswith("e") and set(letters[:-1]) <= SAFE_SHORT:
                pending_script = True
            elif not set(letters) <= SAFE_SHORT:
                return unsafe("sed option not known to be read-only", arg)
        else:
            positional.append(arg)
    if not scripts and positional:
        scripts.append(positional[0])
    for script in scripts:
        token = _writing_command(script)
        if token:
            return unsafe("a sed script that writes files or runs commands", token, ALTERNATIVE)
    return READ_ONLY


def _writing_command(script: str) -> str:
    """The first command of the script that writes or executes, or ''."""
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        i = _skip_address(script, i)
        i = _skip_address(script, i + 1) if i < n and script[i] == "," else i
        while i < n and script[i] in " \t!":
            i += 1
        if i >= n:
            break
        cmd = script[i]
        if cmd in WRITERS:
            return script[i:i + 12]
        if cmd in SIMPLE:
            i += 1
            while i < n and script[i].isdigit():
                i += 1
        elif cmd in ":btT":
            i = _label_end(script, i + 1)
        elif cmd in "aicrR#":
            i = _line_end(script, i)
        elif cmd in "sy":
            start = i
            i = _skip_delimited(script, i + 1, 2)
            while i < n and script[i] not in ";\n}":
                if cmd == "s" and script[i] in "we":
                    return script[start:i + 1]
                if not (script[i] in "gpiImM \t" or script[i].isdigit()):
                    return script[start:i + 1]
                i += 1
        else:
            return script[i:i + 12]
    return ""


def _skip_address(script: str, i: int) -> int:
    n = len(script)
    if i < n and script[i] in "/\\":
        if script[i] == "\\":
            i += 1
        i = _skip_delimited(script, i, 1)
        while i < n and script[i] in "IM":
            i += 1
        return i
    while i < n and (script[i].isdigit() or script[i] in "$~+"):
        i += 1
    return i


def _skip_delimited(script: str, i: int, parts: int) -> int:
    """Skip a delimiter and `parts` delimited fields after it (s/a/b/ has two)."""
    if i >= len(script):
        return i
    delimiter = script[i]
    i += 1
    while parts and i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delimiter:
            parts -= 1
        i += 1
    return i


def _label_end(script: str, i: int) -> int:
    """GNU sed ends a label at a blank, `;` or a newline: `b end w FILE` branches to
    `end` and then writes FILE. So the label ends there, and what follows is read as
    the next command."""
    while i < len(script) and script[i] in " \t":
        i += 1
    while i < len(script) and script[i] not in " \t;\n}":
        i += 1
    return i


def _line_end(script: str, i: int) -> int:
    end = script.find("\n", i)
    return len(script) if end < 0 else end
