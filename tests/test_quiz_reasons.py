"""The Bash quiz explains a read-only answer with the classifier's own reason for it."""

from __future__ import annotations

from step42_plan_mode.quiz_bash import bash_questions
from tools.bash.classifier.classify import classify


def test_each_read_only_answer_is_explained_by_the_reason_the_classifier_gives():
    read_only = [q for q in bash_questions() if q.answer == 0]
    for question in read_only:
        command = question.prompt.removeprefix("$ ").split("\n")[0]
        reason = classify(command).rule
        assert reason and reason in question.why, (command, question.why)
    assert len({q.why for q in read_only}) >= len(read_only) // 2, "not one explanation for all"
    timeout = next(q for q in read_only if "timeout 5 cat" in q.prompt)
    assert "timeout" in timeout.why and "cat" in timeout.why, "a wrapper and what it wraps"


def test_a_denial_is_unchanged_by_read_only_reasons():
    judgement = classify("ls; rm -rf x")
    assert not judgement.read_only and judgement.token == "rm"
