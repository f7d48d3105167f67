"""AskUserQuestion on a scripted model: the UI fills the answers, in every mode,
and the model hears which questions were answered."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from tools.ask_user import AskCountdown
from tests.harness import call, turn
from tests.subagent_kit import Parent
from state import AppState
from tools.ask_user import (Answers, Option, Question, make_ask_tool, parse_answer,
                            questionnaire_key, result_text)

COLOR = {"question": "Which colour?", "header": "Colour", "multiSelect": False,
         "options": [{"label": "Blue (Recommended)", "description": "calm"},
                     {"label": "Red", "description": "loud"}]}
SIZE_QUESTION = Question("Which sizes?", "Sizes", (Option("S", ""), Option("M", ""), Option("L", "")),
                         multi_select=True)


class Asking(Parent):
    """A parent session whose user answers with the queued Answers."""

    def __init__(self, workspace, turns, answers, mode="build"):
        self.answers, self.asked = list(answers), []
        super().__init__(workspace, turns, {}, mode=mode)

    def _ask(self, questionnaire):
        self.asked.append(questionnaire)
        return self.answers.pop(0)


@pytest.mark.parametrize("mode", ["build", "edit", "yolo", "plan"])
def test_it_asks_the_user_in_every_mode(workspace, mode):
    session = Asking(workspace, [turn("", call("AskUserQuestion", questions=[COLOR])), turn("ok")],
                     [Answers({"Which colour?": "Red"})], mode=mode)
    session.run()
    assert [q.question for q in session.asked[0].questions] == ["Which colour?"]
    assert "Red" in session.tool_results()[0]
    assert session.questions == [], "no permission question in front of it"


def test_the_model_cannot_fill_in_the_answers_itself(workspace):
    session = Asking(workspace, [turn("", call("AskUserQuestion", questions=[COLOR],
                                               answers={"Which colour?": "Red"})), turn("ok")], [])
    session.run()
    assert "answers is not a known argument" in session.tool_results()[0]
    assert session.asked == []


def test_without_a_ui_callback_it_refuses_to_run(workspace):
    tool = make_ask_tool(AppState(), None)
    result = tool.handler({"questions": [COLOR]})
    assert result.is_error


@pytest.mark.parametrize("broken, complaint", [
    ({**COLOR, "header": "Thirteen char"}, "at most 12"),
    ({**COLOR, "options": COLOR["options"][:1]}, "at least 2"),
    ({**COLOR, "options": COLOR["options"] * 3}, "at most 4"),
])
def test_malformed_questions_are_refused_before_anyone_is_asked(workspace, broken, complaint):
    session = Asking(workspace, [turn("", call("AskUserQuestion", questions=[broken])), turn("ok")], [])
    session.run()
    assert complaint in session.tool_results()[0]
    assert session.asked == []


def test_at_most_four_questions(workspace):
    five = [{**COLOR, "question": f"Q{n}?"} for n in range(5)]
    session = Asking(workspace, [turn("", call("AskUserQuestion", questions=five)), turn("ok")], [])
    session.run()
    assert "at most 4" in session.tool_results()[0] and session.asked == []


def test_numbers_pick_options_other_text_is_free_and_empty_skips():
    colour = Question("Which colour?", "Colour", (Option("Blue", ""), Option("Red", "")))
    assert parse_answer(colour, "2") == "Red"
    assert parse_answer(colour, " 1 ") == "Blue"
    assert parse_answer(colour, "green, please") == "green, please"
    assert parse_answer(colour, "1,2") == "1,2", "one choice only: a list is a free answer"
    assert parse_answer(colour, "3") == "3"
    assert parse_answer(colour, "   ") is None
    assert parse_answer(SIZE_QUESTION, "1, 3") == "S, L"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=20))
def test_any_typed_line_is_a_skip_a_pick_or_itself(typed):
    answer = parse_answer(SIZE_QUESTION, typed)
    if not typed.strip():
        assert answer is None
    else:
        labels = {"S", "M", "L"}
        assert answer == typed.strip() or set(answer.split(", ")) <= labels


def test_the_three_results_all_some_none():
    questions = (Question("Which colour?", "Colour", (Option("Blue", ""), Option("Red", ""))),
                 SIZE_QUESTION)
    everything = result_text(questions, Answers({"Which colour?": "Red", "Which sizes?": "S, L"}))
    some = result_text(questions, Answers({"Which colour?": "Red"}))
    nothing = result_text(questions, Answers())
    assert "Red" in everything and "S, L" in everything
    assert "Red" in some and "Which sizes?" in some
    assert "Red" not in nothing and len({everything, some, nothing}) == 3
    assert result_text(questions, Answers(note="headless")).endswith("headless")


def test_a_blank_answer_is_refused(workspace):
    session = Asking(workspace, [turn("", call("AskUserQuestion", questions=[COLOR])), turn("ok")],
                     [Answers({"Which colour?": "  "})])
    session.run()
    assert "blank" in session.tool_results()[0]


def test_auto_continue_times_are_emitted_with_a_grace_then_a_deadline():
    state, seen = AppState(), []
    state.events.subscribe(seen.append)
    asked = []
    tool = make_ask_tool(state, lambda q: asked.append(q) or Answers(), timeout=300,
                         clock=lambda: 1000.0)
    tool.handler({"questions": [COLOR]})
    countdown = asked[0].countdown
    assert (countdown.started_at, countdown.visible_at, countdown.deadline_at) == (1000.0, 1060.0, 1300.0)
    assert [e for e in seen if isinstance(e, AskCountdown)] == [countdown]
    short = make_ask_tool(AppState(), lambda q: asked.append(q) or Answers(), timeout=10,
                          clock=lambda: 0.0)
    short.handler({"questions": [COLOR]})
    assert (asked[1].countdown.visible_at, asked[1].countdown.deadline_at) == (2.0, 10.0)


def test_without_a_timeout_there_is_no_countdown():
    asked = []
    make_ask_tool(AppState(), lambda q: asked.append(q) or Answers()).handler({"questions": [COLOR]})
    assert asked[0].countdown is None


def test_a_restored_countdown_keeps_its_deadline():
    state, asked = AppState(), []
    tool = make_ask_tool(state, lambda q: asked.append(q) or Answers(), timeout=300,
                         clock=lambda: 5000.0)
    restored = AskCountdown(questionnaire_key([COLOR]), 1000.0, 1060.0, 1300.0)
    state.events.emit(restored)
    tool.handler({"questions": [COLOR]})
    tool.handler({"questions": [COLOR]})
    assert asked[0].countdown == restored
    assert asked[1].countdown.deadline_at == 5300.0, "a new asking gets a new countdown"


def test_the_grace_is_a_seam_and_never_more_than_a_fifth_of_the_timeout():
    asked = []
    answer = lambda q: asked.append(q) or Answers()  # noqa: E731
    make_ask_tool(AppState(), answer, timeout=2, clock=lambda: 0.0, grace=0.1).handler({"questions": [COLOR]})
    make_ask_tool(AppState(), answer, timeout=2, clock=lambda: 0.0, grace=60).handler({"questions": [COLOR]})
    assert [(q.countdown.visible_at, q.countdown.deadline_at) for q in asked] == [(0.1, 2.0), (0.4, 2.0)]
