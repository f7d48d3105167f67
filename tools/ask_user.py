"""AskUserQuestion: the model asks the user a few multiple-choice questions.

The answers are never the model's to give: an `ask` callback injected by
ui/product.py (the console's in the REPL, an instant "nobody here" in -p, a fake in
tests) puts the questions to the user and returns what they chose. Without that
callback the tool refuses to run. Like ExitPlanMode it `requires_user`, so it
reaches the user in every mode, yolo included, and it is allowed while planning.
A user who leaves the questions with a command (/exit, /mode, Shift+Tab) answers
none of them, and the turn ends (tools/base.py: QuestionLeft).

Auto-continue (off unless a timeout is given): after a silent grace, a visible
countdown runs to the deadline, and then the questions resolve with no answers.
The countdown's absolute times are emitted as an AskCountdown event, so the
journal keeps them; a resumed session emits them again (session/live.py), and the
same questions asked again get the same deadline. ui/ask_countdown.py shows it.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from agent.events import Event
from state import AppState
from tools.base import QuestionLeft, Tool, ToolResult, error, object_schema

if TYPE_CHECKING:
    from agent.loop import Agent

MAX_HEADER = 12
GRACE_SECONDS = 60.0
DESCRIPTION = (
    "Ask the user 1 to 4 multiple-choice questions and wait for the answers. Use it only when "
    "you are blocked on a decision that is truly the user's: one that the request, the code and "
    "sensible defaults cannot settle. Each question has a short header (at most 12 characters), "
    "2 to 4 options (a label and a description each) and multiSelect. Put the option you "
    "recommend first and end its label with \"(Recommended)\". The user may also type an answer "
    "of their own, or skip a question. Never use this tool to ask whether your plan is good "
    "(ExitPlanMode shows the plan for approval) or whether to start planning (call EnterPlanMode).")

OPTION = object_schema({"label": {"type": "string", "minLength": 1},
                        "description": {"type": "string"}})
QUESTION = object_schema(
    {"question": {"type": "string", "minLength": 1},
     "header": {"type": "string", "minLength": 1, "maxLength": MAX_HEADER},
     "options": {"type": "array", "minItems": 2, "maxItems": 4, "items": OPTION}},
    {"multiSelect": {"type": "boolean", "description": "Several options may be chosen."}})
PARAMETERS = object_schema({"questions": {"type": "array", "minItems": 1, "maxItems": 4,
                                          "items": QUESTION}})


@dataclass(frozen=True)
class AskCountdown(Event):
    """AskUserQuestion's auto-continue times (seconds since the epoch) for one questionnaire."""

    key: str
    started_at: float
    visible_at: float
    deadline_at: float


@dataclass(frozen=True)
class Option:
    """One choice: the label the user picks and what it means."""

    label: str
    description: str


@dataclass(frozen=True)
class Question:
    """One question with its numbered options."""

    question: str
    header: str
    options: tuple[Option, ...]
    multi_select: bool = False


@dataclass(frozen=True)
class Questionnaire:
    """What the UI is asked to show, and the auto-continue countdown if there is one."""

    questions: tuple[Question, ...]
    countdown: AskCountdown | None = None


@dataclass(frozen=True)
class Answers:
    """The user's answers by question text (a skipped question is absent), and a note for the model."""

    by_question: dict[str, str] = field(default_factory=dict)
    note: str = ""


def parse_answer(question: Question, typed: str) -> str | None:
    """What a typed line means: numbers pick options, other text is a free answer, empty skips."""
    text = typed.strip()
    if not text:
        return None
    parts = [part.strip() for part in text.split(",")]
    numbers = [int(part) for part in parts if part.isascii() and part.isdigit()]
    picks = len(numbers) == len(parts) and all(1 <= n <= len(question.options) for n in numbers)
    if picks and (question.multi_select or len(numbers) == 1):
        return ", ".join(question.options[n - 1].label for n in dict.fromkeys(numbers))
    return text


def unknown_options(question: Question, typed: str) -> list[int]:
    """The numbers in a line of numbers only that name no option: a slip, almost never words."""
    parts = [part.strip() for part in typed.split(",")]
    if not all(part.isascii() and part.isdigit() for part in parts):
        return []
    return [n for n in dict.fromkeys(map(int, parts)) if not 1 <= n <= len(question.options)]


def questionnaire_key(questions: list[dict[str, Any]]) -> str:
    """A stable name for a set of questions: how a resumed session finds its countdown."""
    encoded = json.dumps(questions, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(encoded).hexdigest()[:16]


def result_text(questions: tuple[Question, ...], answers: Answers) -> str:
    """One of three texts: all answered, some answered, none answered."""
    answered = [(q.question, answers.by_question[q.question]) for q in questions
                if q.question in answers.by_question]
    lines = "\n".join(f'- "{asked}" → {answer}' for asked, answer in answered)
    if len(answered) == len(questions):
        text = f"The user answered your questions:\n{lines}\nCarry on with these answers."
    elif answered:
        skipped = "\n".join(f'- "{q.question}"' for q in questions
                            if q.question not in answers.by_question)
        text = (f"The user answered {len(answered)} of {len(questions)} questions:\n{lines}\n"
                f"They skipped:\n{skipped}\nUse your own judgement for the skipped ones, and say "
                "what you chose.")
    else:
        text = ("The user answered none of the questions. This is not a refusal: carry on with "
                "sensible defaults and say which you chose. Do not invent the user's preferences.")
    return f"{text}\n{answers.note}" if answers.note else text


def make_ask_tool(state: AppState, ask: Callable[[Questionnaire], Answers] | None,
                  timeout: float | None = None, clock: Callable[[], float] = time.time,
                  grace: float = GRACE_SECONDS) -> Tool:
    """The AskUserQuestion tool; `timeout` seconds turns auto-continue on.

    The countdown stays silent for `grace` seconds (at most a fifth of the timeout);
    `clock` and `grace` are there for tests, which cannot wait minutes.
    """
    restored: dict[str, AskCountdown] = {}

    def remember(event: Event) -> None:
        if isinstance(event, AskCountdown):
            restored[event.key] = event

    state.events.subscribe(remember)

    def countdown_for(key: str) -> AskCountdown | None:
        if timeout is None:
            return None
        if key in restored:
            return restored.pop(key)
        now = clock()
        countdown = AskCountdown(key, now, now + min(grace, timeout / 5), now + timeout)
        state.events.emit(countdown)
        restored.pop(key, None)  # our own event came back through `remember`
        return countdown

    def run(args: dict[str, Any]) -> ToolResult:
        if ask is None:
            return error("AskUserQuestion needs the user's answers before it can run, and nobody "
                         "can answer here. Decide with sensible defaults and say which you chose.")
        questions = tuple(Question(q["question"], q["header"],
                                   tuple(Option(o["label"], o["description"]) for o in q["options"]),
                                   q.get("multiSelect", False)) for q in args["questions"])
        problem = _duplicates(questions)
        if problem:
            return error(problem)
        try:
            answers = ask(Questionnaire(questions, countdown_for(questionnaire_key(args["questions"]))))
        except QuestionLeft as left:
            said = left.TOLD.format(left, "answering your questions", state.mode_label)
            return ToolResult(f"The user {said}", end_turn=True, summary=f"not answered: you left with {left}")
        blank = [asked for asked, answer in answers.by_question.items() if not answer.strip()]
        if blank:
            return error(f"The answer to {blank[0]!r} is blank; a skipped question has no answer.")
        return ToolResult(result_text(questions, answers))

    return Tool("AskUserQuestion", DESCRIPTION, PARAMETERS, run, allowed_in_plan_mode=True,
                requires_user=True)


def _duplicates(questions: tuple[Question, ...]) -> str:
    texts = [q.question for q in questions]
    if len(set(texts)) != len(texts):
        return "Each question must be different; two questions have the same text."
    for q in questions:
        labels = [option.label for option in q.options]
        if len(set(labels)) != len(labels):
            return f"The options of {q.question!r} must have different labels."
    return ""


def ask_user_layer(agent: "Agent", ask: Callable[[Questionnaire], Answers] | None,
                   timeout: float | None = None) -> None:
    """The layer: AskUserQuestion, answered through the UI's `ask` (None: nobody can answer)."""
    tool = make_ask_tool(agent.state, ask, timeout)
    agent.executor.tools[tool.name] = tool
