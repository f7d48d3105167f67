"""Two quizzes for the lesson, one command each: `./bin/quiz plan` and `./bin/quiz bash`.

    ./bin/quiz plan [-n 8] [--seed N]   concepts of plan mode (quiz_plan.py)
    ./bin/quiz bash [-n 10] [--seed N]  is this command read-only? (quiz_bash.py)

The Bash quiz is marked by the classifier itself, never by a list written beside
it, so it cannot teach something the code does not do.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Callable

from step42_plan_mode.quiz_bash import bash_questions
from step42_plan_mode.quiz_plan import plan_questions
from step42_plan_mode.quiz_question import Question

QUIZZES: dict[str, Callable[[], list[Question]]] = {"plan": plan_questions, "bash": bash_questions}


def run_quiz(questions: list[Question], ask: Callable[[str], str] = input) -> int:
    """Ask each question, explain after each answer, print the score; returns the score."""
    score = 0
    for number, question in enumerate(questions, 1):
        print(f"\n[{number}/{len(questions)}] {question.prompt}")
        for letter, choice in zip("abcd", question.choices):
            print(f"  {letter}) {choice}")
        try:
            answer = ask("Your answer: ").strip().lower()
        except EOFError:
            print()
            break
        right = answer == "abcd"[question.answer]
        score += right
        print(("✓ right. " if right else f"✗ it is {'abcd'[question.answer]}. ") + question.why)
    print(f"\nScore: {score}/{len(questions)}")
    return score


def main(argv: list[str] | None = None) -> int:
    """The quiz command line."""
    parser = argparse.ArgumentParser(prog="quiz", description=__doc__.splitlines()[0])
    parser.add_argument("topic", choices=sorted(QUIZZES), help="plan: concepts; bash: read-only commands")
    parser.add_argument("-n", type=int, default=10, help="number of questions (default 10)")
    parser.add_argument("--seed", type=int, help="repeat a quiz with the same seed")
    args = parser.parse_args(argv)
    pool = QUIZZES[args.topic]()
    run_quiz(random.Random(args.seed).sample(pool, min(args.n, len(pool))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
