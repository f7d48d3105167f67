"""Where an approved plan is kept: <workspace>/.stepagent/plans/plan-<session id>.md.

Written atomically with its folders created, so ExitPlanMode never fails for a
missing folder (failure mode 4), and only inside the workspace: a `.stepagent`
link planted in a repository makes the save fail instead of sending the plan
out. The `.stepagent` folder, when this makes it, ignores itself in git.
Characters of the id other than letters, digits, '-' and '_' become '-',
so an id can never name a path elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools.own_files import OWN_FOLDER, write_inside
from tools.paths import OutsideWorkspace, inside

PLANS_FOLDER = Path(OWN_FOLDER) / "plans"


def _relative_path(session_id: str) -> Path:
    return PLANS_FOLDER / f"plan-{re.sub(r'[^A-Za-z0-9_-]', '-', session_id)}.md"


def save_plan(workspace: Path, session_id: str, plan: str) -> Path:
    """Save the approved plan; OSError (OutsideWorkspace among them) if it cannot be."""
    return write_inside(workspace, _relative_path(session_id), plan.rstrip("\n") + "\n")


def saved_plan(workspace: Path, session_id: str) -> Path | None:
    """The saved plan of this session if it exists inside the workspace, else None."""
    try:
        path = inside(workspace, _relative_path(session_id))
    except OutsideWorkspace:
        return None
    return path if path.is_file() else None
