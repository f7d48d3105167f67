"""Quiz: is this command read-only, and why?

    python step42_plan_mode/quiz.py [-n 10] [--seed N]

Commands come from the corpus the tests prove (bash_corpus.py). Answer y for
read-only, n for "could change something"; the classifier's own judgement,
with its rule, token and alternative, is shown after each answer.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.bash_corpus import MUTATING, READ_ONLY  # noqa: E402
from tools.bash.classifier.classify import classify  # noqa: E402


def questions(count: int, seed: int | None) -> list[tuple[str, bool]]:
    pool = [(c, False) for c in MUTATING] + [(c, True) for c in READ_ONLY]
    return random.Random(seed).sample(pool, min(count, len(pool)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10, help="number of questions (default 10)")
    parser.add_argument("--seed", type=int, help="repeat a quiz with the same seed")
    args = parser.parse_args(argv)
    score = 0
    chosen = questions(args.n, args.seed)
    for number, (command, read_only) in enumerate(chosen, 1):
        print(f"\n[{number}/{len(chosen)}] $ {command}")
        try:
            answer = input("Read-only? [y/n] ").strip().lower()
        except EOFError:
            print()
            break
        right = (answer == "y") == read_only
        score += right
        judgement = classify(command)
        print(("✓ right. " if right else "✗ not quite. ") +
              ("Read-only." if read_only else f"Could change something: {judgement.explain()}"))
    print(f"\nScore: {score}/{len(chosen)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
