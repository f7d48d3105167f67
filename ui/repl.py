"""The interactive loop: prompt-toolkit input, slash commands, Shift+Tab, toolbar.

The bottom toolbar always shows the mode; PLAN is drawn in reverse magenta so
it cannot be missed. Ctrl-C at the prompt clears the line; during a turn it
cancels the turn (the agent loop keeps the history valid). Ctrl-D or /exit leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings

from agent import Agent, TurnOutcome
from state import AppState
from ui.console import ConsoleView
from ui.slash import run_slash_command


@dataclass
class ModeAnnouncer:
    """Prints each mode change once, with who caused it; on entering plan mode,
    also whether the OS sandbox backs the classifier."""

    state: AppState
    view: ConsoleView
    sandbox_status: Callable[[], str]
    seen: int = 0

    def announce(self) -> None:
        for change in self.state.mode_changes[self.seen:]:
            label = "plan" if change.plan_mode else change.permission_mode
            self.view.notice(f"mode → {label} (by {change.cause})", style="magenta" if change.plan_mode else "cyan")
            if change.plan_mode:
                self.view.notice(self.sandbox_status(), style="dim")
        self.seen = len(self.state.mode_changes)


def toolbar(state: AppState, model_name: str) -> Callable[[], HTML]:
    def render() -> HTML:
        mode = (" <style bg='ansimagenta' fg='ansiwhite'><b> PLAN </b></style> read-only research"
                if state.plan_mode else f" mode: <b>{state.permission_mode.value}</b>")
        return HTML(f"{mode}  ·  model: {model_name}  ·  Shift+Tab: mode  ·  /help")
    return render


def history_at(path: Path) -> History:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        return FileHistory(str(path))
    except OSError:
        return InMemoryHistory()


def run_repl(agent: Agent, view: ConsoleView, announcer: ModeAnnouncer, history: History,
             model_name: str) -> int:
    state = agent.state
    keys = KeyBindings()

    @keys.add("s-tab")
    def _cycle(event) -> None:
        state.cycle("Shift+Tab")
        run_in_terminal(announcer.announce)

    session: PromptSession = PromptSession(history=history, key_bindings=keys,
                                           bottom_toolbar=toolbar(state, model_name))
    announcer.announce()
    while True:
        try:
            line = session.prompt("› ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            return 0
        text = line.strip()
        if not text:
            continue
        if text.startswith("/"):
            outcome = run_slash_command(text, state)
            announcer.announce()
            if outcome.message:
                (view.error if outcome.is_error else view.notice)(outcome.message)
            if outcome.exit:
                return 0
            text = outcome.send
            if not text:
                continue
        report_outcome(agent.run_turn(text), view)
        announcer.announce()


def report_outcome(outcome: TurnOutcome, view: ConsoleView) -> None:
    if outcome.ending == "interrupted":
        view.notice("Turn cancelled (Ctrl-C). The conversation is intact; go on when ready.",
                    style="yellow")
    elif outcome.ending == "plan_rejected":
        view.notice("Plan rejected. Plan mode stays on; tell the agent what you want.", style="yellow")
    elif outcome.error:
        view.error(outcome.error)
