"""classify(command) -> Judgement: is this whole command line read-only?

Every simple command in every list, pipeline and subshell must be read-only.
Before a command is judged, what wraps it is peeled away: harmless wrappers
(`timeout`, `nice`, `time`, `stdbuf`, `env` with no settings, `xargs` feeding a
plain command) and `sh -c '…'`/`bash -c '…'`, whose script is classified in
turn. Wrappers that evaluate or replace the shell (`eval`, `exec`, `source`,
`sudo`) are refused; a command given by path counts only if it is the system's
own binary. A word that names a kernel file acting when read (`/proc/kmsg`)
makes the command not read-only, whatever the command (kernel_files.py).
"""

from __future__ import annotations

import os
import shutil

from tools.bash.classifier.commands import PLAIN, judge_argv
from tools.bash.classifier.kernel_files import acting_kernel_file
from tools.bash.classifier.option_tables import WRAPPERS, XARGS
from tools.bash.classifier.options import Options, read_options
from tools.bash.classifier.parse import Word, parse
from tools.base import Judgement
from tools.bash.judgements import READ_ONLY, unsafe
from tools.quiet_links import real_path

SHELLS = frozenset("sh bash dash zsh ksh".split())
RUNNERS = frozenset("eval exec source . sudo su doas nohup builtin trap alias".split())
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
MAX_DEPTH = 3


def classify(command: str, depth: int = 0) -> Judgement:
    """Whether the whole command line is read-only.

    Always answers, never raises: anything unexpected while judging is a no.
    """
    try:
        return _classify(command, depth)
    except Exception as failure:  # a classifier bug must mean "no", never a crash
        return unsafe(f"the command could not be judged ({type(failure).__name__})", command[:40])


def _classify(command: str, depth: int) -> Judgement:
    if not command.strip():
        return unsafe("an empty command", "")
    if depth > MAX_DEPTH:
        return unsafe("shells nested too deep to judge", command[:40])
    parsed = parse(command)
    if isinstance(parsed, Judgement):
        return parsed
    reasons: list[str] = []
    for simple in parsed:
        for inner in simple.substitutions:
            judgement = _classify(inner, depth + 1)
            if not judgement.read_only:
                return judgement
            reasons.append(judgement.rule)
        acting = next(filter(None, (acting_kernel_file(w.text, w.glob) for w in simple.words)), None)
        if acting:
            return acting
        judgement = _judge_simple(simple.words, depth)
        if not judgement.read_only:
            return judgement
        reasons.append(judgement.rule)
    return _read_only_because(reasons)


def _read_only_because(reasons: list[str]) -> Judgement:
    """A read-only judgement that says why: each command's reason, once."""
    said = "; ".join(dict.fromkeys(reason for reason in reasons if reason))
    return Judgement(True, said) if said else READ_ONLY


def _judge_simple(words: list[Word], depth: int) -> Judgement:
    if not words:
        return READ_ONLY
    name = _command_name(words[0])
    if not name:
        return unsafe("a command given by path runs a program the allowlist does not know",
                      words[0].text, "call the command by its name")
    args = [w.text for w in words[1:]]
    dynamic = next((w.text for w in words[1:] if w.dynamic), "")
    if dynamic and (name in SHELLS or name in WRAPPERS or name in {"env", "xargs"}):
        return unsafe(f"a command substitution given to {name} decides what it runs", dynamic,
                      "run the inner command on its own first")
    if name in SHELLS:
        if len(args) == 2 and args[0] == "-c":
            return _classify(args[1], depth + 1)
        return unsafe("a shell reading commands from its input or a file cannot be judged",
                      name, "run the commands directly")
    if name in RUNNERS:
        return unsafe(f"{name} runs a command the classifier cannot see", name,
                      "run the inner command directly")
    if name in WRAPPERS:
        return _judge_wrapped(name, words[1:], WRAPPERS[name], depth)
    if name == "env":
        if args and (args[0].startswith("-") or "=" in args[0]):
            return unsafe("env that sets or clears variables changes how the command runs",
                          args[0], "run the command directly")
        return _judge_simple(words[1:], depth) if args else READ_ONLY
    if name == "xargs":
        return _judge_xargs(words[1:], depth)
    unknown = next((w.text for w in words[1:] if w.glob or w.dynamic), "")
    return judge_argv(name, args, unknown)


def _first_operand(name: str, words: list[Word], table: Options) -> int | Judgement:
    """Where a wrapper's own options end, read by its option table; an unknown option
    (`xargs --process-slot-var`, `time -o FILE`) makes the whole command unsafe."""
    reading = read_options([w.text for w in words], table, stop_at_operand=True)
    if reading.unknown:
        return unsafe(f"{name} option not on the allowlist", reading.unknown,
                      "run the inner command directly")
    return reading.first_operand


def _judge_wrapped(name: str, words: list[Word], table: Options, depth: int) -> Judgement:
    i = _first_operand(name, words, table)
    if isinstance(i, Judgement):
        return i
    if name == "timeout":
        i += 1
    if i >= len(words):
        return READ_ONLY if name == "time" else unsafe(f"{name} without a command", name)
    inner = _judge_simple(words[i:], depth)
    if not inner.read_only:
        return inner
    return _read_only_because([f"{name} only changes how the command it wraps runs", inner.rule])


def _judge_xargs(words: list[Word], depth: int) -> Judgement:
    i = _first_operand("xargs", words, XARGS)
    if isinstance(i, Judgement):
        return i
    inner = words[i:] or [Word("echo")]
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
    if system and os.path.realpath(system) == str(real_path(word.text)):  # a link's time stays
        return base
    return ""

