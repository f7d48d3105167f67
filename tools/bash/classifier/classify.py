"""classify(command) -> Judgement: is this whole command line read-only?

Every simple command in every list, pipeline and subshell must be read-only.
Before a command is judged, what wraps it is peeled away: harmless wrappers
(`timeout`, `nice`, `time`, `stdbuf`, `env` with no settings, `xargs` feeding a
plain command) and `sh -c '…'`/`bash -c '…'`, whose script is classified in
turn. Wrappers that evaluate or replace the shell (`eval`, `exec`, `source`,
`sudo`) are refused; a command given by path counts only if it is the system's
own binary.
"""

from __future__ import annotations

import os
import shutil

from tools.bash.classifier.commands import PLAIN, judge_argv
from tools.bash.classifier.parse import Word, parse
from tools.judgement import READ_ONLY, Judgement, unsafe

SHELLS = frozenset("sh bash dash zsh ksh".split())
RUNNERS = frozenset("eval exec source . sudo su doas nohup builtin trap alias".split())
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
WRAPPER_VALUES = {"timeout": "sk", "nice": "n", "stdbuf": "ioe", "time": "fo"}
XARGS_VALUES = "nLPdIsEa"
MAX_DEPTH = 3


def classify(command: str, depth: int = 0) -> Judgement:
    if not command.strip():
        return unsafe("an empty command", "")
    if depth > MAX_DEPTH:
        return unsafe("shells nested too deep to judge", command[:40])
    parsed = parse(command)
    if isinstance(parsed, Judgement):
        return parsed
    for simple in parsed:
        judgement = _judge_simple(simple.words, depth)
        if not judgement.read_only:
            return judgement
    return READ_ONLY


def _judge_simple(words: list[Word], depth: int) -> Judgement:
    if not words:
        return READ_ONLY
    name = _command_name(words[0])
    if not name:
        return unsafe("a command given by path runs a program the allowlist does not know",
                      words[0].text, "call the command by its name")
    args = [w.text for w in words[1:]]
    if name in SHELLS:
        if len(args) == 2 and args[0] == "-c":
            return classify(args[1], depth + 1)
        return unsafe("a shell reading commands from its input or a file cannot be judged",
                      name, "run the commands directly")
    if name in RUNNERS:
        return unsafe(f"{name} runs a command the classifier cannot see", name,
                      "run the inner command directly")
    if name in WRAPPER_VALUES:
        return _judge_wrapped(name, words[1:], WRAPPER_VALUES[name], depth)
    if name == "env":
        if args and (args[0].startswith("-") or "=" in args[0]):
            return unsafe("env that sets or clears variables changes how the command runs",
                          args[0], "run the command directly")
        return _judge_simple(words[1:], depth) if args else READ_ONLY
    if name == "xargs":
        return _judge_xargs(words[1:], depth)
    return judge_argv(name, args, globbed=any(w.glob for w in words[1:]))


def _first_operand(words: list[Word], takes_value: str) -> int:
    """Where a wrapper's own options end (`-n 5` takes a value, `-0` does not)."""
    i = 0
    while i < len(words) and words[i].text.startswith("-"):
        i += 2 if words[i].text[-1] in takes_value and len(words[i].text) == 2 else 1
    return i


def _judge_wrapped(name: str, words: list[Word], takes_value: str, depth: int) -> Judgement:
    i = _first_operand(words, takes_value)
    if name == "timeout":
        i += 1
    if i >= len(words):
        return READ_ONLY if name == "time" else unsafe(f"{name} without a command", name)
    return _judge_simple(words[i:], depth)


def _judge_xargs(words: list[Word], depth: int) -> Judgement:
    inner = words[_first_operand(words, XARGS_VALUES):] or [Word("echo")]
    judgement = _judge_simple(inner, depth)
    if judgement.read_only and _command_name(inner[0]) not in PLAIN:
        return unsafe("xargs adds arguments from its input, which could be flags", inner[0].text,
                      "run the command on named files")
    return judgement


def _command_name(word: Word) -> str:
    """The command's name, or '' when a path names something other than a system binary."""
    if "/" not in word.text:
        return word.text
    base = os.path.basename(word.text)
    system = shutil.which(base, path=SYSTEM_PATH)
    if system and os.path.realpath(system) == os.path.realpath(word.text):
        return base
    return ""

