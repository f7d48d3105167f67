"""Where an approved plan is kept: <workspace>/.stepagent/plans/plan-<session id>.md.

Written atomically with its folders created, so ExitPlanMode never fails for a
missing folder (failure mode 4). Characters of the id other than letters,
digits, '-' and '_' become '-', so an id can never name a path elsewhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from tools.files import write_atomically

PLANS_FOLDER = Path(".stepagent") / "plans"


def plan_path(workspace: Path, session_id: str) -> Path:
    safe_id = re.sub(r"[^A-Za-z0-9_-]", "-", session_id)
    return workspace / PLANS_FOLDER / f"plan-{safe_id}.md"


def save_plan(workspace: Path, session_id: str, plan: str) -> Path:
    path = plan_path(workspace, session_id)
    write_atomically(path, plan.rstrip("\n") + "\n")
    return path
