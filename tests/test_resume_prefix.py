"""Resuming by a start of the id: without `sess_`, and only among this workspace's sessions."""

from __future__ import annotations

import json
import os
from pathlib import Path

from session.store import SessionStore
from tests.harness import journaled, turn
from tests.product_run import run_product
from ui.slash import run_slash_command



def stored_session(workspace: Path, store: SessionStore, prompt: str) -> str:
    """One answered session of `workspace` in `store`; its id."""
    session, _ = journaled(workspace, store, [turn(f"answer to {prompt}")])
    session.run(prompt)
    return session.state.session_id


def test_a_start_of_the_id_without_sess_resumes_it_in_the_repl_and_from_the_command_line(
        workspace, tmp_path):
    home = tmp_path / "home"
    store = SessionStore(home / "sessions.db")
    wanted = stored_session(workspace, store, "what does app.py do?")
    short = wanted.removeprefix("sess_")[:6]
    _, live = journaled(workspace, store, [])
    outcome = run_slash_command(f"/resume {short}", live)
    assert outcome.resumed and wanted in outcome.message, outcome.message
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "next answer"}]))
    resumed = run_product("--script", str(script), "--resume", short, "-p", "go on", cwd=workspace,
                          env={**os.environ, "STEPAGENT_HOME": str(home)})
    assert resumed.returncode == 0, resumed.stderr
    assert f"Resumed {wanted}" in resumed.stderr


def test_a_fork_by_a_start_of_the_id_names_the_whole_id_it_copied(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    wanted = stored_session(workspace, store, "what does app.py do?")
    short = wanted.removeprefix("sess_")[:6]
    _, live = journaled(workspace, store, [])
    outcome = run_slash_command(f"/fork {short}", live)
    assert not outcome.is_error and outcome.message.startswith(f"Forked {wanted} into "), outcome.message


def test_resume_never_picks_a_session_of_another_workspace(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    other = tmp_path / "other"
    other.mkdir()
    foreign = stored_session(other, store, "a secret elsewhere")
    _, live = journaled(workspace, store, [])
    for wanted in (foreign[:9], foreign.removeprefix("sess_")[:4], "sess_"):
        outcome = run_slash_command(f"/resume {wanted}", live)
        assert outcome.is_error and not outcome.resumed, outcome.message
        assert "no session of this workspace" in outcome.message
        assert live.agent.state.session_id != foreign and not live.agent.messages
    exact = run_slash_command(f"/resume {foreign}", live)
    assert exact.is_error and not exact.resumed
    assert f"belongs to another workspace, {other}" in exact.message, exact.message
    assert live.agent.state.session_id != foreign and not live.agent.messages
