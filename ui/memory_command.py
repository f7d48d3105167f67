"""/memory: list this workspace's memories, or open one in the user's editor.

Memory is meant to be seen (tools/memory_files.py): the user can read, correct or
delete what the agent keeps about them. After the editor closes, MEMORY.md is
rebuilt, so an edited description reaches the next request's prompt.
"""

from __future__ import annotations

from pathlib import Path

from session.live import Session
from tools.memory import memory_of
from tools.memory_files import MemoryFolder
from ui.editor import run_editor


def memory_folder(session: Session) -> MemoryFolder | None:
    """The running session's memory folder, None when it has no memory layer."""
    return memory_of(session.agent)


def list_memories(folder: MemoryFolder) -> str:
    """One line per memory, and how to open one."""
    memories = folder.all()
    if not memories:
        return f"No memories yet for this workspace (they would be kept in {folder.root})."
    lines = [f"  {m.name:24} {m.type:9} {m.description}" for m in memories]
    return (f"Memories in {folder.root}:\n" + "\n".join(lines) +
            "\nOpen one with /memory NAME (uses $VISUAL or $EDITOR).")


def edit_memory(folder: MemoryFolder, name: str) -> tuple[str, bool]:
    """Open a memory in $VISUAL or $EDITOR; the message to show, and whether it is an error."""
    memory = folder.find(name)
    if memory is None:
        return f"No memory named {name!r}. {list_memories(folder)}", True
    failed = run_editor(Path(memory.path))
    folder.rebuild_index()  # an editor that failed may still have written the file
    if failed:
        return failed, True
    return f"Edited {Path(memory.path).name}; the memory index is up to date.", False
