"""The allowlist: which commands are read-only, and with which arguments.

Default deny. A command is read-only only if it is named here: either PLAIN
(no flag of it writes or runs anything) or with a rule that inspects its
arguments. Commands with such rules also refuse unquoted globs, because a glob
can expand to a file named like a flag (a file called `-i` turns `sed -n p *`
into an in-place edit).
"""

from __future__ import annotations

from typing import Callable

from tools.bash.classifier.awk import judge_awk
from tools.bash.classifier.flags import forbidden_flag, positionals
from tools.bash.classifier.option_tables import (HOSTNAME, RIPGREP, SORT, SORT_WRITES, TEST_EVALUATES,
                                                  UNIQ, XXD_VALUED)
from tools.bash.classifier.options import read_options
from tools.bash.classifier.git import judge_git
from tools.bash.classifier.sed import judge_sed
from tools.base import Judgement
from tools.bash.judgements import READ_ONLY, unsafe

PLAIN = frozenset("""
ls cat head tail wc grep egrep fgrep pwd echo true false which type stat du df nl
cut tr cmp comm diff basename dirname realpath readlink whoami id uname column fold fmt
expand unexpand rev tac od hexdump md5sum sha1sum sha256sum sha512sum cksum b2sum jq seq
sleep nproc free ps uptime printenv groups base32 base64 strings paste join numfmt
getconf lsblk lscpu locale arch tty cd
""".split())

INTERPRETERS = frozenset("python python3 python2 perl ruby node nodejs php lua Rscript deno bun "
                         "tclsh pwsh".split())

WRITERS = {"rm": "ls -l PATH shows what is there",
           "mv": "ls -l PATH shows what is there",
           "cp": "cat FILE shows its contents",
           "touch": "stat FILE shows its times",
           "mkdir": "ls -d PATH shows whether it exists",
           "tee": "run the command without tee; its output is shown to you",
           "chmod": "stat -c %A FILE shows the permissions",
           "ln": "readlink PATH shows where a link points",
           "dd": "head -c N FILE reads the first bytes",
           "truncate": "wc -c FILE shows the size"}


def _writes_with(short: str = "", long: tuple[str, ...] = (), rule: str = "",
                 alternative: str = "") -> Callable[[list[str]], Judgement]:
    """A rule for a command that is read-only unless given one of these flags."""
    def judge(args: list[str]) -> Judgement:
        token = forbidden_flag(args, short=short, long=long)
        return unsafe(rule, token, alternative) if token else READ_ONLY
    return judge


def _sort(args: list[str]) -> Judgement:
    reading = read_options(args, SORT)
    if reading.unknown:
        return unsafe("sort option not on the allowlist", reading.unknown, "sort FILE")
    writes = reading.has(*SORT_WRITES)
    if writes:
        return unsafe(f"sort {writes} writes a file or runs a program", writes,
                      "sort FILE prints the sorted lines")
    return READ_ONLY


def _uniq(args: list[str]) -> Judgement:
    reading = read_options(args, UNIQ)
    if reading.unknown:
        return unsafe("uniq option not on the allowlist", reading.unknown, "uniq INPUT")
    if len(reading.operands) > 1:
        return unsafe("uniq INPUT OUTPUT writes the output file", reading.operands[1], "uniq INPUT")
    return READ_ONLY


def _xxd(args: list[str]) -> Judgement:
    """xxd reads options its own way: `-ps` is one option (not -p with -s's value), a
    value may be attached (`-c8`); -r turns a dump back into bytes, written into the
    output file when one is named."""
    names: list[str] = []
    value_next = False
    for arg in args:
        if value_next:
            value_next = False
        elif arg.startswith("-r"):
            return unsafe("xxd -r turns a dump back into bytes, written into a file when one is named",
                          arg, "xxd INPUT")
        elif arg in XXD_VALUED:
            value_next = True
        elif arg == "-" or not arg.startswith("-"):
            names.append(arg)
    if len(names) > 1:
        return unsafe("xxd INPUT OUTPUT writes the output file", names[1], "xxd INPUT")
    return READ_ONLY


def _hostname(args: list[str]) -> Judgement:
    reading = read_options(args, HOSTNAME)
    token = reading.unknown or (reading.operands[0] if reading.operands else "")
    return unsafe("hostname NAME, -F FILE and -b set the host name", token, "hostname") if token else READ_ONLY


def _ripgrep(args: list[str]) -> Judgement:
    reading = read_options(args, RIPGREP)
    if reading.unknown:
        return unsafe("rg option not on the allowlist (--pre, --hostname-bin and others run "
                      "programs)", reading.unknown, "rg PATTERN PATH, or the Grep tool")
    return READ_ONLY


def _test(args: list[str]) -> Judgement:
    """test and [ read files and compare strings, but -v and -R evaluate a name:
    `test -v 'a[$(CMD)]'` runs CMD."""
    token = next((arg for arg in args if arg in TEST_EVALUATES), "")
    if token:
        return unsafe(f"test {token} evaluates its operand as code", token, "test -n \"$NAME\"")
    return READ_ONLY


def _printf(args: list[str]) -> Judgement:
    if args and args[0].startswith("-v"):
        return unsafe("printf -v assigns a variable, and evaluates its subscript", args[0],
                      "printf FORMAT ARGS prints instead")
    return READ_ONLY


def _find(args: list[str]) -> Judgement:
    actions = {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0",
               "-fprintf", "-fls"}
    token = next((arg for arg in args if arg in actions), "")
    if token:
        return unsafe("find with an action runs commands or changes files", token,
                      "find without the action lists the paths; read them with Read or cat")
    return READ_ONLY


def _date(args: list[str]) -> Judgement:
    token = forbidden_flag(args, short="s", long=("--set",))
    token = token or next((a for a in positionals(args, "dfr") if not a.startswith("+")), "")
    return unsafe("date with a time sets the clock", token, "date +FORMAT") if token else READ_ONLY


def _command(args: list[str]) -> Judgement:
    if args and args[0] in {"-v", "-V"}:
        return READ_ONLY
    return unsafe("command runs another command", "command", "command -v NAME")


RULE_CHECKS = {  # what a command's rule checked, said when the command passes it
    "find": "no -delete, -exec, -ok or -fprint action",
    "sed": "no -i (in-place edit) and no w, W or e command",
    "awk": "its program has no output redirection, pipe or system()",
    "git": "a subcommand and options that only read, with no configured program run",
    "sort": "no -o output file",
}

RULES: dict[str, Callable[[list[str]], Judgement]] = {
    "find": _find,
    "sed": judge_sed,
    "awk": judge_awk, "gawk": judge_awk, "mawk": judge_awk,
    "git": judge_git,
    "sort": _sort,
    "rg": _ripgrep,
    "test": _test, "[": _test,
    "printf": _printf,
    "tree": _writes_with("o", (), "tree -o writes a file", "tree PATH"),
    "file": _writes_with("C", ("--compile",), "file -C writes a magic file", "file PATH"),
    "uniq": _uniq,
    "xxd": _xxd,
    "date": _date,
    "hostname": _hostname,
    "command": _command,
}


def judge_argv(name: str, args: list[str], unknown: str = "") -> Judgement:
    """Judge one simple command that wrappers and shells have been peeled from.

    `unknown` is an argument whose text is not known yet (a glob, a `$(…)`).
    """
    if name in PLAIN:
        return Judgement(True, f"{name} only reads or prints (it is on the read-only allowlist)")
    if name in RULES:
        if unknown:
            return unsafe(f"an unquoted glob or a command substitution given to {name} could "
                          "expand to a flag", unknown,
                          "quote the pattern, or list the files with ls first")
        judgement = RULES[name](args)
        if judgement.read_only and not judgement.rule:
            checked = RULE_CHECKS.get(name, "no option that writes")
            return Judgement(True, f"{name} passes its rule: {checked}")
        return judgement
    if name in INTERPRETERS:
        if args in (["--version"], ["-V"]):
            return READ_ONLY
        return unsafe("an interpreter runs whatever code it is given", " ".join([name, *args[:1]]),
                      "Read the script instead of running it")
    return unsafe("command not on the read-only allowlist", name, WRITERS.get(name, ""))
