"""AskUserQuestion's callback: the questions on the screen, one answer line each.

Each question is shown with its header and its options numbered from 1. A
number picks an option (several, comma-separated, where more than one may be
chosen), any other text is the user's own answer, and an empty line skips the
question (tools/ask_user.py reads the line). A line of numbers that names no
option (3 of two) is asked again with a hint, not taken as words. Under each
question the screen says what it was taken as; Ctrl-D skips the rest. With
--ask-timeout, the countdown of ui/ask_countdown.py runs above the prompt.
In -p nobody can answer: the questions resolve at once with no answers, and the
model is told why.
"""

from __future__ import annotations

import time
from typing import Callable

from rich.text import Text

from tools.ask_user import Answers, Question, Questionnaire, parse_answer, unknown_options
from ui.ask_countdown import Countdown, DeadlinePassed, ask_with_countdown
from ui.console import ConsoleView
from ui.safe_text import safe

PROMPT = "Answer (number, or your own words; Enter skips): "
TIMED_OUT_NOTE = ("The user did not answer before the auto-continue deadline (--ask-timeout); "
                  "they may be away.")
HEADLESS_NOTE = ("This session runs without a user (-p), so nobody could answer; decide as you "
                 "would without them.")


def show_question(view: ConsoleView, question: Question) -> None:
    """The header, the question and its numbered options."""
    title = Text(f"[{safe(question.header)}] ", style="bold magenta")
    title.append(safe(question.question), style="bold")
    if question.multi_select:
        title.append("  (several: 1,3)", style="dim")
    view.console.print(title)
    for number, option in enumerate(question.options, 1):
        line = Text(f"  {number}. {safe(option.label)}", style="bold")
        if option.description:
            line.append(f" — {safe(option.description)}", style="dim")
        view.console.print(line)


def read_answer(view: ConsoleView, question: Question, read: Callable[[], str]) -> str | None:
    """The question's answer (None: skipped); a line naming no option is asked again with a hint."""
    while unknown := unknown_options(question, typed := read()):
        names = ", ".join(map(str, unknown))
        choose = f"1–{len(question.options)}" if len(question.options) > 1 else "1"
        view.notice(f"no option {names}; choose {choose} or type words", style="yellow")
    answer = parse_answer(question, typed)
    view.notice(f"  → {answer if answer is not None else 'skipped'}", style="dim")
    return answer


def interactive_ask(view: ConsoleView, ask: Callable[..., str],
                    clock: Callable[[], float] = time.time) -> Callable[[Questionnaire], Answers]:
    """Put each question to the user and read their answer line, under the countdown if any."""
    def ask_questions(questionnaire: Questionnaire) -> Answers:
        countdown = Countdown(questionnaire.countdown, clock) if questionnaire.countdown else None
        answers: dict[str, str] = {}
        def read() -> str:
            return ask_with_countdown(ask, PROMPT, countdown) if countdown else ask(PROMPT)
        for number, question in enumerate(questionnaire.questions):
            show_question(view, question)
            try:
                answer = read_answer(view, question, read)
            except EOFError:
                left = len(questionnaire.questions) - number
                view.notice(f"  → skipped with Ctrl-D: {left} question{'s' if left > 1 else ''}", style="dim")
                break
            except DeadlinePassed:
                view.notice(f"No answer by {countdown.deadline}: continuing without answers.",
                            style="yellow")
                return Answers(note=TIMED_OUT_NOTE)
            if answer is not None:
                answers[question.question] = answer
        return Answers(answers)
    return ask_questions


def headless_ask(view: ConsoleView) -> Callable[[Questionnaire], Answers]:
    """Nobody can answer in -p: the questions resolve unanswered, and the model is told so."""
    def ask_questions(questionnaire: Questionnaire) -> Answers:
        view.notice(f"{len(questionnaire.questions)} question(s) for the user → unanswered "
                    "(-p cannot ask)", style="yellow")
        return Answers(note=HEADLESS_NOTE)
    return ask_questions
