"""A plan awaiting approval, through the product with its store: saved with s or left by -p,
reviewed again by /plan approve as the same revision, its file gone once it is rejected,
and the approval it hands the model named as such in /rewind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from session.journal import read_session
from session.plan_revisions import pending_plan
from session.rewind.layer import rewind_of
from session.store import SessionStore
from tests.harness import call, journaled, turn
from tests.product_run import run_product
from tools.plan_mode import APPROVED
from ui.plan_review import plan_review
from ui.rewind_command import rewind_listing
from ui.slash import run_slash_command

PLAN = "## Plan\n\n1. Write made.txt\n"


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "home" / "sessions.db")


def saved_for_later(workspace: Path, store: SessionStore, *later: str, first: str = "s"):
    """A planning session whose plan was answered `first`; `later` answers the reviews after."""
    session, live = journaled(workspace, store, [turn("", call("ExitPlanMode", plan=PLAN)),
                                                 turn("building it")],
                              plan_answers=[first, *later], mode="plan", home=store.path.parent)
    session.run("plan it")
    return session, live


def plan_files(workspace: Path) -> list[Path]:
    return list((workspace / ".stepagent" / "plans").glob("plan-*.md"))


def test_plan_approve_reviews_the_saved_plan_as_the_same_revision(workspace, store):
    session, live = saved_for_later(workspace, store, "y")
    outcome = run_slash_command("/plan approve", live)
    assert outcome.send.startswith(APPROVED) and not session.state.plan_mode
    revisions = store.revisions(session.state.session_id)
    assert [(r.number, r.outcome) for r in revisions] == [(1, "approve")]
    assert [(r.number, r.outcome) for r in live.journal.revisions] == [(1, "approve")]
    assert plan_files(workspace)[0].read_text() == PLAN


def test_n_at_plan_approve_rejects_the_saved_plan_and_removes_its_file(workspace, store):
    session, live = saved_for_later(workspace, store, "n")
    assert plan_files(workspace)[0].read_text() == PLAN, "s writes the plan file"
    run_slash_command("/plan approve", live)
    assert plan_files(workspace) == [] and session.state.plan_mode
    assert pending_plan(store.revisions(session.state.session_id)) is None
    assert "No plan is waiting" in run_slash_command("/plan approve", live).message


def test_feedback_on_the_saved_plan_removes_its_file_too(workspace, store):
    _, live = saved_for_later(workspace, store, "add a test")
    run_slash_command("/plan approve", live)
    assert plan_files(workspace) == []


def test_ctrl_c_at_plan_approve_leaves_the_plan_pending(workspace, store, monkeypatch):
    session, live = saved_for_later(workspace, store, "ctrl-c")

    def review(answer: str):
        if answer == "ctrl-c":
            raise KeyboardInterrupt
        return plan_review(answer)

    monkeypatch.setattr("tests.harness.plan_review", review)
    with pytest.raises(KeyboardInterrupt):
        run_slash_command("/plan approve", live)
    assert pending_plan(live.journal.revisions).number == 1
    assert [r.outcome for r in store.revisions(session.state.session_id)] == ["save"]
    assert plan_files(workspace)[0].read_text() == PLAN


def test_a_plan_left_pending_by_p_is_reviewed_by_plan_approve_after_a_resume(workspace, store,
                                                                          tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "ExitPlanMode",
                                                   "arguments": {"plan": PLAN}}]}]))
    headless = run_product("--script", str(script), "--mode", "plan", "-p", "plan it", cwd=workspace)
    assert headless.returncode == 4, headless.stderr
    assert plan_files(workspace) == [], "nobody reviewed it: nothing is saved"
    resumed, live = journaled(workspace, store, [turn("building it")], plan_answers=["y"],
                              home=store.path.parent)
    left = live.resume(live.latest_id())
    assert resumed.state.plan_mode
    assert "awaiting approval" in run_slash_command("/plan show", live).message
    outcome = run_slash_command("/plan approve", live)
    assert outcome.send.startswith(APPROVED) and not resumed.state.plan_mode
    assert [(r.number, r.outcome) for r in store.revisions(left)] == [(1, "approve")]
    assert plan_files(workspace)[0].read_text() == PLAN
    assert run_slash_command("/plan show", live).message == "Plan revision 1 (approved)"


def test_rewind_names_the_approval_handed_over_not_as_your_words(workspace, store):
    session, live = saved_for_later(workspace, store, "y")
    outcome = run_slash_command("/plan approve", live)
    session.run(outcome.send)
    listing = rewind_listing(rewind_of(session.agent))
    assert "plan it" in listing and "(plan approved" in listing
    assert "The user approved" not in listing
    stored = read_session(store, session.state.session_id).messages
    assert outcome.send in [m["content"] for m in stored], "the model is still handed the approval"


def test_the_session_c_builds_in_reads_as_the_plans_title_in_the_list_and_on_resume(workspace, store):
    import io
    import time

    from rich.console import Console

    from ui.console import ConsoleView
    from ui.repl import _build_fresh
    from ui.startup import show_last_exchange

    plan = "## Add a greeting file\n\n1. Write greeting.txt\n"
    session, live = journaled(workspace, store, [turn("", call("ExitPlanMode", plan=plan)),
                                                 turn("building it")],
                              plan_answers=["s", "c"], mode="plan", home=store.path.parent)
    session.run("plan a greeting")
    approval = run_slash_command("/plan approve", live).fresh_start
    screen = io.StringIO()
    view = ConsoleView(Console(file=screen, width=200))
    _build_fresh(live, view, approval, None)
    built = session.state.session_id
    [listed] = [info.line(time.time()) for info in store.sessions(workspace) if info.id == built]
    assert "(plan approved: Add a greeting file)" in listed and APPROVED not in listed
    _, resumed = journaled(workspace, store, [], home=store.path.parent)
    resumed.resume(built)
    screen.truncate(0), screen.seek(0)
    show_last_exchange(resumed, view)
    assert "› (plan approved: Add a greeting file)" in screen.getvalue()
    assert APPROVED not in screen.getvalue() and "building it" in screen.getvalue()
