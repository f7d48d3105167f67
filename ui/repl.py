"""The interactive loop: prompt-toolkit input, slash commands, Shift+Tab, toolbar.

The bottom toolbar always shows the mode; PLAN is drawn on a magenta background so
it cannot be missed. Ctrl-C at the prompt clears the line; during a turn it
cancels the turn (the agent loop keeps the history valid). Ctrl-D or /exit leaves.
"""

from __future__ import annotations

from html import escape as html_escape
from pathlib import Path
from typing import Callable

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings

from agent.loop import TurnOutcome, unexpected
from session.live import Session
from state import AppState
from ui.console import ConsoleView
from ui.safe_text import safe
from ui.slash import run_slash_command


def toolbar(state: AppState, model_name: str) -> Callable[[], HTML]:
    def render() -> HTML:
        mode = (" <style bg='ansimagenta' fg='ansiwhite'><b> PLAN </b></style> read-only research"
                if state.plan_mode else f" mode: <b>{state.permission_mode.value}</b>")
        done = sum(todo.status == "completed" for todo in state.todos)
        todos = f"  ·  todos {done}/{len(state.todos)}" if state.todos else ""
        return HTML(f"{mode}{todos}  ·  model: {html_escape(safe(model_name))}  ·  Shift+Tab: mode  ·  /help")
    return render


def history_at(path: Path) -> History:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        return FileHistory(str(path))
    except OSError:
        return InMemoryHistory()


def run_repl(session: Session, view: ConsoleView, history: History, model_name: str) -> int:
    agent = session.agent
    state = agent.state
    keys = KeyBindings()

    @keys.add("s-tab")
    def _cycle(event) -> None:
        run_in_terminal(lambda: state.cycle("Shift+Tab"))

    prompt: PromptSession = PromptSession(history=history, key_bindings=keys,
                                    bottom_toolbar=toolbar(state, model_name))
    while True:
        try:
            line = prompt.prompt("› ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            return 0
        text = line.strip()
        if not text:
            continue
        if text.startswith("/"):
            try:
                outcome = run_slash_command(text, session)
            except KeyboardInterrupt:
                view.notice("Cancelled.", style="yellow")
                continue
            except Exception as failure:  # a command's bug must not end the REPL
                view.error(f"{text.split()[0]} failed: {unexpected(failure)}")
                continue
            if outcome.message:
                (view.error if outcome.is_error else view.notice)(outcome.message)
            if outcome.exit:
                return 0
            text = outcome.send
            if not text:
                continue
        report_outcome(agent.run_turn(text), view)


def report_outcome(outcome: TurnOutcome, view: ConsoleView) -> None:
    if outcome.ending == "interrupted":
        view.notice("Turn cancelled (Ctrl-C). The conversation is intact; go on when ready.",
                    style="yellow")
    elif outcome.ending == "ended_by_tool" and outcome.tool == "ExitPlanMode":
        view.notice("Plan rejected. Plan mode stays on; tell the agent what you want.", style="yellow")
    elif outcome.error:
        view.error(outcome.error)
