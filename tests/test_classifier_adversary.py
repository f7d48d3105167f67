"""The classifier against an adversary: it always answers, never raises, and says no
to what it cannot read the way bash will. (The corpus, tests/bash_corpus.py, proves
each class against real bash; these are the fast checks and the property test.)"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tools.bash.classifier.classify import classify
from tools.base import Judgement

SHELL_PIECES = st.sampled_from([
    "ls", "git", "log", "-p", "--output=x", "sed", "-n", "'1p'", "awk", "'{print}'", ">", ">>",
    "/dev/null", "|", "||", "&&", ";", "&", "(", ")", "{", "}", "$(", "`", "\"", "'", "\\", "$X",
    "${IFS}", "<<EOF\n", "EOF", "\n", "\r", "\t", "#", "test", "-v", "a[$(id)]", "xargs", "sort",
    "-o", "--", "=", "*", "?", "[", "]", "!", "cat", "f.txt", "bash", "-c", "\ud800", "\x00",
])


@settings(derandomize=True, max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), st.lists(SHELL_PIECES, max_size=40).map(" ".join)))
def test_the_classifier_always_answers_and_never_raises(command):
    judgement = classify(command)
    assert isinstance(judgement, Judgement)
    assert judgement.read_only or judgement.rule


@pytest.mark.parametrize("command", [
    " && ".join(["ls"] * 1000), " | ".join(["cat"] * 1000), "(" * 500 + "ls" + ")" * 500,
    "echo " + "$(" * 300 + "ls" + ")" * 300, "echo \ud800", "ls \udfff", "x" * 100_000,
])
def test_hostile_shapes_get_an_answer_not_an_exception(command):
    judgement = classify(command)
    assert isinstance(judgement, Judgement) and (judgement.read_only or judgement.rule)


@pytest.mark.parametrize("command", [
    "ls \r# ; rm -rf x", "ls \f# ; rm x", "ls \v#; rm x", "ls\u00a0;rm x", "ls \x1b[0m",
    "echo \u2028; rm x", "cat f\x00", "ls \ufeff",
])
def test_characters_the_parser_and_bash_read_differently_are_refused(command):
    judgement = classify(command)
    assert not judgement.read_only and "character" in judgement.rule


@pytest.mark.parametrize("command", [
    "test -v 'a[$(touch x)]'", "printf -v 'a[$(touch x)]' x", "test -R 'a'",
    "xargs --process-slot-var ls touch x", "sort --o=x f", "sort -T -- -o x f", "time -o x ls",
    "rg --hostname-bin ./x y", "rg --pre ./x y", "rg --pre-glob '*' y", "uniq -f -- in out",
    "echo hi > x /dev/null", "sort > /dev/null -o x f", "cat <<EOF > x\nhi\nEOF",
    "sed -n ':a w x' f", "sed -n 'b end w x' f", "awk '/\"/ { print 1 > \"x\" } /\"/' f",
    "awk '{ print 1,\n 2 > \"x\" }' f", "awk 'BEGIN { print 1 \\\n > \"x\" }'", "awk '@f()'",
    "awk -e 'BEGIN{}'", "git config user.name list", "git remote -v add x y",
    "git config --unset user.name", "sort $(echo -o x) f", "$(echo ls) x", "timeout $(echo 5) ls",
    "bash -c \"$(echo ls)\"", "cat <<< $(ls)", "echo $(touch x)", "echo \"$(rm -rf x)\"",
    "echo `ls`", "ls > $(echo x)", "cat <<EOF\n$(touch x)\nEOF", "cat <<< \"$(touch x)\"",
    "cat < /dev/tcp/127.0.0.1/80", "git --git-dir=x log", "git --work-tree=. status",
    "git -C evil.git --bare diff HEAD~1 HEAD", "git rev-list --alternate-refs HEAD",
    "git cat-file --filt HEAD:f", "git grep -e -- -O'touch x'", "file -m -- -C",
    "git range-diff --src-prefix -- --output=x A..B C..D", "tree -P -- -o x",
    "awk 'BEGIN { # \"\n system(\"touch x\") # \"\n}'", "gawk 'BEGIN { x++ / system(\"touch x\") / 1 }'",
    "awk '/[/\"]/ { } END { print 1 | \"touch x\" } # \"' f",
    "awk '/[[:alpha:]/\"]/ { } END { print 1 | \"touch x\" } # \"' f",
    "awk '/[]/\"]/ { } END { print 1 | \"touch x\" } # \"' f", "awk '{ s = \"sys\" \"tem\"; system }' f",
    "xxd -r -ps in.hex out", "xxd -r in", "xxd f out", "hostname -Fhn", "hostname --file=f",
    "hostname -b", "hostname new", "sort -T /etc f",
])
def test_each_class_of_the_issue_is_refused(command):
    assert not classify(command).read_only


@pytest.mark.parametrize("command", [
    "echo $(git log -1)", "echo \"$(git rev-parse HEAD)\"", "wc -l $(git ls-files)", "ls",
    "git log", "git merge-base HEAD main", "sort -r -k2 f", "sort --reverse f", "uniq -c f",
    "rg -n -i hello src", "timeout -s KILL 5 ls", "nice -5 cat f", "xargs -0 -n 2 echo",
    "sed -n ':a;N;$!ba;p' f", "awk -F: '{ print $1 }' f", "awk '$1 ~ /a\"b/' f",
    "git config --get user.name", "git config user.name", "git remote -v", "test -f f",
    "cat <<EOF\nhello\nEOF", "cd src && ls", "awk '{ print $1 } # a comment' f",
    "awk '/a\"b/ { n++ } END { print n }' f", "xxd -ps f", "xxd -c8 -s -10 f", "hostname -f",
    "hostname", "git log -- f.txt", "awk '/^[[:space:]]*$/ { n++ } END { print n }' f",
    "awk '$2 ~ /^[^0-9]+$/' f", "git grep -e hello",
])
def test_read_only_commands_still_pass(command):
    assert classify(command).read_only, classify(command)


def test_a_denial_names_the_token_and_an_alternative():
    judgement = classify("sort -t -- -o out.txt f.txt")
    assert judgement.token == "-o" and judgement.alternative
    judgement = classify("ls \r# ; rm x")
    assert judgement.token == repr("\r") and "plain spaces" in judgement.alternative
