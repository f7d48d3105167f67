"""Two quizzes for the lesson, one command each: `./bin/quiz plan` and `./bin/quiz bash`.

    ./bin/quiz plan [-n 8] [--seed N]   concepts of plan mode (quiz_plan.py)
    ./bin/quiz bash [-n 10] [--seed N]  is this command read-only? (quiz_bash.py)

Ctrl-D ends a quiz early with the score so far; Ctrl-C stops it at once (exit code 130).

The Bash quiz is marked by the classifier itself, never by a list written beside
it, so it cannot teach something the code does not do. Each run shuffles the
choices, the right answers spread over the letters (quiz_question.dealt).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import textwrap
from typing import Callable

from step42_plan_mode.quiz_bash import bash_questions
from step42_plan_mode.quiz_plan import plan_questions
from step42_plan_mode.quiz_question import Question, dealt

MAX_WIDTH = 100
QUIZZES: dict[str, Callable[[], list[Question]]] = {"plan": plan_questions, "bash": bash_questions}


def run_quiz(questions: list[Question], ask: Callable[[str], str] = input) -> int:
    """Ask each question, explain after each answer, print the score; returns the score.

    Text is wrapped at word boundaries to the terminal's width; an answer is a letter
    offered, or the start of the one choice's first word it begins (y or yes, n or no);
    anything else is asked again.
    """
    width = min(shutil.get_terminal_size((80, 24)).columns, MAX_WIDTH)
    score = answered = 0
    for number, question in enumerate(questions, 1):
        print()
        print(textwrap.fill(f"[{number}/{len(questions)}] {question.prompt}", width))
        letters = "abcd"[:len(question.choices)]
        for letter, choice in zip(letters, question.choices):
            print(textwrap.fill(choice, width, initial_indent=f"  {letter}) ", subsequent_indent="     "))
        answer = _letter(ask, letters, question.choices)
        if answer is None:
            print()
            break
        right = answer == letters[question.answer]
        score, answered = score + right, answered + 1
        verdict = "✓ right. " if right else f"✗ it is {letters[question.answer]}. "
        print(textwrap.fill(verdict + question.why, width))
    stopped = f" (stopped after {answered} of {len(questions)} questions)" if answered < len(questions) else ""
    print(f"\nScore: {score}/{answered}{stopped}")
    return score


def _letter(ask: Callable[[str], str], letters: str, choices: tuple[str, ...]) -> str | None:
    """One of `letters`, asked until the answer is one (or names one choice); None at the end of input."""
    words = [choice.lower().replace(",", " ").split()[0] for choice in choices]
    while True:
        try:
            answer = ask("Your answer: ").strip().lower()
        except EOFError:
            return None
        if len(answer) == 1 and answer in letters:
            return answer
        named = [letter for letter, word in zip(letters, words) if answer and word.startswith(answer)]
        if len(named) == 1:
            return named[0]
        print(f"Please answer with one letter: {', '.join(letters)}.")


def main(argv: list[str] | None = None) -> int:
    """The quiz command line."""
    parser = argparse.ArgumentParser(prog="quiz", description=__doc__.splitlines()[0])
    parser.add_argument("topic", choices=sorted(QUIZZES), help="plan: concepts; bash: read-only commands")
    parser.add_argument("-n", type=int, default=10, help="number of questions (default 10)")
    parser.add_argument("--seed", type=int, help="repeat a quiz with the same seed")
    args = parser.parse_args(argv)
    pool = QUIZZES[args.topic]()
    try:
        run_quiz(dealt(pool, args.n, random.Random(args.seed)))
    except KeyboardInterrupt:  # Ctrl-C: stop at once, as terminal programs do, without a traceback
        print()
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
