"""/export: what the slash command takes, and what it says it did.

`/export [FILE]` writes the session as markdown, `/export --html [FILE]` (or
`--html=FILE`) as one HTML page (ui/export.py writes both); without FILE, under
.stepagent/exports/. Anything else that starts with a dash is an option it does
not know, never a file name: a file whose name starts with one is `./-name`.
"""

from __future__ import annotations

from session.live import Session
from ui.export import EXPORTS, ExportRefused, export_session
from ui.safe_text import safe

USAGE = "Usage: /export [FILE.md], /export --html [FILE.html] (name a file that starts with - as ./-name)."


def run_export(session: Session, arguments: str) -> tuple[str, bool]:
    """Carry out `/export ARGUMENTS`; returns what to show and whether it is an error."""
    words = arguments.split(maxsplit=1)
    option, _, joined = words[0].partition("=") if words else ("", "", "")
    page = option == "--html"
    file_name = (joined or (words[1] if len(words) > 1 else "")) if page else arguments
    if file_name.startswith("-"):
        return f"Unknown option {safe(file_name.split()[0])}. {USAGE}", True
    try:
        done = export_session(session, file_name, page)
    except ExportRefused as refused:
        again = "/export --html" if page else "/export"
        return (f"Nothing written: {refused}. Give another file name, or run {again} alone to "
                f"write it under {EXPORTS}/."), True
    except OSError as failure:
        return f"Cannot write the export: {failure}", True
    replaced = " It replaced the earlier export there." if done.replaced else ""
    return f"Exported this session to {done.path}.{replaced}", False
