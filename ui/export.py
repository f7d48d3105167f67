"""/export [FILE]: the session as readable markdown, for course notes.

Built from the session store's entries, in order (messages, tool calls with
their results, mode changes, todo lists, memories); without a store, from the
messages in memory. Reminders are shown as notes, tool results as code blocks.
Without FILE it goes to `.stepagent/exports/<session id>.md` (kept out of commits).
A file that is there already is replaced only if it is an earlier export (it
starts with the export's heading), and the user is told; any other file is
left alone and nothing is written.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.events import mode_label
from session.live import Session
from agent.history import reminder_kind
from session.store import StoreUnavailable
from tools.own_files import OWN_FOLDER, write_atomically, write_inside

EXPORTS = Path(OWN_FOLDER) / "exports"
HEADING = "# stepagent session "


@dataclass(frozen=True)
class Exported:
    """Where an export was written, and whether it replaced an earlier export there."""

    path: Path
    replaced: bool


class NotAnExport(FileExistsError):
    """The chosen file exists and is not an earlier export: it is never overwritten."""


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
        items = "\n".join(f"- [{t['status']}] {t['content']}" for t in payload["todos"])
        return f"**Todo list:**\n\n{items or '(empty)'}\n"
    if kind == "memory":
        return f"_Memory {payload['action']}: {payload['name']} — {payload['description']}_\n"
    if kind == "compaction":
        return "_The conversation was compacted here._\n"
    return ""


def export_markdown(session: Session) -> str:
    """The whole session as one markdown document."""
    session_id = session.agent.state.session_id
    names: dict[str, str] = {}
    try:
        entries = [(e.kind, e.payload) for e in session.store.entries(session_id)] if session.store else []
    except StoreUnavailable:
        entries = []
    if not entries:
        entries = [("message", message) for message in session.agent.messages]
    body = [entry_markdown(kind, payload, names) for kind, payload in entries]
    return f"{HEADING}{session_id}\n\n" + "\n".join(part for part in body if part)


def export_session(session: Session, file_name: str) -> Exported:
    """Write the markdown to FILE, or to .stepagent/exports/<session id>.md by default.

    A relative name stays inside the workspace (write_inside refuses a link out of
    it); an absolute path is the user's explicit choice and is written as given.
    An existing file that is not an earlier export raises NotAnExport.
    """
    workspace = session.agent.workspace
    name = Path(file_name).expanduser() if file_name else EXPORTS / f"{session.agent.state.session_id}.md"
    replaced = os.path.lexists(workspace / name)
    if replaced and not _earlier_export(workspace / name):
        raise NotAnExport(f"{workspace / name} exists and is not an earlier export")
    if name.is_absolute():
        write_atomically(name, export_markdown(session))
        return Exported(name, replaced)
    return Exported(write_inside(workspace, name, export_markdown(session)), replaced)


def _earlier_export(path: Path) -> bool:
    """Whether `path` is a regular file that starts with the export's heading."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as file:
            return file.read(len(HEADING)) == HEADING.encode()
    except OSError:
        return False
