"""A slash command typed at a question is a command, never an answer.

At the plan review, a permission question or an AskUserQuestion, a line that
is a command (`/trace`, `/plan show`, `/mode build`, `/export`, `/resume` alone
for the list, `/exit`) runs as it would at the prompt, or is refused with a hint
when it would change the conversation a turn is still using (/clear, /resume ID,
/compact…). Either way it is never sent
to the model as feedback or as an answer, and the question is asked again,
unless the command ended it. A command of the user's own that changes the mode
(/mode NAME, Shift+Tab) or leaves (/exit) ends every kind of question the same
way, unanswered, and the turn with it (the model is told: tools/base.py,
QuestionLeft); /exit then leaves stepagent. A turn never goes on in a mode the
user chose while a question waited, so a call asked for in build mode never runs
after a switch to plan mode, and planning never goes on outside plan mode.
The REPL binds the session in (`bind`); -p asks no questions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from tools.base import QuestionLeft
from ui.console import ConsoleView
from ui.modes import cycle

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyBindings

    from session.live import Session
    from state import AppState
    from ui.slash import SlashOutcome

YES, NO = {"y", "yes"}, {"", "n", "no"}
AT_A_QUESTION = {"/help", "/todos", "/trace", "/usage", "/diff", "/last", "/mode", "/model",
                 "/plan", "/memory", "/hooks", "/permissions", "/export", "/exit", "/quit"}
LISTS_ALONE = {"/resume", "/rewind"}
EXITS = {"/exit", "/quit"}
SHIFT_TAB = "\x1b[Z"


def is_command(text: str) -> bool:
    """`/mode edit` is a command; `/tmp/x.py is broken` is a message that starts with a path."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    return first.startswith("/") and "/" not in first[1:]


def show_outcome(outcome: SlashOutcome, view: ConsoleView) -> None:
    """Show what a command said: its message (red for an error), then its markdown.

    A plan is drawn in the review's panel instead, exactly as written, titled by the message.
    """
    if outcome.plan:
        view.show_plan(outcome.plan, outcome.message)
        return
    if outcome.message:
        (view.error if outcome.is_error else view.notice)(outcome.message)
    if outcome.markdown:
        view.show_markdown(outcome.markdown)


@dataclass
class QuestionCommands:
    """Runs the commands typed at questions on the REPL's session; `leaving` once /exit was typed."""

    view: ConsoleView
    session: Session | None = None
    leaving: bool = False

    def bind(self, session: Session) -> None:
        """The session the commands act on (the REPL's)."""
        self.session = session

    def run(self, line: str, under_review: tuple[str, str] | None = None) -> None:
        """Run `line` as a command at a question, or refuse it with a hint.

        At a plan review, `under_review` is the plan on screen and its title: /plan show prints it.
        """
        from ui.slash import SlashOutcome, command_names, run_slash_command, unknown_command

        name, _, rest = line.strip().partition(" ")
        name = name.lower()
        if name in EXITS:
            self.leaving = True
            return
        if under_review is not None and name == "/plan" and rest.strip() == "show":
            plan, title = under_review
            show_outcome(SlashOutcome(f"{title}, under review now", plan=plan), self.view)
            return
        if self.session is None:
            self.view.error(f"{name} cannot run here. Answer the question first.")
            return
        if name == "/plan" and rest.strip() not in {"", "show"}:
            self.view.error(f"{line.strip()} cannot run while a question waits: answer it first, "
                            "then type the command at the prompt.")
            return
        if name not in AT_A_QUESTION and not (name in LISTS_ALONE and not rest.strip()):
            self.view.error(f"{name} changes the conversation this turn is using, so it cannot run "
                            "while a question waits: answer it first (n says no), then type it at "
                            "the prompt." if name in command_names() else unknown_command(name))
            return
        show_outcome(run_slash_command(line, self.session), self.view)


def mode_keys() -> KeyBindings:
    """Shift+Tab ends a question with a marker: the user's own switch to the next mode."""
    from prompt_toolkit.key_binding import KeyBindings

    keys = KeyBindings()
    keys.add("s-tab")(lambda event: event.app.exit(result=SHIFT_TAB))
    return keys


def command_at_question(answer: str, commands: QuestionCommands, state: AppState,
                        under_review: tuple[str, str] | None = None) -> str | None:
    """What the user left the question with, once their command ran; None when `answer` answers it.

    That is /exit, the command that changed the mode, Shift+Tab (which switches it here),
    or '' when the question is to be asked again.
    """
    if answer == SHIFT_TAB:
        cycle(state, "Shift+Tab")
        return "Shift+Tab"
    if not is_command(answer):
        return None
    mode_before = state.mode_label
    commands.run(answer, under_review)
    if commands.leaving:
        return "/exit"
    return answer.strip() if state.mode_label != mode_before else ""


def answering_commands(ask: Callable[..., str], commands: QuestionCommands,
                       state: AppState) -> Callable[..., str]:
    """`ask`, where a command line runs (or is refused) and the question is asked again.

    /exit, a mode command or Shift+Tab leaves the question unanswered (QuestionLeft).
    """
    def ask_again(*args, **kwargs) -> str:
        while not commands.leaving:  # after /exit, a sub-agent's next question is not asked
            answer = ask(*args, key_bindings=mode_keys(), **kwargs)
            left = command_at_question(answer, commands, state)
            if left is None:
                return answer
            if left:
                raise QuestionLeft(left)
        raise QuestionLeft("/exit")
    return ask_again
