"""What sandboxed Bash may run when the sandbox cannot contain arbitrary code.

Sandboxed: every call while planning, and a read-only call build or edit mode
runs without a question (unasked.py); the user is asked before the rest.

With bubblewrap, seccomp and Landlock inside bubblewrap in place, a
read-looking git command that runs a program named by the repository's own
configuration (a textconv or external diff, a clean filter, a signature
program) runs it inside the sandbox, where it changes nothing. Without them
that program would run with fewer layers (one missing Landlock could still write
into a FIFO outside), so git is narrowed to subcommands and options
that never start one: they read refs, objects and the index, and print no diff.
"""

from __future__ import annotations

import os

from tools.bash.classifier.flags import forbidden_flag
from tools.bash.classifier.parse import parse
from tools.bash.sandbox.status import Layers
from tools.base import Judgement
from tools.bash.judgements import READ_ONLY, unsafe

SHELLS = frozenset("sh bash dash zsh ksh".split())
GLOBAL_WITH_VALUE = {"-C", "--namespace", "--work-tree", "--git-dir"}
NO_PROGRAMS = {"rev-parse", "merge-base", "rev-list", "ls-tree", "show-ref", "for-each-ref",
               "name-rev", "count-objects", "version", "var", "check-ignore", "check-attr",
               "branch", "tag", "remote", "config", "cat-file", "describe", "shortlog", "log",
               "show", "reflog", "stash", "worktree", "ls-files"}
HISTORY = {"log", "show", "reflog", "stash", "shortlog"}
HISTORY_OPTIONS = ("--oneline", "--format", "--pretty", "-n", "--max-count", "--graph",
                   "--decorate", "--no-decorate", "--all", "--branches", "--tags", "--remotes",
                   "--author", "--committer", "--since", "--until", "--after", "--before",
                   "--reverse", "--first-parent", "--no-merges", "--merges", "--date", "--abbrev",
                   "--topo-order", "--date-order", "--grep", "--skip", "--parents", "--children",
                   "--no-color", "--source", "--boundary", "--left-right", "-s", "--no-patch",
                   "-z", "-i", "--summary", "-sn", "-n", "-e", "--numbered")
REFUSED_OPTIONS = {  # (short letters, long names): matched as git reads them, abbreviations too
    "cat-file": ("", ("--textconv", "--filters")), "describe": ("", ("--dirty", "--broken")),
    "ls-files": ("mdk", ("--modified", "--deleted", "--killed")),
    "rev-list": ("", ("--alternate-refs",))}
ALTERNATIVE = ("git log --oneline, git ls-files, git cat-file -p REV:PATH, git show -s REV "
               "(they start no configured program)")


def narrow(command: str, layers: Layers, depth: int = 0) -> Judgement:
    """READ_ONLY, or why this read-only command is too much for the layers present."""
    if layers.contains_code:
        return READ_ONLY
    if depth > 3:
        return unsafe("shells nested too deep to judge", command[:40])
    parsed = parse(command)
    if isinstance(parsed, Judgement):
        return parsed
    for simple in parsed:
        words = simple.argv
        for index, word in enumerate(words):
            if word in SHELLS and "-c" in words[index + 1:-1]:
                inner = narrow(words[words.index("-c", index) + 1], layers, depth + 1)
                if not inner.read_only:
                    return inner
            if os.path.basename(word) == "git":
                judgement = _git(words[index + 1:])
                if not judgement.read_only:
                    return judgement
        for inner_command in simple.substitutions:
            inner = narrow(inner_command, layers, depth + 1)
            if not inner.read_only:
                return inner
    return READ_ONLY


def _git(args: list[str]) -> Judgement:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in GLOBAL_WITH_VALUE else 1
    if i >= len(args):
        return READ_ONLY
    sub, rest = args[i], args[i + 1:]
    if sub not in NO_PROGRAMS:
        return _refused(f"git {sub}", sub)
    options = [arg for arg in _until_double_dash(rest) if arg.startswith("-")]
    if sub in HISTORY:
        extra = next((o for o in options if not _is_history_option(o)), "")
        if extra:
            return _refused(f"git {sub} {extra}", extra)
        if sub == "show" and not {"-s", "--no-patch"} & set(options):
            return _refused("git show without -s", "show")
    short, long = REFUSED_OPTIONS.get(sub, ("", ()))
    token = forbidden_flag(rest, short=short, long=long)
    return _refused(f"git {sub} {token}", token) if token else READ_ONLY


def _is_history_option(option: str) -> bool:
    name = option.split("=", 1)[0]
    return name in HISTORY_OPTIONS or name[1:].isdigit() or (name.startswith("-n") and name[2:].isdigit())


def _until_double_dash(args: list[str]) -> list[str]:
    return args[:args.index("--")] if "--" in args else args


def _refused(what: str, token: str) -> Judgement:
    return unsafe(f"without the full sandbox (bubblewrap, seccomp, Landlock), {what} could run a program named in the "
                  "repository's configuration (textconv, diff driver, filter, signing program)",
                  token, ALTERNATIVE)
