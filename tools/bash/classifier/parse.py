"""Parse a command line into simple commands whose words are plain strings.

Why tree-sitter-bash rather than bashlex: it is maintained, ships prebuilt
wheels, covers today's bash grammar (heredocs, `|&`, `&>`), and marks what it
cannot parse with ERROR nodes instead of raising half-way, so "does not parse"
is a clear, testable outcome. bashlex has had no release since 2023 and fails on
several constructs a planner types.

Everything that could hide or run code is refused here, before any command is
judged: process substitution, parameter expansion (`$X`, `${IFS}`), ANSI-C
quoting, brace expansion, a `$` or a backquote in the body of a heredoc whose
delimiter is not quoted (bash expands them; the parser misses a backquote, and
all of a `<<-` body), assignments in front of a command, output
redirections other than to /dev/null or between descriptors, any redirection
from bash's /dev/tcp or /dev/udp (it opens a network connection) or from a
kernel file that acts when read (kernel_files.py), and every shell construct the
classifier does not judge (loops, functions, conditionals). A command
substitution `$(…)` in an argument is kept: its word is marked dynamic (its
text is unknown until it runs) and its inner command is handed back to be
classified in turn, so `echo $(git log -1)` can pass.

Before tree-sitter sees the line, characters on which it and bash disagree are
refused: any control character but tab and newline (`ls \r# ; CMD` is a comment
to tree-sitter and a command to bash), other Unicode spaces, and lone
surrogates. A line nested deeper than MAX_NESTING is refused too, so the walk
below stays within Python's recursion limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from tools.bash.classifier.kernel_files import acting_kernel_file
from tools.base import Judgement
from tools.bash.judgements import unsafe

STRUCTURE = {"program", "list", "pipeline", "redirected_statement", "subshell",
             "compound_statement", "negated_command"}
PUNCTUATION = {";", ";;", "&&", "||", "|", "|&", "&", "\n", "(", ")", "{", "}", "!", "comment"}
HIDING = {"process_substitution": "process substitution runs a command inside the command line",
          "simple_expansion": "a variable expansion hides what the command really is",
          "expansion": "a variable expansion hides what the command really is",
          "arithmetic_expansion": "arithmetic expansion can assign variables",
          "ansi_c_string": "ANSI-C quoting hides the real characters of a word",
          "translated_string": "locale quoting hides the real characters of a word",
          "brace_expression": "brace expansion turns one word into several"}
OUTPUT_OPERATORS = {">", ">>", "&>", "&>>", ">|", "<>"}
DESCRIPTOR = re.compile(r"^(\d+|-)$")
NETWORK_FILES = ("/dev/tcp/", "/dev/udp/")
GLOB = re.compile(r"(?<!\\)[*?\[]")
BRACES = re.compile(r"(?<!\\)\{[^}]*(,|\.\.)[^}]*\}")
DISAGREEING = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00a0\u1680\u2000-\u200f\u2028-\u202f"
                         r"\u205f-\u2064\u3000\ufeff\ud800-\udfff]")
MAX_NESTING = 60
MAX_LENGTH = 20_000
EXPANDING, QUOTED = re.compile(r"[$`]"), re.compile(r"['\"\\]")
HEREDOC_PARTS = {"<<", "<<-", "heredoc_start", "heredoc_body", "heredoc_end", "heredoc_content"}


@dataclass(frozen=True)
class Word:
    """One argument as bash will see it; `glob` and `dynamic` mean its final text is not known yet.

    `dynamic` is a command substitution.
    """

    text: str
    glob: bool = False
    dynamic: bool = False


@dataclass
class SimpleCommand:
    """One command of a line: its words after quotes and escapes are resolved."""

    words: list[Word] = field(default_factory=list)
    substitutions: list[str] = field(default_factory=list)

    @property
    def argv(self) -> list[str]:
        """The words as the program would see them."""
        return [w.text for w in self.words]


class Refused(Exception):
    """Raised inside the walk; carries the judgement for the whole command line."""

    def __init__(self, judgement: Judgement, cut: tuple[int, int] | None = None):
        super().__init__(judgement.rule)
        self.judgement = judgement
        self.cut = cut

    def judgement_for(self, command: str) -> Judgement:
        """The judgement; where a part can simply be left out, the command without it."""
        if self.cut is None:
            return self.judgement
        raw = command.encode()
        rest = (raw[:self.cut[0]] + raw[self.cut[1]:]).decode(errors="replace")
        alternative = " ".join(rest.split())
        return Judgement(False, self.judgement.rule, self.judgement.token, alternative)


@lru_cache(maxsize=1)
def _parser():
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse(command: str) -> list[SimpleCommand] | Judgement:
    """The simple commands of `command`, in order, or why it cannot be judged."""
    if len(command) > MAX_LENGTH:
        return unsafe(f"a command longer than {MAX_LENGTH} characters is not judged", command[:40])
    odd = DISAGREEING.search(command)
    if odd:
        return unsafe("a control or special space character, which the parser and bash read "
                      "differently", repr(odd.group(0)), "retype the command with plain spaces")
    root = _parser().parse(command.encode()).root_node
    if root.has_error:
        return unsafe("the command does not parse as shell", _first_error(root))
    commands: list[SimpleCommand] = []
    try:
        substitutions = _scan_hidden(root)
        accepted: set[int] = set()
        _walk(root, commands, accepted)
        if substitutions - accepted:
            raise Refused(unsafe("command substitution outside a command's arguments is not judged",
                                 _text(next(n for n in _substitution_nodes(root)
                                            if n.start_byte not in accepted))))
    except Refused as refused:
        return refused.judgement_for(command)
    return commands


def _text(node) -> str:
    return node.text.decode(errors="replace")


def _first_error(root) -> str:
    """The first ERROR or missing node's text; `root.has_error` promises there is one."""
    node, stack = root, []
    while not (node.type == "ERROR" or node.is_missing):
        stack.extend(reversed(node.children))
        node = stack.pop()
    return _text(node)[:40] or node.type


def _scan_hidden(root) -> set[int]:
    """Refuse what hides code, and refuse nesting too deep to walk; return where the
    outermost command substitutions start (what is inside them is judged on its own)."""
    stack = [(root, 0)]
    substitutions = set()
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise Refused(unsafe("a command nested too deeply to judge", _text(node)[:40]))
        if node.type in HIDING:
            raise Refused(unsafe(HIDING[node.type], _text(node)))
        if node.type == "command_substitution":
            substitutions.add(node.start_byte)
            continue
        stack.extend((child, depth + 1) for child in node.children)
    return substitutions


def _substitution_nodes(root):
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "command_substitution":
            yield node
        else:
            stack.extend(node.children)


def _walk(node, commands: list[SimpleCommand], accepted: set[int]) -> None:
    kind = node.type
    if kind in STRUCTURE:
        for child in node.children:
            _walk(child, commands, accepted)
    elif kind == "command":
        commands.append(_command(node, commands, accepted))
    elif kind in {"file_redirect", "heredoc_redirect", "herestring_redirect"}:
        _redirect(node, commands, accepted)
    elif kind == "variable_assignment":
        raise Refused(unsafe("a variable assignment changes how later commands run", _text(node)))
    elif kind not in PUNCTUATION:
        raise Refused(unsafe(f"the shell construct '{kind}' is not judged; run its commands one by one",
                             _text(node)[:40]))


def _command(node, commands: list[SimpleCommand], accepted: set[int]) -> SimpleCommand:
    simple = SimpleCommand()
    for child in node.children:
        if child.type == "variable_assignment":
            raise Refused(unsafe("an assignment in front of a command changes how it runs",
                                 _text(child)))
        if child.type in {"file_redirect", "heredoc_redirect", "herestring_redirect"}:
            _redirect(child, commands, accepted)
        elif child.type == "command_name":
            simple.words.append(_word(child.children[0]))
        else:
            simple.words.append(_word(child, simple.substitutions, accepted))
    return simple


def _redirect(node, commands: list[SimpleCommand], accepted: set[int]) -> None:
    if node.type == "heredoc_redirect":
        _refuse_expanding_body(node)
        for child in node.children:
            if child.type in STRUCTURE or child.type == "command":
                _walk(child, commands, accepted)
            elif child.type == "file_redirect":
                _redirect(child, commands, accepted)
            elif child.is_named and child.type not in HEREDOC_PARTS:
                raise Refused(unsafe(f"'{child.type}' after a heredoc is not judged", _text(child)))
        return
    if node.type != "file_redirect":
        for child in node.children:
            if child.type in STRUCTURE or child.type == "command":
                _walk(child, commands, accepted)
            elif child.is_named:
                _word(child)
        return
    operator = next((c for c in node.children if not c.is_named), None)
    targets = [c for c in node.children if c.is_named and c.type != "file_descriptor"]
    if len(targets) > 1:
        raise Refused(unsafe("words after a redirection's target are the command's arguments; "
                             "put them before the redirection", _text(node)))
    op = _text(operator) if operator is not None else ""
    target = _word(targets[0]).text if targets else ""
    if op in {">&", "<&", ">&-", "<&-"} and (DESCRIPTOR.match(target) or not targets):
        return
    if target.startswith(NETWORK_FILES):
        raise Refused(unsafe("bash opens a network connection for a /dev/tcp or /dev/udp "
                             "redirection", f"{op} {target}".strip()),
                      cut=(node.start_byte, node.end_byte))
    acting = acting_kernel_file(target, GLOB.search(_text(targets[0])) is not None) if targets else None
    if acting:
        raise Refused(acting)
    if op in OUTPUT_OPERATORS or op in {">&", "<&"}:
        if target != "/dev/null" or op == "<>":
            raise Refused(unsafe("output redirection writes a file", f"{op} {target}".strip()),
                          cut=(node.start_byte, node.end_byte))


def _refuse_expanding_body(node) -> None:
    """Refuse a `$` or a backquote after an unquoted heredoc delimiter: bash expands them in
    the body, and the parser does not always say so (a backquote, anything in a `<<-` body)."""
    children = node.children
    start = next((index for index, child in enumerate(children) if child.type == "heredoc_start"), None)
    if start is None or QUOTED.search(_text(children[start])):
        return
    body = "".join(_text(child) for child in children[start + 1:])
    found = EXPANDING.search(body)
    if found:
        raise Refused(unsafe("bash expands an unquoted heredoc's body, running what `$…` and backquotes "
                             "hold there; quote the delimiter (<<'EOF') to pass the body as it is",
                             body[found.start():][:40]))


def _word(node, substitutions: list[str] | None = None, accepted: set[int] | None = None) -> Word:
    """The word as bash will pass it; a `$(…)` inside is accepted only where
    `substitutions` collects inner commands for the classifier."""
    kind = node.type
    if kind == "command_substitution":
        return _substitution(node, substitutions, accepted)
    if kind == "word":
        raw = _text(node)
        if BRACES.search(raw):
            raise Refused(unsafe(HIDING["brace_expression"], raw))
        return Word(_unescape(raw), glob=bool(GLOB.search(raw)))
    if kind == "number":
        return Word(_text(node))
    if kind == "raw_string":
        return Word(_text(node)[1:-1])
    if kind == "string":
        parts = [_string_part(c, substitutions, accepted) for c in node.children if c.type != '"']
        return Word("".join(p.text for p in parts), dynamic=any(p.dynamic for p in parts))
    if kind == "concatenation":
        parts = [_word(c, substitutions, accepted) for c in node.children]
        return Word("".join(p.text for p in parts), glob=any(p.glob for p in parts),
                    dynamic=any(p.dynamic for p in parts))
    raise Refused(unsafe(HIDING.get(kind, f"the word form '{kind}' is not judged"), _text(node)))


def _substitution(node, substitutions: list[str] | None, accepted: set[int] | None) -> Word:
    text = _text(node)
    if substitutions is None or accepted is None or not text.startswith("$("):
        raise Refused(unsafe("command substitution here runs a command the classifier cannot "
                             "place; use $(…) only in a command's arguments", text))
    substitutions.append(text[2:-1])
    accepted.add(node.start_byte)
    return Word(text, dynamic=True)


def _string_part(node, substitutions: list[str] | None, accepted: set[int] | None) -> Word:
    if node.type == "string_content":
        return Word(re.sub(r'\\([$`"\\\n])', r"\1", _text(node)))
    if node.type == "command_substitution":
        return _substitution(node, substitutions, accepted)
    raise Refused(unsafe(HIDING.get(node.type, f"'{node.type}' inside quotes is not judged"),
                         _text(node)))


def _unescape(raw: str) -> str:
    return re.sub(r"\\(.)", r"\1", raw, flags=re.DOTALL)
