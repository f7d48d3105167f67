"""What this session changed: each file Write or Edit touched, against its content before.

A listener on the event stream: just before the first Write or Edit of a file
runs (ToolStarted: the call passed the hooks and the user), its content is kept,
or that it did not exist. `/diff` compares that with the file now. A call that
was refused never runs, so the tracker never reads the file it named; nor does
it read anything outside the workspace, where Write and Edit never write. It
reads the way Read does (tools/safe_read.py): regular files only, never
blocking, at most MAX_READ_BYTES; a larger file is named, not compared.
Files a Bash command changed are not tracked: only `git diff` knows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from agent.events import Event, ToolStarted
from tools.preview import unified_diff
from tools.safe_read import MAX_READ_BYTES, read_capped
from tools.workspace import outside_workspace, resolve, shown

FILE_TOOLS = {"Write", "Edit"}


def _text(path: Path) -> tuple[str | None, bool]:
    """The file's text (None: missing or not readable) and whether it is over the cap."""
    try:
        return read_capped(path)
    except OSError:
        return None, False


@dataclass
class SessionChanges:
    """The content each file had before this session's first Write or Edit of it."""

    workspace: Path
    originals: dict[Path, str | None] = field(default_factory=dict)
    too_large: set[Path] = field(default_factory=set)

    def on_event(self, event: Event) -> None:
        """Keep a file's content just before the first Write or Edit of it runs."""
        if not (isinstance(event, ToolStarted) and event.tool in FILE_TOOLS):
            return
        name = event.args.get("file_path")
        if not isinstance(name, str):
            return
        path = resolve(self.workspace, name)
        if path in self.originals or path in self.too_large or outside_workspace(self.workspace, path):
            return
        text, cut = _text(path)
        if cut:
            self.too_large.add(path)
        else:
            self.originals[path] = text

    def clear(self) -> None:
        """Forget every file: a new conversation starts from the files as they are."""
        self.originals.clear()
        self.too_large.clear()

    def diff(self) -> str:
        """A unified diff of every file changed since its first Write or Edit, '' when none."""
        parts = []
        for path, before in self.originals.items():
            after, cut = _text(path)
            if cut:
                parts.append(f"# {shown(self.workspace, path)}: now over {MAX_READ_BYTES} bytes, not compared\n")
            elif after != before:
                parts.append(unified_diff(before, after, shown(self.workspace, path)))
        parts += [f"# {shown(self.workspace, path)}: over {MAX_READ_BYTES} bytes, not compared\n"
                  for path in self.too_large]
        return "".join(parts)
