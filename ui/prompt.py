"""The REPL's prompt: the line the user types at, its bottom toolbar, its keys and completion.

It needs only the state, and callbacks for what the agent holds (the model's name, the
context used, the todo list), so it can be drawn before the agent exists: a fresh start
shows it first and builds the agent behind it (ui/prompt_first.py), and what waits for the
agent (Shift+Tab, Tab's session and model ids) asks `session` for it first. The bottom toolbar
always shows the mode; PLAN is drawn on a magenta background so it cannot be missed;
during a turn, the same facts sit beside the spinner and under the streaming answer
(status_line). Tab completes commands and their arguments; Alt+Enter (or Esc, Enter)
starts a new line; Ctrl-Z suspends to the shell, as the questions' prompts do too.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application, get_app_or_none, run_in_terminal
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.renderer import CPR_Support

from ui.completion import SlashCompleter
from ui.fit_line import Fragments, fitted
from ui.modes import MODE_CYCLE, cycle
from ui.safe_text import safe
from ui.slash_help import command_names

if TYPE_CHECKING:
    from session.live import Session
    from state import AppState
    from tools.todos import Todo

TODO_SHOWN = 40  # characters of the step in progress the status line has room for


def todo_parts(todos: tuple[Todo, ...]) -> tuple[str, str]:
    """`todos 1/3` and the step in progress in its active form, cut to TODO_SHOWN ('' for none)."""
    if not todos:
        return "", ""
    done = sum(todo.status == "completed" for todo in todos)
    current = next((todo.shown for todo in todos if todo.status == "in_progress"), "")
    if len(current) > TODO_SHOWN:
        current = current[:TODO_SHOWN - 1] + "…"
    return f"todos {done}/{len(todos)}", safe(current)


def todo_progress(todos: tuple[Todo, ...]) -> str:
    """`todos 1/3: Running tests`: how many are done, and the step in progress in its active form."""
    done, current = todo_parts(todos)
    return f"{done}: {current}" if current else done


def toolbar(state: AppState, model_name: Callable[[], str], context: Callable[[], str] = lambda: "",
            columns: Callable[[], int] | None = None,
            todos: Callable[[], tuple[Todo, ...]] = lambda: ()) -> Callable[[], Fragments]:
    """The bottom line: mode (PLAN on magenta), todos, context use, keys, then the model.

    It fits the terminal (ui/fit_line.py): where it is too narrow, the context loses its
    token counts, the keys shorten to /help, the todos to their count, then the keys go,
    the mode's words and the model's label; what is still too wide is cut at its end, so a
    long model name, last, is what a narrow terminal cuts. `context` is the long form,
    `context 12% (15,000 of 128,000 tokens)`; its short form ends before the parenthesis.
    `todos` gives the session's todo list (tools/todos.py is not loaded for the first draw).
    """
    def render() -> Fragments:
        if state.plan_mode:
            plan = [("", " "), ("bg:ansimagenta fg:ansiwhite bold", " PLAN ")]
            mode = [plan + [("", " read-only research")], plan]
        else:
            label = ("bold", state.permission_mode.value)
            mode = [[("", " mode: "), label], [("", " "), label]]
        listed = todos()
        progress = [[("", todo_progress(listed))], [("", todo_parts(listed)[0])]]
        used = context()
        name = safe(model_name())
        facts = [mode, progress, [[("", used)], [("", used.split(" (", 1)[0])]],
                 [[("", "Shift+Tab: mode  ·  /help")], [("", "/help")], []],
                 [[("", f"model: {name}")], [("", name)]]]
        return fitted(facts, GIVING_WAY, columns() if columns else terminal_columns())
    return render


def terminal_columns() -> int:
    """The width of the terminal the prompt is drawn on (80 outside a running prompt)."""
    app = get_app_or_none()
    return app.output.get_size().columns if app else 80


GIVING_WAY = (2, 3, 1, 3, 0, 4)  # context, keys, todos, keys, mode, model: each a step shorter


def status_line(state: AppState, model_name: Callable[[], str], context: Callable[[], str] = lambda: "",
                todos: Callable[[], tuple[Todo, ...]] = lambda: ()) -> str:
    """The toolbar's facts as plain text, shown under the spinner and the streaming answer."""
    parts = ["PLAN" if state.plan_mode else f"mode: {state.permission_mode.value}",
             todo_progress(todos()),
             f"model: {safe(model_name())}", context()]
    return "  ·  ".join(part for part in parts if part)


def history_at(path: Path) -> History:
    """The prompt's history, kept in `path` across sessions; in memory when the file cannot be made."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        return FileHistory(str(path))
    except OSError:
        return InMemoryHistory()


def after_first_draw(prompt: PromptSession, action: Callable[[], None]) -> None:
    """Run `action` in a background thread once, when the prompt is first whole on screen.

    prompt-toolkit draws the bottom toolbar once the terminal has answered where its cursor
    is; the action waits for that drawing rather than compete with it, as long as
    prompt-toolkit waits for the answer (a terminal may never give one), and no longer
    once the line has been entered.
    """
    whole = threading.Event()
    started = False

    def drawn(app: Application) -> None:
        nonlocal started
        renderer = app.renderer
        if renderer.height_is_known or renderer.cpr_support == CPR_Support.NOT_SUPPORTED or app.is_done:
            whole.set()
        if not started:
            started = True
            threading.Thread(target=when_whole, args=(renderer.CPR_TIMEOUT,), name="after-first-draw",
                             daemon=True).start()

    def when_whole(patience: float) -> None:
        whole.wait(patience)
        action()

    prompt.app.after_render += drawn


def repl_prompt(state: AppState, history: History, session: Callable[[], Session],
                model_name: Callable[[], str], context: Callable[[], str],
                todos: Callable[[], tuple[Todo, ...]]) -> PromptSession:
    """The prompt with its toolbar and keys.

    `session` gives the live session, waiting for it if it is still being built: Shift+Tab's
    mode change is the session's to record, and Tab completes its stored ids and its model's
    catalog.
    """
    keys = KeyBindings()

    @keys.add("s-tab")
    def _cycle(event) -> None:
        run_in_terminal(lambda: (session(), cycle(state, "Shift+Tab")))

    @keys.add("escape", "enter")
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    completer = SlashCompleter(command_names, {
        "/mode": lambda: list(MODE_CYCLE),
        "/resume": lambda: [info.id for info in session().recent()],
        "/model": lambda: ["plan", *(info.id for info in session().agent.model.list_models())],
    })
    return PromptSession(history=history, key_bindings=keys, completer=completer, complete_while_typing=False,
                         bottom_toolbar=toolbar(state, model_name, context, todos=todos), enable_suspend=True)


def read_line(prompt: PromptSession) -> str | None:
    """The next line typed at the prompt (Ctrl-C clears the line); None when the input ends (Ctrl-D)."""
    while True:
        try:
            return prompt.prompt("› ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            return None
