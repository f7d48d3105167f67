"""What this session changed: each file Write or Edit touched, against its content before.

A listener on the event stream: the first time a Write or Edit names a file,
its content is kept (or that it did not exist). `/diff` compares that with the
file now. A call that was denied changed nothing, so its snapshot is still the
original. Files a Bash command changed are not tracked: only `git diff` knows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.events import Event, ToolRequested
from tools.paths import resolve, shown
from tools.preview import unified_diff

FILE_TOOLS = {"Write", "Edit"}


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


@dataclass
class SessionChanges:
    """The content each file had before this session's first Write or Edit of it."""

    workspace: Path
    originals: dict[Path, str | None] = field(default_factory=dict)

    def on_event(self, event: Event) -> None:
        """Keep a file's content the first time a Write or Edit names it."""
        if isinstance(event, ToolRequested) and event.tool in FILE_TOOLS:
            name = event.args.get("file_path")
            if isinstance(name, str):
                path = resolve(self.workspace, name)
                if path not in self.originals:
                    self.originals[path] = _text(path) if path.is_file() else None

    def diff(self) -> str:
        """A unified diff of every file changed since its first Write or Edit, '' when none."""
        parts = []
        for path, before in self.originals.items():
            after = _text(path) if path.is_file() else None
            if after != before:
                parts.append(unified_diff(before or "", after or "", shown(self.workspace, path)))
        return "".join(parts)
