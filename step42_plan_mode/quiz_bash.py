"""The Bash quiz: is this command read-only? Marked by the classifier itself.

The commands are chosen to teach the classifier's rules (redirections, in-place
edits, find actions, git options, wrappers, hidden code); whether each is
read-only, and why, is asked of `classify` when the quiz runs.
"""

from __future__ import annotations

from typing import Callable

from step42_plan_mode.quiz_question import Question
from tools.bash.classifier.classify import classify
from tools.base import Judgement

COMMANDS = (
    "ls -la", "git log --oneline -5", "git merge-base main HEAD", "grep -rn TODO .",
    "sed -n '1,20p' README.md", "sed -i s/a/b/ README.md", "find . -name '*.py'",
    "find . -name '*.pyc' -delete", "sort data.txt", "sort -o data.txt data.txt",
    "cat notes.md > copy.md", "tee log.txt", "echo hi 2>/dev/null", "git diff --stat",
    "git -c core.pager=sh\\ -c\\ date log", "git branch new-feature", "python -c 'print(1)'",
    "bash -c 'ls'", "timeout 5 cat README.md", "xargs rm < files.txt", "wc -l *.py",
    "echo $(touch x)", "awk '{print $1}' data.txt", "awk '{print > \"out\"}' data.txt",
)


def bash_questions(judge: Callable[[str], Judgement] = classify) -> list[Question]:
    """One question per command; the right answer and the reason come from `judge`."""
    questions = []
    for command in COMMANDS:
        verdict = judge(command)
        why = (f"Read-only: {verdict.rule or 'nothing in it writes'}." if verdict.read_only
               else f"Could change something — {verdict.explain()}")
        questions.append(Question(f"$ {command}\n  Can it run while planning?",
                                  ("yes, it is read-only", "no, it could change something"),
                                  0 if verdict.read_only else 1, why))
    return questions
