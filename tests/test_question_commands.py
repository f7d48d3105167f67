"""A slash command typed at a permission question or an AskUserQuestion runs, and is never the answer."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from agent.approval import PermissionRequest
from state import AppState
from tools.base import QuestionLeft
from tools.ask_user import Option, Question, Questionnaire
from ui.ask import interactive_ask
from ui.callbacks import interactive_approve
from ui.console import ConsoleView
from ui.question_commands import QuestionCommands, answering_commands


def asked(*answers: str):
    pending = iter(answers)
    return lambda question, **options: next(pending)


def test_a_command_at_a_permission_question_runs_and_the_question_is_asked_again():
    out = io.StringIO()
    view = ConsoleView(Console(file=out, width=120))
    commands = QuestionCommands(view)
    approve = interactive_approve(view, answering_commands(asked("/clear", "/nonsense", "n"), commands, AppState()))
    answer = approve(PermissionRequest("Write", {"file_path": "a"}, "build mode asks", None, None))
    assert not answer.allow and answer.feedback == ""
    assert "cannot run here" in out.getvalue() and "Unknown command" not in out.getvalue()


def test_exit_at_a_permission_question_leaves_it_unanswered():
    view = ConsoleView(Console(file=io.StringIO(), width=120))
    commands = QuestionCommands(view)
    approve = interactive_approve(view, answering_commands(asked("/exit"), commands, AppState()))
    with pytest.raises(QuestionLeft) as left:
        approve(PermissionRequest("Write", {"file_path": "a"}, "build mode asks", None, None))
    assert commands.leaving and str(left.value) == "/exit"


def test_a_command_at_a_question_of_the_model_is_not_its_answer():
    view = ConsoleView(Console(file=io.StringIO(), width=120))
    ask = interactive_ask(view, answering_commands(asked("/help", "2"), QuestionCommands(view), AppState()))
    question = Question("Which colour?", "Colour", (Option("Blue", ""), Option("Red", "")), False)
    answers = ask(Questionnaire((question,)))
    assert answers.by_question == {"Which colour?": "Red"}
