"""stepagent's own files in a workspace (plans, exports): written atomically, never outside it.

A temporary file beside the target is renamed over it, so an interrupted write
leaves the old file whole; folders are made as needed. `write_inside` follows
links and refuses a path that leaves its root (a `.stepagent` link planted in a
repository makes the write fail instead of sending the file elsewhere). The
`.stepagent` folder, when this makes it, ignores itself in git.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tools.paths import inside

OWN_FOLDER = ".stepagent"
IGNORE_EVERYTHING = ("# stepagent's own files (plans, exports) stay out of commits; the project's\n"
                     "# settings.json (hooks and rules to share) may be committed\n*\n!settings.json\n")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
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
