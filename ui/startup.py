"""Starting a session from the command line: the screen, the store, resume, and the session list.

Each step tells the user, in one line, what it did or why it could not, and
answers with an exit code when the session cannot start. A damaged store never
stops the start: the session goes on in memory and the store is left as it is.
A session open in another process is offered as a fork when there is someone to
ask; -p (nobody to ask) refuses with exit code 3 rather than fork behind the
user's back.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path
from typing import Callable

from agent.loop import Agent
from session.busy import BUSY_TIMEOUT_SECONDS, busy_timeout
from session.journal import NOT_STARTED, RESULT_LOST, UNANSWERED_AT_END, Journal
from session.live import NoSuchSession, Session, SessionBusy, find_session, latest_session
from session.lock import SessionLock
from session.plan_revisions import pending_plan
from session.session_list import SessionInfo, as_spoken
from session.store import SessionStore, StoreUnavailable
from tools.base import counted
from tools.plan_mode import EXIT_PLAN_MODE, PENDING
from ui.console import ConsoleView


def show_agent_on(view: ConsoleView, agent: Agent) -> None:
    """The console shows the agent's reply as it streams, and a working line before each request."""
    agent.on_text, agent.on_reply_end = view.on_text, view.on_reply_end
    agent.preparers.append(lambda _agent: view.working())


def open_store(home: Path, view: ConsoleView) -> SessionStore | None:
    """The session store under `home`, or None (in memory) with the reason shown."""
    try:
        waits = busy_timeout()
    except ValueError as bad:
        view.error(f"{bad}; waiting {BUSY_TIMEOUT_SECONDS:g} s.")
        waits = BUSY_TIMEOUT_SECONDS
    try:
        return SessionStore(home / "sessions.db", busy_timeout=waits)
    except StoreUnavailable as failure:
        view.error(f"{failure}. Going on in memory; this session will not be saved.")
        return None


BUSY_EXIT = 3


def open_session(agent: Agent, store: SessionStore | None, home: Path, view: ConsoleView,
                 context_window: int) -> Session:
    """The live session: the agent, and a journal writing its events to the store (one writer, by lock)."""
    journal = Journal(store, agent.state, agent.workspace, view.error, SessionLock(home / "locks"))
    agent.state.events.subscribe(journal.on_event)
    return Session(agent, journal, context_window=context_window)


def session_named(store: SessionStore | None, workspace: Path, resume: str | None,
                  continue_latest: bool) -> str:
    """The whole id of the stored session --resume ID or --continue names ('' for neither).

    Checked before anything starts, so that a flag naming no session is said first and alone:
    NoSuchSession, naming the flag as it was typed. A store that cannot be read is left to
    resume_if_asked, which starts a new session in memory.
    """
    if not (resume or continue_latest):
        return ""
    flag = f"--resume {resume}" if resume else "--continue"
    try:
        wanted = find_session(store, workspace, resume) if resume and store else resume
        wanted = wanted or (latest_session(store, workspace) if store else "")
    except NoSuchSession as failure:
        raise NoSuchSession(f"{flag}: {failure}") from failure
    except StoreUnavailable:
        return resume or ""
    if not wanted:
        raise NoSuchSession(f"{flag}: no earlier session in this workspace to continue")
    return wanted


def resume_if_asked(wanted: str, session: Session, view: ConsoleView,
                    confirm: Callable[[str], bool] | None = None) -> int | None:
    """Resume the session session_named found ('' for none); an exit code when the session cannot start.

    `confirm` asks the user a yes/no question; None (headless) means nobody can answer.
    """
    if not wanted:
        return None
    try:
        try:
            wanted = session.resume(wanted)
        except SessionBusy as busy:
            return _offer_fork(busy, session, view, confirm)
    except NoSuchSession as failure:
        view.error(str(failure))
        return 2
    except StoreUnavailable as failure:
        session.leave_store()
        view.error(f"{failure}. Starting a new session in memory; the store is left as it is.")
        return None
    view.notice(f"Resumed {wanted} ({len(session.agent.messages)} messages).")
    show_last_exchange(session, view)
    return None


EXCHANGE_LINES = 20
CLOSED = (RESULT_LOST, NOT_STARTED, UNANSWERED_AT_END)


def show_last_exchange(session: Session, view: ConsoleView) -> None:
    """Reprint a resumed session's last exchange, so the user sees where it stopped."""
    prompt, answer = session.last_exchange()
    if not prompt:
        summary = session.compacted_summary()
        if summary:
            view.notice("Where it stopped (compacted; the summary):", style="dim")
            _show_lines(summary, view)
        return
    view.notice(f"Where it stopped:\n› {' '.join(as_spoken(prompt).split())}", style="dim")
    pending, cut = _plan_pending(session.agent.messages), _review_cut(session.agent.messages)
    if answer.strip():
        _show_lines(answer, view)
    elif not (pending or cut):
        view.notice("(no answer yet)", style="dim")
    again = ("/plan approve reviews it" if pending_plan(session.journal.revisions)
             else "say so, and the model presents it again")
    if pending:
        view.notice(f"Its plan awaits your review: {again}.", style="yellow")
    elif cut:
        view.notice(f"The plan review was cut off when the session ended, so nothing was approved "
                    f"and plan mode is on. To review the plan, {again}.", style="yellow")


def _plan_pending(messages: list[dict]) -> bool:
    """Whether the history ends on a plan nobody could review (a -p run without --approve-plan)."""
    last = messages[-1] if messages else {}
    return last.get("role") == "tool" and str(last.get("content") or "").startswith(PENDING)


def _review_cut(messages: list[dict]) -> bool:
    """Whether the history ends on a plan review the session ended in (its result closed on resume)."""
    last = messages[-1] if messages else {}
    if last.get("role") != "tool" or not str(last.get("content") or "").startswith(CLOSED):
        return False
    calls = [call for message in messages if message["role"] == "assistant"
             for call in message.get("tool_calls") or [] if call["id"] == last.get("tool_call_id")]
    return any(call["function"]["name"] == EXIT_PLAN_MODE for call in calls)


def _show_lines(markdown: str, view: ConsoleView) -> None:
    """Markdown drawn as it was live, cut to EXCHANGE_LINES lines."""
    lines = markdown.strip().splitlines()
    view.show_markdown("\n".join(lines[:EXCHANGE_LINES]))
    if len(lines) > EXCHANGE_LINES:
        view.notice(f"… {counted(len(lines) - EXCHANGE_LINES, 'more line')}", style="dim")


def resume_command(session_id: str) -> str:
    """The command that resumes `session_id`, as the user started stepagent.

    bin/stepagent names itself in STEPAGENT_COMMAND; otherwise python and the script.
    """
    launcher = os.environ.get("STEPAGENT_COMMAND")
    program = sys.argv[0] or "index.py"
    command = [launcher] if launcher else ["python", program] if program.endswith(".py") else [program]
    return shlex.join([*command, "--resume", session_id])


def session_lines(sessions: list[SessionInfo], current: str = "", stored: int = 0) -> list[str]:
    """The session list: id, age, mode and first prompt, newest first, the current one marked.

    A last line says how many of the `stored` sessions it leaves out."""
    now = time.time()
    older = stored - len(sessions)
    return [info.line(now, current) for info in sessions] + (
        [f"  … and {counted(older, 'older session')}, not listed (a unique start of its id resumes it)"]
        if older > 0 else [])


def _offer_fork(busy: SessionBusy, session: Session, view: ConsoleView,
                confirm: Callable[[str], bool] | None) -> int | None:
    if confirm is None:
        view.error(f"{busy}; -p will not write to it. Try again when it is closed, or start a "
                   "new session without --continue/--resume.")
        return BUSY_EXIT
    if not confirm(f"{busy.args[0].capitalize()}. Fork it into a new session with a copy of its "
                   "history?"):
        view.notice("Starting a new session instead.")
        return None
    fork_id = session.fork(busy.session_id)
    view.notice(f"Forked {busy.session_id} into {fork_id} ({len(session.agent.messages)} messages).")
    return None


def list_sessions(store: SessionStore | None, workspace: Path, view: ConsoleView) -> int:
    """Print this workspace's sessions, newest first."""
    try:
        sessions = store.sessions(workspace) if store else []
        stored = store.session_count(workspace) if store else 0
    except StoreUnavailable as failure:
        view.error(str(failure))
        return 1
    for line in session_lines(sessions, stored=stored):
        view.notice(line)
    if sessions:
        view.command("Resume one with (a unique start of the id will do):", resume_command("ID"))
    else:
        view.notice("No stored sessions in this workspace.")
    return 0
