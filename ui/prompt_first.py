"""A plain start of the REPL: the prompt first, the agent built behind it.

The first draw needs the state, the history and the prompt (ui/prompt.py), nothing more:
the toolbar's model, context and todos are the session's once it is built (`Behind.peek`).
Everything else (the model and its banner, the store and SQLite, the user's settings,
the tools and their layers, the sandbox probe for the start-up line) is built by
ui/product.py's `start` in a background thread once the prompt and its toolbar are on
screen (ui/prompt.py: after_first_draw); what it prints appears above the prompt
(prompt-toolkit's patch_stdout), and a real model's client warms up after it. A line typed meanwhile waits for the build on Enter, and so do
Shift+Tab and Tab's session and model ids. If the start fails (a model that cannot be
used), the prompt ends and so does the run, with the start's exit code.

index.py comes here only when nothing must be shown or asked before the prompt (its
`draws_prompt_first`); otherwise ui/product.py builds first and draws after.
"""

from __future__ import annotations

import argparse
import threading
from typing import TYPE_CHECKING, Callable, TypeVar

from prompt_toolkit import PromptSession
from prompt_toolkit.patch_stdout import patch_stdout

from session.home import default_home
from state import AppState
from ui.prompt import after_first_draw, history_at, read_line, repl_prompt

if TYPE_CHECKING:
    from session.live import Session
    from ui.console import ConsoleView
    from ui.product import Started

Fact = TypeVar("Fact")


class Behind:
    """The start, run once in a background thread; its outcome (or its error) for whoever waits."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self.view: ConsoleView | None = None
        self.started: Started | int | None = None
        self._failure: BaseException | None = None

    def run(self, start: Callable[[], tuple[ConsoleView, Started | int]], prompt: PromptSession) -> None:
        """Run `start`; when it fails, end the prompt, whose line can no longer be answered."""
        try:
            self.view, self.started = start()
        except BaseException as failure:
            self._failure = failure
        finally:
            self._done.set()
        if isinstance(self.started, int) or self._failure is not None:
            end(prompt)
        else:
            prompt.app.invalidate()  # the toolbar names the model now

    def ready(self) -> tuple[ConsoleView | None, Started | int | None]:
        """The view and the started session (or the start's exit code), waiting for them."""
        self._done.wait()
        if self._failure is not None:
            raise self._failure
        return self.view, self.started

    def session(self) -> Session | None:
        """The live session, waiting for it (None when the start failed)."""
        started = self.ready()[1]
        return None if isinstance(started, int) else started.session

    def peek(self, fact: Callable[[Started], Fact], before: Fact) -> Fact:
        """A fact of the started session for the toolbar, or `before` while it is being built."""
        started = self.started if self._done.is_set() else None
        return fact(started) if started is not None and not isinstance(started, int) else before


def end(prompt: PromptSession) -> None:
    """End the prompt from another thread, as the end of input does."""
    app = prompt.app
    try:
        app.loop.call_soon_threadsafe(lambda: app.exit(exception=EOFError()) if app.is_running else None)
    except (AttributeError, RuntimeError):  # the prompt has already returned
        pass


def start_behind(args: argparse.Namespace, state: AppState) -> tuple[ConsoleView, Started | int]:
    """ui/product.py's start, then the start-up line and the model client's warm-up."""
    from ui.product import Started, console_view, start
    from ui.repl import show_start

    view = console_view(headless=False)
    started = start(args, state, view)
    if isinstance(started, Started):
        show_start(started.session, view)
        warm_up = getattr(started.session.agent.model, "warm_up", None)
        if warm_up:
            threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
    return view, started


def run_prompt_first(args: argparse.Namespace) -> int:
    """The REPL, its prompt drawn before the agent is built; the return value is the exit code."""
    state, behind = AppState(), Behind()
    prompt = repl_prompt(state, history_at(default_home() / "history"), behind.session,
                         lambda: behind.peek(lambda started: started.session.agent.model.name, "…"),
                         lambda: behind.peek(lambda started: started.session.context_line(), ""),
                         lambda: behind.peek(lambda started: started.session.todos(), ()))
    after_first_draw(prompt, lambda: behind.run(lambda: start_behind(args, state), prompt))
    with patch_stdout(raw=True):
        line = read_line(prompt)
    view, started = behind.ready()
    if isinstance(started, int) or view is None or started is None:
        return started if isinstance(started, int) else 1
    from ui.repl import run_repl

    return run_repl(started.session, view, prompt, callbacks=started.callbacks, typed=[line])
