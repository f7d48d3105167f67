"""/export [--html] [FILE]: the session as readable markdown for course notes, or as a page.

Built from the session store's entries, in order (messages, tool calls with
their results, mode changes, todo lists, memories); without a store, from the
messages in memory. Reminders are shown as notes, tool results as code blocks.
With --html it is one self-contained HTML page instead (ui/page.py), which
`--export-html FILE` also writes from the command line for a stored session.
Without FILE it goes to `.stepagent/exports/<session id>.md` (or `.html`), kept
out of commits. A file that is there already is replaced only if it is an
earlier export of the same kind (it starts with that export's heading), and the
user is told; any other file is left alone and nothing is written. A FILE whose
folder does not exist, or whose name says the other kind (`--html x.md`, or
`x.html` without it), is refused too: nothing is written, no folder made.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from agent.events import mode_label
from agent.history import reminder_kind
from session.live import NoSuchSession, Session, find_session
from session.plan_revisions import Revision
from session.store import Entry, SessionStore, StoreUnavailable
from session.story import read_story
from tools.todos import Todo
from tools.workspace import OWN_FOLDER, write_atomically, write_inside
from ui.console import ConsoleView
from ui.page import PAGE_MARK, page_html

EXPORTS = Path(OWN_FOLDER) / "exports"
HEADING = "# stepagent session "


@dataclass(frozen=True)
class Exported:
    """Where an export was written, and whether it replaced an earlier export there."""

    path: Path
    replaced: bool


class ExportRefused(Exception):
    """The chosen FILE is not written to: the message says why, and nothing was written."""


class NotAnExport(ExportRefused):
    """The chosen file exists and is not an earlier export: it is never overwritten."""


SUFFIXES = {True: (".html", ".htm"), False: (".md", ".markdown")}


def fenced(text: str, language: str = "") -> str:
    """A code block that no backtick run inside the text can close."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def message_markdown(message: dict[str, Any], names: dict[str, str]) -> str:
    """One message as markdown; `names` maps call ids to tool names for the results."""
    role, content = message.get("role"), message.get("content")
    text = content if isinstance(content, str) else ""
    if role == "user":
        kind = reminder_kind(message)
        return f"> _reminder ({kind})_\n" if kind else f"### User\n\n{text}\n"
    if role == "tool":
        name = names.get(message.get("tool_call_id", ""), "tool")
        return f"**Result of {name}:**\n\n{fenced(text)}\n"
    parts = [f"### Assistant\n\n{text}\n"] if text else []
    for call in message.get("tool_calls") or []:
        names[call["id"]] = call["function"]["name"]
        try:
            arguments = json.dumps(json.loads(call["function"]["arguments"] or "{}"), indent=1,
                                   ensure_ascii=False)
        except ValueError:
            arguments = call["function"]["arguments"]
        parts.append(f"**Tool call {call['function']['name']}:**\n\n{fenced(arguments, 'json')}\n")
    return "\n".join(parts)


def entry_markdown(kind: str, payload: dict[str, Any], names: dict[str, str]) -> str:
    """One stored entry as markdown; hook decisions are left to /trace."""
    if kind == "message":
        return message_markdown(payload, names)
    if kind == "mode":
        label = mode_label(payload["plan_mode"], payload["permission_mode"])
        return f"_Mode → **{label}** (by {payload['cause']})_\n"
    if kind == "todos":
        items = "\n".join(f"- [{t.status}] {t.shown}" for t in map(Todo.from_dict, payload["todos"]))
        return f"**Todo list:**\n\n{items or '(empty)'}\n"
    if kind == "memory":
        return f"_Memory {payload['action']}: {payload['name']} — {payload['description']}_\n"
    if kind == "compaction":
        return "_The conversation was compacted here._\n"
    if kind == "rewind":
        return f"_The conversation was rewound here to checkpoint {payload['checkpoint']}._\n"
    return ""


def session_entries(session: Session) -> list[Entry]:
    """The session's stored entries; without a store, its messages in memory."""
    session_id = session.agent.state.session_id
    try:
        entries = session.store.entries(session_id) if session.store else []
    except StoreUnavailable:
        entries = []
    return entries or [Entry(seq, "message", message) for seq, message in enumerate(session.agent.messages, 1)]


def export_markdown(session_id: str, entries: list[Entry]) -> str:
    """The whole session as one markdown document."""
    names: dict[str, str] = {}
    body = [entry_markdown(entry.kind, entry.payload, names) for entry in entries]
    return f"{HEADING}{session_id}\n\n" + "\n".join(part for part in body if part)


def export_page(session_id: str, entries: list[Entry], workspace: Path,
                revisions: Sequence[Revision] = ()) -> str:
    """The whole session as one self-contained HTML page (with the plan revisions the store kept)."""
    return page_html(read_story(session_id, entries, revisions), str(workspace))


def export_session(session: Session, file_name: str, page: bool = False) -> Exported:
    """Write the markdown (or, with `page`, the HTML page) to FILE or under .stepagent/exports/."""
    session_id, workspace = session.agent.state.session_id, session.agent.workspace
    entries = session_entries(session)
    content = (export_page(session_id, entries, workspace, session.journal.revisions) if page
               else export_markdown(session_id, entries))
    return write_export(workspace, session_id, file_name, page, content)


def export_stored_page(store: SessionStore, session_id: str, workspace: Path, file_name: str) -> Exported:
    """--export-html FILE: write a stored session's page (read only: the session is not opened)."""
    page = export_page(session_id, store.entries(session_id), workspace, store.revisions(session_id))
    return write_export(workspace, session_id, file_name, True, page)


def export_from_command_line(store: SessionStore | None, workspace: Path, wanted: str, file_name: str,
                             view: ConsoleView) -> int:
    """--export-html FILE with --resume ID (`wanted`) or --continue (''): write that page; the exit code."""
    try:
        if store is None:
            raise NoSuchSession("there is no session store to export from")
        recent = store.sessions(workspace, limit=1)
        session_id = find_session(store, workspace, wanted) if wanted else recent[0].id if recent else ""
        if not session_id:
            raise NoSuchSession("no earlier session in this workspace to export")
        done = export_stored_page(store, session_id, workspace, file_name)
    except (NoSuchSession, ExportRefused) as refused:
        view.error(f"Nothing written: {refused}.")
        return 2
    except (StoreUnavailable, OSError) as failure:
        view.error(f"Cannot write the export: {failure}")
        return 1
    replaced = " It replaced the earlier export there." if done.replaced else ""
    view.notice(f"Exported session {session_id} to {done.path}.{replaced}")
    return 0


def write_export(workspace: Path, session_id: str, file_name: str, page: bool, content: str) -> Exported:
    """Write an export to FILE, or to .stepagent/exports/<session id>.md (.html for a page).

    A relative name stays inside the workspace (write_inside refuses a link out of
    it); an absolute path is the user's explicit choice and is written as given.
    An existing file that is not an earlier export of this kind raises NotAnExport; a
    FILE in a missing folder, or named as the other kind, raises ExportRefused.
    """
    heading = PAGE_MARK if page else HEADING
    default = EXPORTS / f"{session_id}{'.html' if page else '.md'}"
    name = Path(file_name).expanduser() if file_name else default
    if file_name:
        _check_name(workspace, name, page)
    replaced = os.path.lexists(workspace / name)
    if replaced and not _earlier_export(workspace / name, heading):
        raise NotAnExport(f"{workspace / name} exists and is not an earlier export")
    if name.is_absolute():
        write_atomically(name, content)
        return Exported(name, replaced)
    return Exported(write_inside(workspace, name, content), replaced)


def _check_name(workspace: Path, name: Path, page: bool) -> None:
    """Refuse a FILE whose folder is missing, or whose suffix names the other kind of export."""
    folder = (workspace / name).parent
    if not folder.is_dir():
        raise ExportRefused(f"the folder {folder} does not exist")
    if name.suffix.lower() in SUFFIXES[not page]:
        kind, other = ("an HTML page", SUFFIXES[True][0]) if page else ("markdown", SUFFIXES[False][0])
        raise ExportRefused(f"{name.name} ends in {name.suffix}, but this export is {kind}; "
                            f"name it {name.stem}{other}")


def _earlier_export(path: Path, heading: str) -> bool:
    """Whether `path` is a regular file that starts with the export's heading."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as file:
            return file.read(len(heading.encode())) == heading.encode()
    except OSError:
        return False
