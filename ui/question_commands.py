"""A slash command typed at a question is a command, never an answer.

At the plan review, a permission question or an AskUserQuestion, a line that
is a command (`/trace`, `/plan show`, `/mode build`, `/export`, `/resume` alone
for the list, `/exit`) runs as it would at the prompt, or is refused with a hint
when it would change the conversation a turn is still using (/clear, /resume ID,
/compact…). Either way it is never sent
to the model as feedback or as an answer, and the question is asked again,
unless the command ended it: /exit leaves stepagent once the turn has stopped.
The REPL binds the session in (`bind`); -p asks no questions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ui.console import ConsoleView

if TYPE_CHECKING:
    from session.live import Session
    from ui.slash import SlashOutcome

YES, NO = {"y", "yes"}, {"", "n", "no"}
AT_A_QUESTION = {"/help", "/todos", "/trace", "/usage", "/diff", "/last", "/mode", "/model",
                 "/plan", "/memory", "/hooks", "/permissions", "/export", "/exit", "/quit"}
LISTS_ALONE = {"/resume", "/rewind"}
EXITS = {"/exit", "/quit"}


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


def answering_commands(ask: Callable[..., str], commands: QuestionCommands) -> Callable[..., str]:
    """`ask`, where a command line runs (or is refused) and the question is asked again.

    /exit at such a question stops the turn as Ctrl-C does; the REPL then leaves.
    """
    def ask_again(*args, **kwargs) -> str:
        while True:
            answer = ask(*args, **kwargs)
            if not is_command(answer):
                return answer
            commands.run(answer)
            if commands.leaving:
                raise KeyboardInterrupt
    return ask_again
