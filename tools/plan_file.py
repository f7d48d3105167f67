"""Where an approved plan is kept: <workspace>/.stepagent/plans/plan-<session id>.md.

Written atomically with its folders created, so ExitPlanMode never fails for a
missing folder (failure mode 4), and only inside the workspace: a `.stepagent`
link planted in a repository makes the save fail instead of sending the plan
out. The `.stepagent` folder, when this makes it, ignores itself in git.
Characters of the id other than letters, digits, '-' and '_' become '-',
so an id can never name a path elsewhere. A plan is kept byte for byte as the
user saw it (`plan_text`), and named by the SHA-256 of those bytes (`plan_digest`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tools.own_files import OWN_FOLDER, write_inside
from tools.paths import OutsideWorkspace, inside

PLANS_FOLDER = Path(OWN_FOLDER) / "plans"


def _relative_path(session_id: str) -> Path:
    return PLANS_FOLDER / f"plan-{re.sub(r'[^A-Za-z0-9_-]', '-', session_id)}.md"


def plan_text(raw: str) -> str:
    """A plan as it is shown, digested and saved: no blank lines around it, one newline at the end."""
    return raw.strip() + "\n"


def plan_digest(text: str) -> str:
    """The SHA-256 of the plan's UTF-8 bytes, in hex: the name of exactly this text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save_plan(workspace: Path, session_id: str, plan: str) -> Path:
    """Save the plan byte for byte; OSError (OutsideWorkspace among them) if it cannot be."""
    return write_inside(workspace, _relative_path(session_id), plan)


def saved_plan(workspace: Path, session_id: str) -> Path | None:
    """The saved plan of this session if it exists inside the workspace, else None."""
    try:
        path = inside(workspace, _relative_path(session_id))
    except OutsideWorkspace:
        return None
    return path if path.is_file() else None
