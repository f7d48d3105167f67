"""Permission rules in Claude Code's syntax: an allow rule never covers a second command, and a
deny rule cannot be stepped around by how the command is spelled."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from settings.rules import Places, RuleError, parse_rule

PLACES = Places(Path("/work/app"), Path("/home/me"))
WORDS = st.sampled_from(["ls", "-la", "src", "git", "log", "echo", "hello", "cat", "notes.txt", "grep",
                         "-n", "x", "make", "build", "python3", "tests"])
SEPARATORS = st.sampled_from([" ; ", " && ", " || ", " | ", " & ", "\n", ";"])
# Ways a command can be run inside another command line, each a template for `rm -rf target`.
HIDINGS = st.sampled_from(["{}", "$({})", "`{}`", "bash -c '{}'", "sh -c \"{}\"", "sudo {}", "env A=1 {}",
                           "command {}", "/bin/{}", "nohup {} &", "( {} )", "{{ {}; }}", "xargs {}",
                           "time {}", "eval '{}'", "timeout 5 {}", "exec {}", "r''{}", "'{}'"])


def bash(rule: str, command: str, cautious: bool) -> bool:
    return parse_rule(rule).covers("Bash", {"command": command}, PLACES, cautious)


def commands(draw_words):
    return st.lists(draw_words, min_size=1, max_size=4).map(" ".join)


@hypothesis_settings(max_examples=300, deadline=None, derandomize=True)
@given(before=st.lists(commands(WORDS), max_size=3), after=st.lists(commands(WORDS), max_size=3),
       separator=SEPARATORS, hiding=HIDINGS, tail=commands(WORDS))
def test_a_deny_rule_holds_wherever_the_command_sits_in_the_line(before, after, separator, hiding, tail):
    denied = hiding.format("rm -rf " + tail) if not hiding.startswith("r''") else "r''m -rf " + tail
    if hiding == "'{}'":
        denied = "'rm' -rf " + tail
    line = separator.join([*before, denied, *after])
    assert bash("Bash(rm:*)", line, cautious=True), line


@hypothesis_settings(max_examples=300, deadline=None, derandomize=True)
@given(args=st.lists(WORDS, max_size=4), separator=SEPARATORS, second=commands(WORDS))
def test_an_allow_rule_never_covers_a_second_command(args, separator, second):
    first = " ".join(["git", "status", *args])
    assert bash("Bash(git status:*)", first, cautious=False)
    assert not bash("Bash(git status:*)", first + separator + second, cautious=False)
    assert not bash("Bash(git status:*)", f"{first} $({second})", cautious=False)
    assert not bash("Bash(git status:*)", f"{first} > {second.split()[0]}", cautious=False)


@hypothesis_settings(max_examples=200, deadline=None, derandomize=True)
@given(line=st.lists(st.one_of(WORDS, SEPARATORS), max_size=10).map(" ".join))
def test_what_an_allow_rule_covers_a_deny_rule_of_the_same_words_refuses(line):
    for rule in ("Bash(git log:*)", "Bash(echo hello)", "Bash(cat *)"):
        if bash(rule, line, cautious=False):
            assert bash(rule, line, cautious=True), (rule, line)


@pytest.mark.parametrize("rule, command, strict, cautious", [
    ("Bash(git status:*)", "git status -s", True, True),
    ("Bash(git status:*)", "git statusx", False, False),
    ("Bash(git status)", "git status", True, True),
    ("Bash(git status)", "git status -s", False, True),   # a deny is a prefix: it covers more
    ("Bash(ls *)", "ls", True, True),
    ("Bash(ls *)", "lsof", False, False),
    ("Bash(npm run *)", "npm run build", True, True),
    ("Bash(git * main)", "git push origin main", True, True),
    ("Bash(git push:*)", "git -C . push --force", False, True),
    ("Bash(rm:*)", "grep rm notes.txt", False, True),   # cautious: the word anywhere is enough
    ("Bash(rm:*)", "ls; rmdir x", False, False),
    ("Bash", "anything at all; rm -rf /", True, True),
])
def test_bash_rules_match_as_claude_code_writes_them(rule, command, strict, cautious):
    assert bash(rule, command, cautious=False) is strict
    assert bash(rule, command, cautious=True) is cautious


def test_path_rules_follow_gitignore_anchoring_and_cover_the_tool_family(tmp_path):
    places = Places(tmp_path, tmp_path / "home")
    env = parse_rule("Write(.env)")
    assert env.covers("Write", {"file_path": ".env"}, places, cautious=True)
    assert env.covers("Edit", {"file_path": "deep/in/.env"}, places, cautious=True)
    assert not env.covers("Write", {"file_path": ".env.example"}, places, cautious=True)
    assert not env.covers("Read", {"file_path": ".env"}, places, cautious=True)
    source = parse_rule("Edit(/src/**)")
    assert source.covers("Write", {"file_path": str(tmp_path / "src" / "a" / "b.py")}, places, False)
    assert not source.covers("Write", {"file_path": "lib/src/b.py"}, places, False)
    secrets = parse_rule("Read(~/.ssh/**)")
    assert secrets.covers("Grep", {"path": str(tmp_path / "home" / ".ssh")}, places, cautious=True)
    assert not parse_rule("Read(.env)").covers("Grep", {"path": "."}, places, cautious=True)
    assert secrets.covers("Read", {"file_path": str(tmp_path / "home" / ".ssh" / "id")}, places, True)
    assert parse_rule("Read(//etc/**)").covers("Glob", {"path": "/etc/ssl"}, places, cautious=True)


def test_a_link_is_judged_by_where_it_points_too(tmp_path):
    places = Places(tmp_path, tmp_path)
    (tmp_path / ".env").write_text("KEY=1")
    (tmp_path / "notes.txt").symlink_to(tmp_path / ".env")
    assert parse_rule("Write(.env)").covers("Write", {"file_path": "notes.txt"}, places, cautious=True)
    assert not parse_rule("Write(*.txt)").covers("Write", {"file_path": "notes.txt"}, places, cautious=False)


@pytest.mark.parametrize("text", ["", "bash(", "Bash(x", "Agent(Explore)", "12", "Read Write"])
def test_a_rule_that_cannot_be_read_says_so(text):
    with pytest.raises(RuleError):
        parse_rule(text)
