"""The core alone is safe while planning, and with the product's layers a Bash call is judged once.

A hostile model gets the core with no layer (plain Bash, plain files): nothing
it calls while planning changes the workspace, and its plain Read refuses the
kernel's files (a read there can act) and FIFOs, and keeps the access time of a
file the user owns; it does not look for another process's lease, which it
breaks (a known hole of the core alone, bounded in size; the hardened Read
refuses such a file, tests/test_leases.py). With the product's layers, the
Bash classifier is asked exactly once per call whatever the mode, and the
sandbox is chosen by that one decision: a classifier that wrongly says "read-only"
still cannot get a plan-mode command out of the sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.assemble import assemble
from models.scripted import ScriptedModel
from state import AppState
from tests.harness import Session, call, turn
from tests.test_leases import HOLDER, Holder
from tests.test_sandbox import DETECTED
from tools.base import Judgement
from tools.bash.judgements import READ_ONLY
from tools.plan_mode import PlanReview
from ui.modes import select

ATTEMPTS = [call("Write", file_path="x.txt", content="x"),
            call("Edit", file_path="keep.txt", old_string="kept", new_string="gone"),
            call("Bash", command="echo gone > keep.txt; touch x.txt"),
            call("Bash", command="ls"),
            call("ExitPlanMode", plan="")]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("mode", ["build", "edit", "yolo"])
def test_with_only_the_core_nothing_changes_while_planning(tmp_path, mode):
    (tmp_path / "keep.txt").write_text("kept")
    before = snapshot(tmp_path)
    state = AppState()
    select(state, mode, "test")
    state.enter_plan_mode("test")
    asked: list[str] = []
    model = ScriptedModel([turn("", *ATTEMPTS), turn("done")])
    agent = assemble(tmp_path, state, model, lambda plan: PlanReview("approve"),
                     lambda request: asked.append(request.tool) or True)
    agent.run_turn("change things")
    results = [m["content"] for m in agent.messages if m["role"] == "tool"]
    assert len(results) == len(ATTEMPTS)
    assert all("plan-mode-guard" in result for result in results[:4])
    assert snapshot(tmp_path) == before and state.plan_mode and not asked


def counting(verdict: Judgement) -> tuple[list[str], object]:
    seen: list[str] = []

    def classify(command: str) -> Judgement:
        seen.append(command)
        return verdict
    return seen, classify


@pytest.mark.parametrize("mode", ["plan", "build", "edit", "yolo"])
def test_each_bash_call_is_judged_once(workspace, mode):
    seen, classify = counting(READ_ONLY)
    session = Session(workspace, [turn("", call("Bash", command="ls"), call("Bash", command="pwd")),
                                  turn("done")], mode=mode, classifier=classify)
    session.run()
    assert seen == ["ls", "pwd"]
    assert all("exit code 0" in result for result in session.tool_results())


def test_a_write_the_classifier_misses_still_runs_in_the_sandbox(workspace):
    if DETECTED.bwrap is None:
        pytest.skip("no bubblewrap here: the sandbox under plan-mode Bash is not complete")
    seen, lying = counting(READ_ONLY)
    session = Session(workspace, [turn("", call("Bash", command="touch planted")), turn("done")],
                      mode="plan", classifier=lying)
    session.run()
    assert seen == ["touch planted"]
    assert not (workspace / "planted").exists()


def test_the_cores_read_refuses_kernel_files_and_fifos(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    agent = assemble(tmp_path, AppState(), ScriptedModel([]), lambda plan: PlanReview("reject"),
                     lambda request: False)
    read = agent.executor.tools["Read"].handler
    for path in ("/proc/self/status", "/sys/kernel/notes", str(tmp_path / "pipe")):
        result = read({"file_path": path})
        assert result.is_error and "Cannot read" in result.content, path


LETTING_GO = HOLDER.replace('open(flag, "w").write("signalled")',
                            '(open(flag, "w").write("signalled"), fcntl.fcntl(fd, 1024, fcntl.F_UNLCK))')


class LettingGo(Holder):
    """A lease holder that lets go when signalled, so the reader that broke the lease waits not."""

    script = LETTING_GO


def core_read(workspace: Path):
    agent = assemble(workspace, AppState(), ScriptedModel([]), lambda plan: PlanReview("reject"),
                     lambda request: False)
    return agent.executor.tools["Read"].handler


def test_the_cores_read_keeps_the_access_time_of_a_file_the_user_owns(tmp_path):
    """An access time older than the last change is one relatime updates at the next plain read."""
    notes = tmp_path / "notes.md"
    notes.write_text("hello\n")
    os.utime(notes, (1_000_000_000, 1_000_000_010))
    assert core_read(tmp_path)({"file_path": "notes.md"}).content.endswith("hello")
    assert notes.stat().st_atime == 1_000_000_000


@pytest.mark.xfail(strict=True, reason="the core alone does not read /proc/locks (its size is bounded: "
                   "tests/test_minimal.py); the product's Read refuses a leased file")
def test_the_cores_read_leaves_another_process_lease_alone(tmp_path):
    leased = tmp_path / "leased.txt"
    leased.write_text("hello\n")
    holder = LettingGo(leased, tmp_path / "signalled")
    try:
        core_read(tmp_path)({"file_path": "leased.txt"})
        assert not holder.signalled
    finally:
        holder.stop()
