"""The interactive loop: prompt-toolkit input, slash commands, Shift+Tab, toolbar.

The bottom toolbar always shows the mode; PLAN is drawn on a magenta background so
it cannot be missed; during a turn, the same facts sit beside the spinner and
under the streaming answer (status_line). Ctrl-C at the prompt clears the line;
during a turn it cancels the turn (the agent loop keeps the history valid).
Ctrl-D or /exit leaves, and says how to resume and what the session's
commands left running. Tab completes commands and their
arguments; Alt+Enter (or Esc, Enter) starts a new line; a message that starts with
a path (`/tmp/x.py is broken`) goes to the model, not to the commands.
"""

from __future__ import annotations

import threading
from html import escape as html_escape
from pathlib import Path
from typing import Callable
from urllib.parse import urlparse

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings

from agent.events import Todo
from agent.loop import TurnOutcome, unexpected
from session.live import Session
from agent import MODE_CYCLE
from state import AppState
from tools.bash.left_running import left_by, this_stepagent
from tools.plan_mode import EXIT_PLAN_MODE, PlanReview
from ui.callbacks import UICallbacks
from ui.console import ConsoleView
from ui.safe_text import safe
from ui.completion import SlashCompleter
from ui.question_commands import is_command, show_outcome
from ui.slash import command_names, run_slash_command
from ui.startup import resume_command, show_last_exchange

TODO_SHOWN = 40  # characters of the step in progress the status line has room for


def completer(session: Session) -> SlashCompleter:
    """Tab: command names, then modes, stored session ids and the endpoint's model ids."""
    model = session.agent.model
    return SlashCompleter(command_names, {
        "/mode": lambda: list(MODE_CYCLE),
        "/resume": lambda: [info.id for info in session.recent()],
        "/model": lambda: [info.id for info in model.list_models()],
    })


def todo_progress(todos: tuple[Todo, ...]) -> str:
    """`todos 1/3: Running tests`: how many are done, and the step in progress in its active form."""
    if not todos:
        return ""
    done = sum(todo.status == "completed" for todo in todos)
    current = next((todo.shown for todo in todos if todo.status == "in_progress"), "")
    if len(current) > TODO_SHOWN:
        current = current[:TODO_SHOWN - 1] + "…"
    return f"todos {done}/{len(todos)}" + (f": {safe(current)}" if current else "")


def toolbar(state: AppState, model_name: Callable[[], str],
            context: Callable[[], str] = lambda: "") -> Callable[[], HTML]:
    """The bottom line: mode (PLAN on magenta), todos, context use, keys, then the model.

    The model comes last because a long model name is what a narrow terminal should cut.
    """
    def render() -> HTML:
        mode = (" <style bg='ansimagenta' fg='ansiwhite'><b> PLAN </b></style> read-only research"
                if state.plan_mode else f" mode: <b>{state.permission_mode.value}</b>")
        progress = todo_progress(state.todos)
        todos = f"  ·  {html_escape(progress)}" if progress else ""
        shown = context()
        used = f"  ·  {html_escape(shown)}" if shown else ""
        return HTML(f"{mode}{todos}{used}  ·  Shift+Tab: mode  ·  /help  ·  "
                    f"model: {html_escape(safe(model_name()))}")
    return render


def status_line(state: AppState, model_name: Callable[[], str],
                context: Callable[[], str] = lambda: "") -> str:
    """The toolbar's facts as plain text, shown under the spinner and the streaming answer."""
    parts = ["PLAN" if state.plan_mode else f"mode: {state.permission_mode.value}",
             todo_progress(state.todos),
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


def startup_line(session: Session, sandbox: str) -> str:
    """Model, endpoint host, workspace, mode and the plan-mode sandbox, in one line.

    `sandbox` is the sandbox's own notice, which names itself.
    """
    model = session.agent.model
    endpoint = getattr(model, "endpoint", "")
    host = f" at {urlparse(endpoint).netloc or endpoint}" if endpoint else ""
    return (f"stepagent · model {model.name}{host} · workspace {session.agent.workspace} · "
            f"mode {session.agent.state.mode_label} · {sandbox or 'Plan-mode sandbox: unknown'}")


def after_first_draw(prompt: PromptSession, action: Callable[[], None]) -> None:
    """Run `action` in a background thread once, when the prompt is first on screen."""
    started = False

    def start(_app: object) -> None:
        nonlocal started
        if not started:
            started = True
            threading.Thread(target=action, name="after-first-draw", daemon=True).start()

    prompt.app.after_render += start


def run_repl(session: Session, view: ConsoleView, history: History, first_message: str = "",
             callbacks: UICallbacks | None = None) -> int:
    """Run the REPL until the user leaves; `first_message` is sent before the first prompt.

    `callbacks` are the questions' (ui/callbacks.py): after a turn the REPL reads how the
    plan review ended, and whether /exit was typed at a question.
    """
    agent = session.agent
    state = agent.state
    keys = KeyBindings()

    @keys.add("s-tab")
    def _cycle(event) -> None:
        run_in_terminal(lambda: state.cycle("Shift+Tab"))

    @keys.add("escape", "enter")
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    prompt: PromptSession = PromptSession(
        history=history, key_bindings=keys, completer=completer(session), complete_while_typing=False,
        bottom_toolbar=toolbar(state, lambda: agent.model.name, session.context_line))
    warm_up = getattr(agent.model, "warm_up", None)
    if warm_up:  # started before the prompt is drawn, it would slow the drawing (bench/startup.py)
        after_first_draw(prompt, warm_up)
    view.status = lambda: status_line(state, lambda: agent.model.name, session.context_share)
    view.notice(startup_line(session, view.sandbox_status()), style="dim")
    try:
        if not (first_message and _send(session, view, first_message, callbacks)):
            _loop(session, view, prompt, callbacks)
    finally:
        view.show_left_running_at_exit(left_by(this_stepagent(agent.workspace)))
        if agent.messages:
            view.command("Resume this session with:", resume_command(state.session_id))
    return 0


def _loop(session: Session, view: ConsoleView, prompt: PromptSession,
          callbacks: UICallbacks | None) -> None:
    """Read a line, run it (a command or a message to the model), until the user leaves."""
    while True:
        try:
            line = prompt.prompt("› ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            return
        text = line.strip()
        if not text:
            continue
        if is_command(text):
            try:
                outcome = run_slash_command(text, session)
            except KeyboardInterrupt:
                view.notice("Cancelled.", style="yellow")
                continue
            except Exception as failure:  # a command's bug must not end the REPL
                view.error(f"{text.split()[0]} failed: {unexpected(failure)}")
                continue
            show_outcome(outcome, view)
            if outcome.resumed:
                show_last_exchange(session, view)
            if outcome.exit:
                return
            if outcome.fresh_start:
                if _build_fresh(session, view, outcome.fresh_start, callbacks):
                    return
                continue
            text = outcome.send
            if not text:
                continue
        if _send(session, view, text, callbacks):
            return


def _send(session: Session, view: ConsoleView, text: str, callbacks: UICallbacks | None) -> bool:
    """One turn with the model, then how it ended and the tokens it cost; True to leave the REPL.

    A plan approved with c goes on in a fresh conversation that holds only the plan.
    """
    review = callbacks.review if callbacks else None
    if review is not None:
        review.last = None
    session.usage.start_turn()
    outcome = session.agent.run_turn(text)
    if callbacks and callbacks.commands and callbacks.commands.leaving:
        return True
    reviewed = review.last if review is not None else None
    report_outcome(outcome, view, reviewed)
    if session.usage.turn.reported:
        view.notice(session.usage.turn.line(), style="dim")
    if reviewed and reviewed.outcome == "approve" and reviewed.clear and not session.agent.state.plan_mode:
        return _build_fresh(session, view, session.agent.messages[-1]["content"], callbacks)
    return False


def _build_fresh(session: Session, view: ConsoleView, approval: str, callbacks: UICallbacks | None) -> bool:
    """c: a new conversation (a new session) whose only context is the approval with its plan,
    and the todos; the planning conversation stays in the store."""
    state = session.agent.state
    old = session.clear()
    state.replace_todos(state.todos)
    view.notice(f"A fresh conversation builds the approved plan; the planning conversation is kept "
                f"as {old} (/resume {old} goes back to it).", style="yellow")
    return _send(session, view, approval, callbacks)


ENDED_BY_REVIEW = {
    "reject": "Plan rejected. Plan mode stays on; tell the agent what you want.",
    "save": "Plan saved for later. Plan mode stays on: /plan show prints it, /plan approve approves it.",
    "left": "The plan was not approved: you left plan mode ({left_by}).",
}


def report_outcome(outcome: TurnOutcome, view: ConsoleView, review: PlanReview | None = None) -> None:
    """Say why a turn stopped early (cancelled, a plan review's end, an error), else nothing."""
    if outcome.ending == "interrupted":
        view.notice("Turn cancelled (Ctrl-C). The conversation is intact; go on when ready.",
                    style="yellow")
    elif outcome.ending == "ended_by_tool" and outcome.tool == EXIT_PLAN_MODE:
        if review is not None and review.outcome in ENDED_BY_REVIEW:
            view.notice(ENDED_BY_REVIEW[review.outcome].format(left_by=review.left_by), style="yellow")
        elif review is None or review.outcome != "approve":
            view.notice("The plan was not approved. Plan mode stays on.", style="yellow")
    elif outcome.error:
        view.error(outcome.error)
