"""Starting a session from the command line: the store, resume, and the session list.

Each step tells the user, in one line, what it did or why it could not, and
answers with an exit code when the session cannot start.
"""

from __future__ import annotations

from pathlib import Path

from session.live import Session
from session.store import SessionStore, StoreUnavailable
from ui.console import ConsoleView


def open_store(home: Path, view: ConsoleView) -> SessionStore | None:
    """The session store under `home`, or None (in memory) with the reason shown."""
    try:
        return SessionStore(home / "sessions.db")
    except StoreUnavailable as failure:
        view.error(f"{failure}. Going on in memory; this session will not be saved.")
        return None


def resume_if_asked(resume: str | None, continue_latest: bool, session: Session,
                    view: ConsoleView) -> int | None:
    """Resume what --resume ID or --continue asked for; an exit code when that fails."""
    if not (resume or continue_latest):
        return None
    wanted = resume or session.latest_id()
    if not wanted:
        view.error("no earlier session in this workspace to continue")
        return 2
    try:
        session.resume(wanted)
    except StoreUnavailable as failure:
        view.error(str(failure))
        return 2
    view.notice(f"Resumed {wanted} ({len(session.agent.messages)} messages).")
    return None


def list_sessions(store: SessionStore | None, workspace: Path, view: ConsoleView) -> int:
    """Print this workspace's sessions, newest first."""
    sessions = store.sessions(workspace) if store else []
    for info in sessions:
        view.notice(info.summary)
    view.notice("Resume one with --resume ID." if sessions else "No stored sessions in this workspace.")
    return 0
