"""Permission rules in Claude Code's syntax: `Bash(git status:*)`, `Read`, `Write(.env)`.

A rule is a tool name, optionally with a specifier in parentheses:

  Bash                 every command            Bash(npm run test:*)  a command prefix, on word bounds
  Bash(git status)     exactly that command     Bash(git * main)      `*` is any text; a final ` *`
                                                                      may match nothing (`ls *` is `ls` too)
  Read(.env)  Edit(src/**)  Write(//etc/**)  Read(~/.ssh/**)   gitignore-style paths: `//` starts an
  absolute path, `~/` the home folder, `/` the workspace root; a pattern with no other slash
  matches at any depth (`.env` is `a/b/.env` too); `**` crosses folders; a folder covers its files.

Rules about files reach every tool of the family: Read rules cover Read, Grep and Glob (by
their path argument, and a search leaves out each file a Read of would be denied: see
tools/search.py); Edit and Write rules cover both Write and Edit.

The same rule is matched two ways, because the cost of a mistake differs. An allow (or ask)
rule is read strictly: a command with any shell syntax beyond quoting (`;`, `&&`, `|`, `$(…)`,
redirects, globs) never matches it, so a prefix cannot carry a second command; a path must
match both as written and with links followed. A deny rule is read cautiously: it matches
if its words occur anywhere in the command, in any of its simple commands, through quotes,
`$(…)`, backticks, `sh -c '…'` strings and paths (`/bin/rm`), with other words allowed
between (`git -C x push` is refused by `Bash(git push:*)`); a path is refused if it matches
as written or with links followed. A deny rule cannot see through code or variables
(`python -c`, `$cmd`): plan mode and hooks are the lines for that.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from hooks.session_rules import simple_words
from tools.quiet_links import real_path

Kind = Literal["allow", "ask", "deny"]
KINDS: tuple[Kind, ...] = ("deny", "ask", "allow")  # the order rules are consulted in
RULE = re.compile(r"^\s*([A-Za-z][\w-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
FAMILIES = {"Read": {"Read", "Grep", "Glob"}, "Edit": {"Write", "Edit"}, "Write": {"Write", "Edit"}}
SEARCHES = {"Grep", "Glob"}  # they read below their path
PATH_ARGUMENTS = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "Grep": "path",
                  "Glob": "path"}
SEPARATORS = {";", "&", "&&", "|", "||", "|&", ";;", "(", ")", "<", ">", ">>", "<<", "<<<", ">&", "<&",
              "&>", ">|", "{", "}", "!", "$", "`", "\n"}
INNER_DEPTH = 3


class RuleError(ValueError):
    """A rule that cannot be read; its message says why."""


@dataclass(frozen=True)
class Places:
    """Where path rules are anchored: the workspace (`/x`, `x`) and the home folder (`~/x`)."""

    workspace: Path
    home: Path


@dataclass(frozen=True)
class Rule:
    """One parsed rule: the tool it names and its specifier ('' for the whole tool)."""

    text: str
    tool: str
    specifier: str = ""

    def covers(self, tool: str, args: dict[str, Any], places: Places, cautious: bool) -> bool:
        """Does this rule cover this call? `cautious` for deny rules (see the module's docstring)."""
        if tool not in FAMILIES.get(self.tool, {self.tool}):
            return False
        if not self.specifier:
            return True
        if self.tool == "Bash":
            return covers_command(self.specifier, str(args.get("command", "")), cautious)
        return covers_path(self.specifier, _path_argument(tool, args), places, cautious,
                           searches=tool in SEARCHES)


def parse_rule(text: str) -> Rule:
    """`Tool` or `Tool(specifier)` as a Rule; RuleError says what is wrong."""
    found = RULE.match(text) if isinstance(text, str) else None
    if not found:
        raise RuleError(f"{text!r} is not a rule (write Tool or Tool(specifier), such as Bash(git status:*))")
    tool, specifier = found.group(1), (found.group(2) or "").strip()
    if specifier in ("", "*"):
        return Rule(text, tool)
    if tool != "Bash" and tool not in PATH_ARGUMENTS:
        raise RuleError(f"{text!r}: only Bash, Read, Edit, Write, Grep and Glob take a specifier; "
                        f"write {tool} alone for every {tool} call")
    return Rule(text, tool, specifier)


def covers_command(specifier: str, command: str, cautious: bool) -> bool:
    """Does a Bash specifier cover this command, strictly (allow) or cautiously (deny)?"""
    prefix = specifier.endswith(":*")
    wanted = specifier[:-2] if prefix else specifier
    if cautious:
        return any(_occurs(wanted, prefix, words) for words in simple_commands(command))
    words = simple_words(command)
    if words is None:
        return False
    said = " ".join(words)
    if prefix:
        rule_words = shlex.split(wanted) if simple_words(wanted) else wanted.split()
        return words[:len(rule_words)] == rule_words
    if "*" in wanted:
        return _wildcard(wanted).fullmatch(said) is not None
    return said == " ".join(shlex.split(wanted)) if simple_words(wanted) else said == wanted


def simple_commands(command: str, depth: int = 0) -> list[list[str]]:
    """Every simple command's words, read loosely (for deny rules).

    Split at shell separators, quotes removed, and each word that is itself a command
    line (`sh -c '…'`) split again.
    """
    text = command.replace("`", " ` ").replace("\n", " ; ")
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        tokens = re.findall(r"[^\s;&|()<>`$\"'\\]+|[;&|()<>`$]", text)
    found: list[list[str]] = []
    current: list[str] = []
    for token in tokens + [";"]:
        if token in SEPARATORS or token.startswith("$("):
            if current:
                found.append(current)
            current = []
            continue
        if depth < INNER_DEPTH and re.search(r"\s|[;&|`$()<>]", token):
            found.extend(simple_commands(token, depth + 1))
        current.append(token)
    return found


def _occurs(wanted: str, prefix: bool, words: list[str]) -> bool:
    """Cautious: the rule's words, in order, from any word of this simple command on."""
    bare = [os.path.basename(word) or word for word in words]
    if "*" in wanted and not prefix:
        pattern = re.compile(_wildcard(wanted).pattern + "(?= |$)", re.DOTALL)
        return any(pattern.match(" ".join([bare[i], *words[i + 1:]])) for i in range(len(words)))
    try:
        rule_words = shlex.split(wanted)
    except ValueError:
        rule_words = wanted.split()
    if not rule_words:
        return False
    first, rest = os.path.basename(rule_words[0]) or rule_words[0], rule_words[1:]
    return any(bare[i] == first and _in_order(rest, words[i + 1:]) for i in range(len(words)))


def _in_order(wanted: list[str], words: list[str]) -> bool:
    remaining = iter(words)
    return all(any(word == w for word in remaining) for w in wanted)


def _wildcard(specifier: str) -> re.Pattern[str]:
    """`*` as any text; a single trailing ` *` may also match nothing (`ls *` covers `ls`)."""
    if specifier.endswith(" *") and specifier.count("*") == 1:
        return re.compile(re.escape(specifier[:-2]) + r"(?: .*)?", re.DOTALL)
    return re.compile(".*".join(re.escape(part) for part in specifier.split("*")), re.DOTALL)


def _path_argument(tool: str, args: dict[str, Any]) -> str:
    value = args.get(PATH_ARGUMENTS.get(tool, "file_path"))
    return value if isinstance(value, str) and value else "."


def covers_path(specifier: str, argument: str, places: Places, cautious: bool,
                searches: bool = False) -> bool:
    """Does a path pattern cover the path a call names, as written and with links followed?

    For a search, a folder whose every entry the pattern covers (`secrets/**`) counts as
    covered itself: the probe is a child name no real file has (NUL).
    """
    pattern = path_pattern(specifier, places)
    given = Path(argument).expanduser()
    written = Path(os.path.normpath(given if given.is_absolute() else places.workspace / given))
    try:
        real = real_path(written)
    except (OSError, RuntimeError):
        real = written
    probe = "/\0" if searches else ""
    hits = [bool(pattern.fullmatch(str(path)) or probe and pattern.fullmatch(f"{path}{probe}"))
            for path in (written, real)]
    return any(hits) if cautious else all(hits)


def path_pattern(specifier: str, places: Places) -> re.Pattern[str]:
    """The absolute-path regex of a gitignore-style pattern, anchored as the docstring says."""
    spec = specifier.rstrip("/") or "/"
    if spec.startswith("//"):
        root, rest = "/", spec[2:]
    elif spec.startswith("~/"):
        root, rest = str(places.home), spec[2:]
    else:
        rest = spec.removeprefix("./")
        anchored = rest.startswith("/") or "/" in rest.strip("/")
        root, rest = str(places.workspace), rest.lstrip("/")
        if not anchored:
            rest = "**/" + rest
    return re.compile(re.escape(root.rstrip("/")) + "/" + _glob(rest) + r"(?:/.*)?", re.DOTALL)


def _glob(pattern: str) -> str:
    """gitignore glob to regex: `**/` any folders, `**` anything, `*` and `?` within a name."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append(r"(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)
