"""TodoWrite and TodoRead as the model uses them, and how the user sees the list."""

from __future__ import annotations

import io
import json

from prompt_toolkit.formatted_text import fragment_list_to_text
from rich.console import Console

from state import AppState
from tests.harness import Session, call, turn
from tools.todos import Todo, TodosChanged, replace_todos, todos_of
from ui.console import ConsoleView
from ui.prompt import toolbar


def shown_toolbar(state) -> str:
    """The bottom toolbar's text on a terminal 120 columns wide."""
    shown = toolbar(state, lambda: "m", columns=lambda: 120, todos=lambda: todos_of(state))
    return fragment_list_to_text(shown())


LIST = [{"content": "Read the code", "status": "completed", "priority": "high"},
        {"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"},
        {"content": "Write docs", "status": "pending", "priority": "low"}]


def test_replacing_the_todos_returns_the_old_list_and_says_so():
    state = AppState()
    seen = []
    state.events.subscribe(seen.append)
    first = (Todo("read the code", "in_progress"),)
    assert replace_todos(state, first) == ()
    assert replace_todos(state, []) == first
    assert todos_of(state) == ()
    assert seen == [TodosChanged((), first), TodosChanged(first, ())]


def test_todowrite_replaces_the_list_and_reports_old_new_and_counts(workspace):
    session = Session(workspace, [turn("", call("TodoWrite", todos=LIST[:1])),
                                  turn("", call("TodoWrite", todos=LIST)),
                                  turn("", call("TodoRead")), turn("ok")])
    session.run()
    first, second, read = (json.loads(text) for text in session.tool_results())
    assert first["oldTodos"] == [] and len(first["todos"]) == 1
    assert [t["content"] for t in second["oldTodos"]] == ["Read the code"]
    assert second["summary"] == {"pending": 1, "in_progress": 1, "completed": 1}
    assert read["todos"][1] == {"content": "Run tests", "status": "in_progress",
                                "priority": "medium", "activeForm": "Running tests"}
    assert todos_of(session.state)[1].shown == "Running tests"


def test_two_in_progress_items_are_refused_and_the_list_kept(workspace):
    two = [dict(item, status="in_progress") for item in LIST[:2]]
    session = Session(workspace, [turn("", call("TodoWrite", todos=LIST)),
                                  turn("", call("TodoWrite", todos=two)), turn("ok")])
    session.run()
    assert "At most one todo may be in_progress" in session.tool_results()[1]
    assert [t.content for t in todos_of(session.state)] == [i["content"] for i in LIST]


def test_bad_items_are_refused(workspace):
    session = Session(workspace, [turn("", call("TodoWrite", todos=[{"content": "", "status": "pending"}]),
                                  call("TodoWrite", todos=[{"content": "  ", "status": "pending"}]),
                                  call("TodoWrite", todos=[{"content": "x", "status": "done"}])),
                      turn("ok")])
    session.run()
    empty, blank, status = session.tool_results()
    assert "must not be empty" in empty and "non-empty" in blank and "one of" in status
    assert todos_of(session.state) == ()


def test_todos_work_while_planning_and_never_ask(workspace):
    session = Session(workspace, [turn("", call("TodoWrite", todos=LIST)), turn("ok")], mode="plan")
    session.run()
    assert len(todos_of(session.state)) == 3 and session.questions == []


def test_console_shows_a_checklist_with_the_active_form():
    console = Console(record=True, width=80)
    ConsoleView(console).show_todos((Todo("Read", "completed"), Todo("Test", "in_progress", "medium", "Testing"),
                                     Todo("Docs")))
    text = console.export_text()
    assert "☑ Read" in text and "◐ Testing" in text and "☐ Docs" in text


def test_toolbar_shows_completed_over_total(workspace):
    session = Session(workspace, [turn("", call("TodoWrite", todos=LIST)), turn("ok")])
    session.run()
    assert "todos 1/3" in shown_toolbar(session.state)


def test_a_session_stored_with_the_old_field_keeps_its_active_forms():
    stored = {"content": "Run tests", "status": "in_progress", "priority": "medium", "active_form": "Running tests"}
    todo = Todo.from_dict(stored)
    assert todo.shown == "Running tests"
    assert todo.as_dict() == {**{k: v for k, v in stored.items() if k != "active_form"}, "activeForm": "Running tests"}


def test_what_the_model_is_given_back_keeps_both_forms(workspace):
    from tools.todos import todo_lines

    session = Session(workspace, [turn("", call("TodoWrite", todos=LIST)), turn("ok")])
    session.run()
    assert "2. [in_progress] Run tests (activeForm: Running tests)" in todo_lines(todos_of(session.state))
    assert "todos 1/3: Running tests" in shown_toolbar(session.state)


def _with_todos(workspace, tmp_path, *turns):
    from session.store import SessionStore
    from tests.harness import journaled

    store = SessionStore(tmp_path / "home" / "sessions.db")
    session, live = journaled(workspace, store, [turn("", call("TodoWrite", todos=LIST[1:])),
                                                 turn("listed"), *turns])
    session.run("make a list")
    return store, session, live


def test_clear_and_lesson_start_a_fresh_conversation_with_an_empty_todo_list(workspace, tmp_path):
    from step42_plan_mode.lesson_model import load_lesson
    from ui.slash import run_slash_command

    store, session, live = _with_todos(workspace, tmp_path)
    old = session.state.session_id
    run_slash_command("/clear", live)
    assert todos_of(session.state) == () and "todos" not in shown_toolbar(session.state)
    assert [todo.content for todo in store.todos(old)] == ["Run tests", "Write docs"], \
        "the old session keeps its list for /resume"
    replace_todos(session.state, tuple(Todo.from_dict(item) for item in LIST))
    session.agent.model = load_lesson()
    run_slash_command("/lesson", live)
    assert todos_of(session.state) == ()


def test_c_hands_the_current_todos_to_the_fresh_conversation(workspace, tmp_path):
    from ui.repl import _build_fresh

    store, session, live = _with_todos(workspace, tmp_path, turn("building"))
    old = session.state.session_id
    view = ConsoleView(Console(file=io.StringIO(), width=100))
    _build_fresh(live, view, "The user approved your plan.", None)
    assert session.state.session_id != old
    assert [todo.content for todo in todos_of(session.state)] == ["Run tests", "Write docs"]
    assert [todo.content for todo in store.todos(session.state.session_id)] == ["Run tests",
                                                                                "Write docs"]
