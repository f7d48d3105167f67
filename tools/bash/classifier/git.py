"""git, judged by subcommand: read-only ones pass, with unsafe options refused.

Refused everywhere: configuration from the command line (`-c`, `--config-env`),
a repository named outright (`--git-dir`, `--work-tree`, `--bare`: a bare
repository a clone carried has its own config, and git opens one found by
itself only when asked explicitly, which `--bare` is, see tools/bash/tool.py), another exec path, a pager (`-p`, `--paginate`, `git grep -O`), and the options
that write a file or run a program (`--output`, `--ext-diff`, `--textconv`,
`--exec`, and `--alternate-refs`, `--filters`, which run the configured
alternate-refs command and filters). Checking a signature runs the program the config names (gpg.program),
so `verify-commit`, `verify-tag`, `--show-signature` and the format placeholders
that verify (`%G?`, `%GG`, …, `%(signature)`) are not read-only either. Repository config that runs programs on read (core.fsmonitor, a
pager, hooks) is neutralised by the environment Bash sets (tools/bash.py) and,
on Linux, by the sandbox.
"""

from __future__ import annotations

from tools.bash.classifier.flags import forbidden_flag, positionals
from tools.bash.classifier.options import Options, long_options, read_options
from tools.base import Judgement
from tools.bash.judgements import READ_ONLY, unsafe

GLOBAL_WITH_VALUE = {"-C", "--namespace"}
GLOBAL_FLAGS = {"--no-pager", "--no-replace-objects", "--literal-pathspecs",
                "--no-optional-locks", "-P", "--glob-pathspecs", "--noglob-pathspecs",
                "--icase-pathspecs", "--version", "--help"}
READ_ONLY_SUBCOMMANDS = {
    "status", "log", "diff", "show", "blame", "annotate", "rev-parse", "merge-base",
    "ls-files", "ls-tree", "cat-file", "describe", "shortlog", "grep", "rev-list",
    "show-ref", "name-rev", "for-each-ref", "count-objects", "whatchanged", "version",
    "diff-tree", "diff-files", "diff-index", "check-ignore", "check-attr", "cherry",
    "range-diff", "var", "show-branch"}
LISTING_ONLY = {"branch": "--list", "tag": "--list"}
SUBCOMMAND_ACTIONS = {"stash": {"list", "show"}, "reflog": {"", "show"},
                      "remote": {"", "-v", "--verbose", "get-url", "show"},
                      "worktree": {"list"}, "notes": {"", "list", "show"}}
CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"}
CONFIG_OPTIONS = Options(
    flags="lz", valued="f",
    long_flags=long_options("get get-all get-regexp get-urlmatch list global system local worktree "
                            "show-origin show-scope null name-only bool int bool-or-int path "
                            "expiry-date includes no-includes"),
    long_valued=long_options("file blob type default"), abbreviations=False)
UNSAFE_LONG = ("--output", "--ext-diff", "--textconv", "--exec", "--open-files-in-pager",
               "--upload-pack", "--receive-pack", "--config-env", "--show-signature",
               "--alternate-refs", "--filters")
VERIFYING_PLACEHOLDERS = ("%G", "%(signature")
LIST_VALUES = {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
               "--sort", "--format", "--color", "--column"}
ALTERNATIVES = {"--output": "git diff (or git log -p) prints to the screen instead",
                "--git-dir": "git -C FOLDER, in a repository git finds by itself",
                "--work-tree": "git -C FOLDER, in a repository git finds by itself",
                "--bare": "git -C FOLDER, in a repository git finds by itself",
                "-c": "run the git command without -c",
                "--ext-diff": "git diff --no-ext-diff",
                "--textconv": "git diff --no-textconv",
                "--show-signature": "git log without --show-signature (the signatures stay unchecked)"}


def judge_git(args: list[str]) -> Judgement:
    """Judge a git command line by its global options, subcommand and subcommand options."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        flag = args[i].split("=", 1)[0]
        if flag in GLOBAL_WITH_VALUE:
            i += 1 if "=" in args[i] else 2
        elif flag in GLOBAL_FLAGS:
            i += 1
        else:
            return unsafe("git global option that changes config, pager, exec path or repository", args[i],
                          ALTERNATIVES.get(flag, "run the git command without it"))
    if i >= len(args):
        return READ_ONLY
    sub, rest = args[i], args[i + 1:]
    token = forbidden_flag(rest, short="O" if sub == "grep" else "", long=UNSAFE_LONG)
    if token:
        flag = token.split("=", 1)[0]
        alternative = next((text for name, text in ALTERNATIVES.items() if name.startswith(flag)),
                           f"git {sub} without {flag}")
        return unsafe(f"git {sub} {flag} writes a file or runs a program", token, alternative)
    placeholder = next((arg for arg in rest if sub != "grep" and any(
        verifying in arg for verifying in VERIFYING_PLACEHOLDERS)), "")
    if placeholder:
        return unsafe("a signature placeholder runs the configured signing program", placeholder,
                      "a format without %G… placeholders, e.g. --format='%h %s'")
    if sub in READ_ONLY_SUBCOMMANDS:
        return READ_ONLY
    if sub in LISTING_ONLY:
        return _listing(sub, rest)
    if sub in SUBCOMMAND_ACTIONS:
        if sub == "remote":
            rest = [arg for arg in rest if arg not in {"-v", "--verbose"}]
        action = rest[0] if rest else ""
        if action in SUBCOMMAND_ACTIONS[sub]:
            return READ_ONLY
        return unsafe(f"git {sub} {action} changes the repository".replace("  ", " "),
                      action or sub, f"git {sub} list")
    if sub == "config":
        return _config(rest)
    return unsafe("git subcommand not on the read-only list", sub,
                  "git status, git log, git diff, git show")


def _config(rest: list[str]) -> Judgement:
    """Reads only: an action that reads (--get…, --list), or one name, or the
    `get NAME`/`list` subcommands; `git config NAME list` sets NAME to "list"."""
    reading = read_options(rest, CONFIG_OPTIONS)
    refusal = unsafe("git config that is not a plain read writes configuration",
                     reading.unknown or " ".join(rest[:3]) or "config",
                     "git config --get NAME, or git config --list")
    if reading.unknown:
        return refusal
    actions = [name for name, _ in reading.options if name in CONFIG_READS]
    names = reading.operands
    if actions:
        most = 0 if actions[0] in {"--list", "-l"} else 2
        return READ_ONLY if len(actions) == 1 and len(names) <= most else refusal
    if len(names) == 1 or names == ["list"] or (len(names) == 2 and names[0] == "get"):
        return READ_ONLY
    return refusal


def _listing(sub: str, rest: list[str]) -> Judgement:
    """`git branch` and `git tag` only list, unless names are given without --list."""
    listing = any(arg in {"-l", "--list"} for arg in rest)
    writes = forbidden_flag(rest, short="dDmMcCfu" if sub == "branch" else "dfsaum",
                            long=("--delete", "--move", "--copy", "--force", "--set-upstream-to",
                                  "--unset-upstream", "--edit-description", "--annotate", "--sign"))
    if writes:
        return unsafe(f"git {sub} {writes} changes the repository", writes, f"git {sub} --list")
    names = positionals(rest, takes_value="" if sub == "branch" else "n", long_values=LIST_VALUES)
    if names and not listing:
        return unsafe(f"git {sub} NAME creates a {sub}", names[0], f"git {sub} --list")
    return READ_ONLY
