"""The interactive loop: read a line at the prompt (ui/prompt.py), run a slash command or a turn.

Ctrl-C at the prompt clears the line; during a turn it cancels the turn (the agent loop
keeps the history valid). Keys typed during a turn are read as it runs (ui/turn_keys.py):
Shift+Tab switches the mode at once (never out of plan mode), the rest waits for the next
prompt, after Ctrl-C too. Ctrl-D or /exit leaves, and says how to resume and what the
session's commands left running. A message that starts with a path (`/tmp/x.py is
broken`) goes to the model, not to the commands.
"""

from __future__ import annotations

from urllib.parse import urlparse

from prompt_toolkit import PromptSession

from agent.loop import TurnOutcome, unexpected
from session.live import Session
from tools.bash.left_running import left_by, this_stepagent
from tools.plan_mode import EXIT_PLAN_MODE, PlanReview
from ui.callbacks import UICallbacks
from ui.console import ConsoleView
from ui.question_commands import is_command, show_outcome
from ui.review_endings import ENDED_BY_REVIEW
from ui.prompt import after_first_draw, read_line, status_line
from ui.slash import run_slash_command
from ui.startup import resume_command, show_last_exchange


def startup_line(session: Session, sandbox: str) -> str:
    """Model, endpoint host, workspace, mode and the plan-mode sandbox, in one line.

    `sandbox` is the sandbox's own notice, which names itself.
    """
    model = session.agent.model
    endpoint = getattr(model, "endpoint", "")
    host = f" at {urlparse(endpoint).netloc or endpoint}" if endpoint else ""
    return (f"stepagent · model {model.name}{host} · workspace {session.agent.workspace} · "
            f"mode {session.agent.state.mode_label} · {sandbox or 'Plan-mode sandbox: unknown'}")


def run_repl(session: Session, view: ConsoleView, prompt: PromptSession, first_message: str = "",
             callbacks: UICallbacks | None = None, typed: list[str | None] | None = None) -> int:
    """Run the REPL until the user leaves, starting with `first_message` as if typed at the prompt.

    `first_message` may be a slash command or a message to the model.

    `callbacks` are the questions' (ui/callbacks.py): after a turn the REPL reads how the
    plan review ended, and whether /exit was typed at a question. `typed` holds what was
    read at the prompt while the session was being built behind it (None for the end of
    input; ui/prompt_first.py); without it the start-up line is shown here first.
    """
    agent = session.agent
    if typed is None:
        show_start(session, view)
        warm_up = getattr(agent.model, "warm_up", None)
        if warm_up:  # started before the prompt is drawn, it would slow the drawing (bench/startup.py)
            after_first_draw(prompt, warm_up)
    if first_message:  # shown as if typed at the prompt, and read as a typed line is (a command too)
        view.notice(f"› {first_message}", style="bold")
    try:
        _loop(session, view, prompt, callbacks, ([first_message] if first_message else []) + (typed or []))
    finally:
        view.show_left_running_at_exit(left_by(this_stepagent(agent.workspace)))
        if agent.messages and session.store is not None:
            view.command("Resume this session with:", resume_command(agent.state.session_id))
    return 0


def show_start(session: Session, view: ConsoleView) -> None:
    """The start-up line, and the session's facts beside the spinner and under an answer."""
    agent, state = session.agent, session.agent.state
    view.status = lambda: status_line(state, lambda: agent.model.name, session.context_share, session.todos)
    view.notice(startup_line(session, view.sandbox_status()), style="dim")


def _loop(session: Session, view: ConsoleView, prompt: PromptSession,
          callbacks: UICallbacks | None, typed: list[str | None]) -> None:
    """Read a line, run it (a command or a message to the model), until the user leaves;
    `typed` holds lines read already (None: the input ended)."""
    while True:
        line = typed.pop(0) if typed else read_line(prompt)
        if line is None:
            return
        text = line.strip()
        if not text:
            continue
        if is_command(text):
            try:
                outcome = run_slash_command(text, session, callbacks.confirm if callbacks else None)
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
        if send_turn(session, view, text, callbacks):
            return


def send_turn(session: Session, view: ConsoleView, text: str, callbacks: UICallbacks | None) -> bool:
    """One turn with the model, then how it ended and the tokens it cost; True to leave the REPL.

    A plan approved with c goes on in a fresh conversation that holds only the plan.
    """
    review = callbacks.review if callbacks else None
    keys = callbacks.keys if callbacks else None
    if review is not None:
        review.last = None
    session.usage.start_turn()
    outcome = TurnOutcome("interrupted")
    if keys is not None:
        keys.start()
    try:
        outcome = session.agent.run_turn(text)
    finally:
        if keys is not None:
            keys.finish(ended=outcome.ending != "interrupted")
    if callbacks and callbacks.commands and callbacks.commands.leaving:
        return True
    reviewed = review.last if review is not None else None
    report_outcome(outcome, view, reviewed, session.integrity)
    if session.usage.turn.reported:
        view.notice(session.usage.turn.line(), style="dim")
    if reviewed and reviewed.outcome == "approve" and reviewed.clear and not session.agent.state.plan_mode:
        return _build_fresh(session, view, session.agent.messages[-1]["content"], callbacks)
    return False


def _build_fresh(session: Session, view: ConsoleView, approval: str, callbacks: UICallbacks | None) -> bool:
    """c: a new conversation (a new session) whose only context is the approval with its plan,
    and the todos; the planning conversation stays in the store."""
    old = session.clear(todos=session.todos())
    view.notice(f"A fresh conversation builds the approved plan; the planning conversation is kept "
                f"as {old} (/resume {old} goes back to it).", style="yellow")
    return send_turn(session, view, approval, callbacks)


def report_outcome(outcome: TurnOutcome, view: ConsoleView, review: PlanReview | None = None,
                   integrity: Callable[[], str] = lambda: "") -> None:
    """Say why a turn stopped early (cancelled, a plan review's end, an error), else nothing.

    After Ctrl-C or an internal error, `integrity` says what holds of the conversation.
    """
    if outcome.ending == "interrupted":
        view.notice(f"Turn cancelled (Ctrl-C). {integrity()} Go on when ready.", style="yellow")
    elif outcome.ending == "ended_by_tool" and outcome.tool == EXIT_PLAN_MODE:
        if review is not None and review.outcome in ENDED_BY_REVIEW:
            view.notice(ENDED_BY_REVIEW[review.outcome].format(left_by=review.left_by), style="yellow")
        elif review is None or review.outcome != "approve":
            view.notice("The plan was not approved. Plan mode stays on.", style="yellow")
    elif outcome.error:
        view.error(outcome.error)
        if outcome.ending == "failed":
            view.notice(integrity(), style="yellow")
