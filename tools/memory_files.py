"""Memory: the third time scale, facts and preferences that outlive a session.

Plan and todos serve the task at hand; memory holds what a later session should
still know. Each memory is one markdown file the user can read and edit, with
its type, name and description in a front matter block, and `MEMORY.md` indexes
them all. The folder is per workspace, under stepagent's home
($STEPAGENT_HOME/memory/<workspace key>/), never inside the repository.

The four types:
  user       who the user is and what they prefer
  feedback   corrections and confirmations of how to work
  project    facts about this codebase and its goals that the code does not show
  reference  where to find things outside it

Names come from the model, so they are reduced to letters, digits, '-' and '_'
before they name a file, and every write goes through write_inside, which
refuses a link that leads out of stepagent's home.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from tools.safe_read import read_capped
from tools.workspace import inside, write_inside

TYPES = ("user", "feedback", "project", "reference")
INDEX = "MEMORY.md"
MAX_NAME = 64
MAX_MEMORY_BYTES = 1_000_000  # a memory is a note; more than this is not one
PROMPT_INDEX_CHARS = 6000
FRONT = re.compile(r"\A---\n(.*?)\n---\n?(.*)\Z", re.DOTALL)


class MemoryRefused(Exception):
    """A memory cannot be written or removed; the message says why, for the model."""


@dataclass(frozen=True)
class Memory:
    """One stored memory: its header fields, its text and the file that holds it."""

    type: str
    name: str
    description: str
    content: str
    path: Path

    def index_line(self) -> str:
        """Its line in MEMORY.md."""
        return f"- [{self.name}]({self.path.name}) ({self.type}) — {self.description}"


def safe_name(name: str) -> str:
    """The name as a file may carry it: lower case, letters, digits, '-' and '_' only."""
    cleaned = re.sub(r"[^a-z0-9_-]+", "-", name.strip().lower()).strip("-_")
    return cleaned[:MAX_NAME].rstrip("-_")


def memory_dir(home: Path, workspace: Path) -> Path:
    """The memory folder of a workspace: its folder name and a hash of its full path."""
    resolved = workspace.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    return home / "memory" / f"{safe_name(resolved.name) or 'root'}-{digest}"


def one_line(text: str) -> str:
    """Text folded onto one line, as a header field must be."""
    return " ".join(text.split())


def render(memory: Memory) -> str:
    """The file's text: the front matter, a blank line, the content."""
    return (f"---\ntype: {memory.type}\nname: {memory.name}\n"
            f"description: {memory.description}\n---\n\n{memory.content.strip()}\n")


def parse(path: Path) -> Memory | None:
    """A memory file read back; None when it has no usable front matter."""
    try:
        text, _ = read_capped(path, MAX_MEMORY_BYTES)
    except OSError:
        return None
    match = FRONT.match(text.replace("\r\n", "\n"))  # a memory its user saved with CRLF ends
    if not match:
        return None
    fields = dict(line.partition(":")[::2] for line in match.group(1).splitlines() if ":" in line)
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    kind = fields.get("type", "")
    return Memory(kind if kind in TYPES else "project", fields.get("name") or path.stem,
                  fields.get("description", ""), match.group(2).strip(), path)


@dataclass(frozen=True)
class MemoryFolder:
    """The memories of one workspace, as files in one folder under stepagent's home."""

    home: Path
    workspace: Path

    @property
    def root(self) -> Path:
        """The folder itself."""
        return memory_dir(self.home, self.workspace)

    def all(self) -> list[Memory]:
        """Every memory, by name."""
        if not self.root.is_dir():
            return []
        found = (parse(path) for path in sorted(self.root.glob("*.md")) if path.name != INDEX)
        return [memory for memory in found if memory is not None]

    def find(self, name: str) -> Memory | None:
        """The memory called `name` (as safe_name spells it), if there is one."""
        path = self.root / f"{safe_name(name)}.md"
        return parse(path) if safe_name(name) and path.is_file() else None

    def remember(self, kind: str, name: str, description: str, content: str) -> Memory:
        """Write (or overwrite) one memory and rebuild the index."""
        if kind not in TYPES:
            raise MemoryRefused(f"type must be one of {', '.join(TYPES)}")
        slug = safe_name(name)
        if not slug:
            raise MemoryRefused("the name needs at least one letter or digit")
        if not content.strip():
            raise MemoryRefused("the content is empty")
        memory = Memory(kind, slug, one_line(description), content, self.root / f"{slug}.md")
        self._write(memory.path, render(memory))
        self.rebuild_index()
        return memory

    def forget(self, name: str) -> Memory | None:
        """Remove one memory and rebuild the index; None when there was none by that name."""
        memory = self.find(name)
        if memory is None:
            return None
        inside(self.home, memory.path.relative_to(self.home)).unlink()
        self.rebuild_index()
        return memory

    def rebuild_index(self) -> None:
        """Write MEMORY.md from the memory files (after a change, or after the user edits one)."""
        lines = [memory.index_line() for memory in self.all()]
        self._write(self.root / INDEX, "# Memory\n\n" + "\n".join(lines) + "\n")

    def prompt_index(self, max_chars: int = PROMPT_INDEX_CHARS) -> str:
        """MEMORY.md as the system prompt carries it, cut at a line to at most `max_chars`."""
        try:
            lines = read_capped(self.root / INDEX, MAX_MEMORY_BYTES)[0].splitlines()
        except OSError:
            return ""
        entries = [line for line in lines if line.startswith("- ")]
        kept: list[str] = []
        for line in entries:
            if sum(len(k) + 1 for k in kept) + len(line) > max_chars:
                break
            kept.append(line)
        if len(kept) < len(entries):
            kept.append(f"- … {len(entries) - len(kept)} more; list them with Glob in {self.root}")
        return "\n".join(kept)

    def _write(self, path: Path, text: str) -> None:
        write_inside(self.home, path.relative_to(self.home), text)
