"""Rewind's checkpoint of a large workspace: a 10,000-file git repository with one file changed.

The checkpoint is the one taken before each prompt (Rewind.take, through the
product's layers and the journal into the session store): the files' snapshot
in the shadow repository, its commit, the state, the store's row. Side by side
in one run: that checkpoint (the shadow's own index reused, so only the changed
file is hashed again) and the same from a fresh index (every file hashed
again); then the first checkpoint (every file stored, then packed). The
target is checked on the checkpoint's CPU time (stepagent's and git's), which
other work on a shared machine does not inflate; the wall-clock time is shown
beside it, with the load it was measured under (on an idle machine the two are
close). The store's size is measured on disk: after the first checkpoint, and
what each further checkpoint adds. Exits non-zero when the target is missed.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, Targets, conditions, ratio, samples  # noqa: F401

from agent.assemble import assemble
from ui.product import product_layers
from models.scripted import ScriptedModel
from session.journal import Journal
from session.rewind.checkpoints import Rewind
from session.rewind.layer import rewind_of
from session.rewind.shadow_repo import shadow_folder
from session.store import SessionStore
from state import AppState
from tools.plan_mode import PlanReview

FILES = 10_000
RUNS = 15
TARGET_SECONDS = 0.100


def make_repository(workspace: Path) -> Path:
    """A committed repository of FILES small source files in 100 × 7 folders."""
    for number in range(FILES):
        folder = workspace / f"pkg{number % 100}" / f"part{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"module{number}.py").write_text(f"VALUE = {number}\n" * 20)
    environment = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=b", "-c", "user.email=b@b",
                                                   "commit", "-qm", "files"]):
        subprocess.run(["git", *command], cwd=workspace, check=True, env=environment)
    return workspace / "pkg1" / "part1" / "module1.py"


def rewind_for(workspace: Path, home: Path) -> Rewind:
    """The product's Rewind for `workspace`, journaled into a session store under `home`."""
    state, store = AppState(), SessionStore(home / "sessions.db")
    agent = assemble(workspace, state, ScriptedModel([]), lambda plan: PlanReview("reject"),
                     lambda request: True, product_layers(home, store))
    state.events.subscribe(Journal(store, state, workspace, warn=print).on_event)
    return rewind_of(agent)


def cpu_seconds() -> float:
    """User and system time of this process and the git commands it waited for."""
    own = os.times()
    return own.user + own.system + own.children_user + own.children_system


def disk_bytes(folder: Path) -> int:
    """What the folder takes on disk (allocated blocks, not file lengths)."""
    return sum(os.lstat(Path(root, name)).st_blocks * 512
               for root, _, names in os.walk(folder) for name in names)


def main() -> int:
    targets = Targets()
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-checkpoint-") as scratch:
        workspace, home = Path(scratch) / "workspace", Path(scratch) / "home"
        workspace.mkdir()
        changed = make_repository(workspace)
        rewind = rewind_for(workspace, home)
        edits = iter(range(10 ** 6))

        def checkpoint() -> None:
            changed.write_text(f"VALUE = {next(edits)}\n")
            assert rewind.take("prompt", "bench").commit

        start = time.perf_counter()
        checkpoint()
        first = time.perf_counter() - start
        store = shadow_folder(home, workspace)
        after_first = disk_bytes(store)
        cpu = samples(checkpoint, RUNS, clock=cpu_seconds)
        per_checkpoint = (disk_bytes(store) - after_first) / RUNS

        def from_scratch() -> None:
            (store / "index").unlink()
            checkpoint()

        side_by_side = ratio(checkpoint, from_scratch, RUNS)
    print(conditions())
    used = statistics.median(cpu)
    print(f"checkpoint of {FILES:,} files, one changed: {used * 1000:.1f} ms of CPU time, "
          f"stepagent's and git's (median of {RUNS}) "
          f"{targets.check('checkpoint', used, TARGET_SECONDS, '100 ms')}")
    print(f"  wall-clock time: {side_by_side.measured * 1000:.1f} ms (median of {RUNS})")
    print(f"  beside the same from a fresh index (every file hashed again, "
          f"{side_by_side.reference * 1000:.0f} ms): {side_by_side}")
    print(f"  the first checkpoint (every file stored, then packed): {first * 1000:.0f} ms")
    print(f"store on disk: {after_first / 1e6:.1f} MB after the first checkpoint, "
          f"{per_checkpoint / 1e3:.1f} kB more per checkpoint with one file changed")
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
