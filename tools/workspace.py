"""The workspace on disk: where a tool's path points, and stepagent's own files there.

Paths are resolved against the workspace (the current directory) with links
followed, so `../x` and a link that points outside are both caught.

stepagent's own files (plans, exports) are written atomically and never outside
their root: a temporary file beside the target is renamed over it, so an
interrupted write leaves the old file whole; folders are made as needed.
`write_inside` follows links and refuses a path that leaves its root (a
`.stepagent` link planted in a repository makes the write fail instead of sending
the file elsewhere). The `.stepagent` folder, when this makes it, ignores itself in git.

An approved plan is kept at <workspace>/.stepagent/plans/plan-<session id>.md, so
ExitPlanMode never fails for a missing folder (failure mode 4). Characters of the id
other than letters, digits, '-' and '_' become '-', so an id can never name a path
elsewhere. A plan is kept byte for byte as the user saw it (`plan_text`), and named by
the SHA-256 of those bytes (`plan_digest`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import tempfile
from pathlib import Path

KERNEL_FOLDERS = ("/proc", "/sys", "/dev")
OWN_FOLDER = ".stepagent"
IGNORE_EVERYTHING = ("# stepagent's own files (plans, exports) stay out of commits; the project's\n"
                     "# settings.json (hooks and rules to share) may be committed\n*\n!settings.json\n")
PLANS_FOLDER = Path(OWN_FOLDER) / "plans"


def resolve(workspace: Path, file_path: str) -> Path:
    """The absolute path a tool argument names, relative to the workspace."""
    path = Path(file_path).expanduser()
    return (path if path.is_absolute() else workspace / path).resolve()


def outside_workspace(workspace: Path, path: Path) -> str:
    """An error message when `path` is outside the workspace, else ''."""
    if path == workspace.resolve() or workspace.resolve() in path.parents:
        return ""
    return f"{path} is outside the workspace {workspace}; only files inside it can be changed."


def in_kernel_folder(path: Path) -> bool:
    """Whether `path` is one of the kernel's own file systems, whose files act when read."""
    return any(path == Path(top) or Path(top) in path.parents for top in KERNEL_FOLDERS)


class OutsideWorkspace(PermissionError):
    """A path stepagent meant to keep inside a folder leads out of it through a link."""


def inside(root: Path, relative: str | Path) -> Path:
    """The real path of `relative` under `root`, links followed; OutsideWorkspace if it leaves root.

    For the files stepagent writes itself (plans, memory, .gitignore): a
    `.stepagent` link planted in a repository must not carry them elsewhere.
    """
    path = resolve(root, str(relative))
    refusal = outside_workspace(root, path)
    if refusal:
        raise OutsideWorkspace(errno.EACCES, refusal)
    return path


def shown(workspace: Path, path: Path) -> str:
    """The path as the model should see it: relative inside the workspace."""
    try:
        return str(path.relative_to(workspace.resolve()))
    except ValueError:
        return str(path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(path: Path, text: str) -> None:
    """Write `text` beside `path`, then rename it into place; a lone surrogate as its escape `\\ud800`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="backslashreplace", newline="") as out:
            out.write(text)
        os.chmod(temporary, path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_inside(root: Path, relative: str | Path, text: str) -> Path:
    """Write one of stepagent's own files under `root` atomically; returns its real path.

    Checked like any write: a link that leads out of `root` raises
    OutsideWorkspace (an OSError) and nothing is written, no folder made.
    A `.stepagent` folder this makes ignores itself (see `make_own_folder`).
    """
    path = inside(root, relative)
    if Path(relative).parts[:1] == (OWN_FOLDER,):
        make_own_folder(root)
    write_atomically(path, text)
    return path


def make_own_folder(root: Path) -> Path:
    """Return `root/.stepagent`, made if missing with a .gitignore of `*` in it.

    So plans never land in the user's commits. A folder that already exists is left as it is.
    """
    folder = inside(root, OWN_FOLDER)
    if not folder.exists():
        folder.mkdir(parents=True)
        write_atomically(folder / ".gitignore", IGNORE_EVERYTHING)
    return folder


def plan_path(session_id: str) -> Path:
    """Where this session's plan is kept, relative to the workspace."""
    return PLANS_FOLDER / f"plan-{re.sub(r'[^A-Za-z0-9_-]', '-', session_id)}.md"


def plan_text(raw: str) -> str:
    """A plan as shown, digested and saved: trimmed, one newline at the end, lone surrogates escaped."""
    return (raw.strip() + "\n").encode("utf-8", "backslashreplace").decode("utf-8")


def plan_digest(text: str) -> str:
    """The SHA-256 of the plan's UTF-8 bytes, in hex: the name of exactly this text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save_plan(workspace: Path, session_id: str, plan: str) -> Path:
    """Save the plan byte for byte; OSError (OutsideWorkspace among them) if it cannot be."""
    return write_inside(workspace, plan_path(session_id), plan)
