"""The store fails, the session goes on: damaged pages, damaged entries, and one writer per session."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from session.live import SessionBusy
from session.lock import SessionLock
from session.store import SessionStore
from tests.harness import assert_valid_history, call, journaled, turn
from tests.terminal import Terminal
from tests.product_run import run_product
from tools.todos import todos_of
from ui.slash import run_slash_command

ROOT = Path(__file__).resolve().parent.parent
PAGE = 4096


def stored_session(home: Path, workspace: Path, entries: int = 300) -> Path:
    """A store holding one long session of `workspace`, checkpointed into the main file."""
    database = home / "sessions.db"
    store = SessionStore(database)
    store.create_session("sess_old", workspace)
    for n in range(entries):
        store.append("sess_old", "message", {"role": "user", "content": f"{n} " + "x" * 500})
    store.close()
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return database


def damage_pages(database: Path) -> None:
    """Scribble over pages after the first, so the header stays valid."""
    data = bytearray(database.read_bytes())
    for offset in range(PAGE, len(data), 2 * PAGE):
        data[offset:offset + 200] = b"\xde\xad" * 100
    database.write_bytes(bytes(data))


def stepagent(workspace: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    """A headless run; its stderr with the console's line wrapping undone."""
    (workspace / "s.json").write_text('[{"text": "still answering"}]')
    done = run_product("--script", "s.json", *args, cwd=workspace,
                       env={**os.environ, "STEPAGENT_HOME": str(home), "COLUMNS": "1000"})
    done.stderr = " ".join(done.stderr.split())
    return done


@pytest.mark.parametrize("args", [["--continue", "-p", "hi"], ["--resume", "sess_old", "-p", "hi"]])
def test_damaged_pages_do_not_stop_continue_or_resume(workspace, tmp_path, args):
    home = tmp_path / "home"
    database = stored_session(home, workspace)
    damage_pages(database)
    before = database.read_bytes()
    done = stepagent(workspace, home, *args)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "still answering"
    assert "malformed" in done.stderr and "in memory" in done.stderr and "Traceback" not in done.stderr
    assert database.read_bytes() == before


def test_damaged_pages_do_not_stop_the_session_list(workspace, tmp_path):
    home = tmp_path / "home"
    damage_pages(stored_session(home, workspace))
    done = stepagent(workspace, home, "--resume")
    shown = done.stdout + done.stderr
    assert done.returncode == 1 and "malformed" in shown and "Traceback" not in shown


def test_resume_in_the_repl_with_damaged_pages_is_one_line_and_the_session_goes_on(workspace, tmp_path):
    database = stored_session(tmp_path, workspace)
    damage_pages(database)
    session, live = journaled(workspace, SessionStore(database), [turn("first"), turn("second")])
    session.run("before")
    for line in ("/resume sess_old", "/fork sess_old"):
        outcome = run_slash_command(line, live)
        assert outcome.is_error and "\n" not in outcome.message
    assert session.run("after").text == "second"
    assert_valid_history(session.agent.messages)


@pytest.mark.parametrize("payload", ["{not json", '"a string"', '{"content": "no role"}',
                                     '{"role": "assistant", "tool_calls": [{"function": {}}]}'])
def test_a_damaged_entry_is_one_line_and_the_store_is_left_alone(workspace, tmp_path, payload):
    home = tmp_path / "home"
    database = stored_session(home, workspace, entries=3)
    with sqlite3.connect(database) as db:
        db.execute("UPDATE entries SET payload = ? WHERE seq = 2", (payload,))
    before = list(sqlite3.connect(database).iterdump())
    done = stepagent(workspace, home, "--continue", "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert "sess_old" in done.stderr and "in memory" in done.stderr and "Traceback" not in done.stderr
    assert list(sqlite3.connect(database).iterdump()) == before


def test_a_session_has_one_writer_and_a_second_can_fork_it(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    first, _ = journaled(workspace, store, [turn("", call("TodoWrite", todos=[{"content": "a"}])),
                                            turn("one"), turn("three")],
                         lock=SessionLock(tmp_path / "locks"))
    first.run("hello")
    second, live = journaled(workspace, store, [turn("two")], lock=SessionLock(tmp_path / "locks"))
    with pytest.raises(SessionBusy):
        live.resume(first.state.session_id)
    assert "/fork" in run_slash_command(f"/resume {first.state.session_id}", live).message
    fork_id = live.fork(first.state.session_id)
    assert fork_id != first.state.session_id and second.state.session_id == fork_id
    assert second.agent.messages == first.agent.messages and todos_of(second.state) == todos_of(first.state)
    second.run("on the fork")
    first.run("on the original")
    for session in (first, second):
        stored = [e.payload for e in store.entries(session.state.session_id) if e.kind == "message"]
        assert stored == session.agent.messages
        assert_valid_history(stored)


def test_a_lock_dies_with_its_process(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; sys.path.insert(0, sys.argv[1]);"
        "from session.lock import SessionLock; from pathlib import Path;"
        "assert SessionLock(Path(sys.argv[2])).hold('sess_x'); print('held', flush=True); time.sleep(60)"),
        str(ROOT), str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    lock = SessionLock(tmp_path)
    assert not lock.hold("sess_x")
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert lock.hold("sess_x")


def test_a_second_process_is_offered_a_fork_and_headless_is_refused(workspace, tmp_path):
    env = {"STEPAGENT_HOME": str(tmp_path / "home")}
    (workspace / "s.json").write_text(json.dumps([{"text": "answer one"}, {"text": "answer two"}]))
    first = Terminal.start(workspace, "--script", "s.json", env=env)
    try:
        first.expect("›")
        first.sendline("hello")
        first.expect("answer one")
        headless = run_product("--script", "s.json", "--continue", "-p", "x", cwd=workspace,
                               env={**os.environ, **env})
        assert headless.returncode == 3
        assert "open in another stepagent process" in " ".join(headless.stderr.split())
        second = Terminal.start(workspace, "--script", "s.json", "--continue", env=env)
        second.expect("Fork it")
        second.sendline("y")
        second.expect("Forked sess_")
        second.sendline("again")
        second.expect("answer one")
        second.sendline("/exit")
        second.expect(pexpect.EOF)
        first.sendline("more")
        first.expect("answer two")
    finally:
        first.close()
    store = SessionStore(tmp_path / "home" / "sessions.db")
    sessions = store.sessions(workspace)
    assert len(sessions) == 2
    for info in sessions:
        assert_valid_history([e.payload for e in store.entries(info.id) if e.kind == "message"])


def unusable_home(tmp_path: Path, how: str) -> Path:
    """A STEPAGENT_HOME whose store cannot be used: a file that is no database, or no folder at all."""
    if how == "junk":
        (tmp_path / "junk").mkdir()
        (tmp_path / "junk" / "sessions.db").write_text("junk\n")
        return tmp_path / "junk"
    (tmp_path / "a-file").write_text("")
    return tmp_path / "a-file" / "home"


@pytest.mark.parametrize("how", ["junk", "not a folder"])
def test_a_pending_plan_that_was_not_saved_offers_no_resume_and_no_rewind(workspace, tmp_path, how):
    plan = {"tool_calls": [{"name": "ExitPlanMode", "arguments": {"plan": "## Plan\n1. greet"}}]}
    (workspace / "plan.json").write_text(json.dumps([plan]))
    done = stepagent(workspace, unusable_home(tmp_path, how),
                     "--script", "plan.json", "--mode", "plan", "-p", "greet")
    assert done.returncode == 4, done.stderr
    assert "will not be saved" in done.stderr and "not saved" in done.stderr.split("exit code 4")[1]
    assert "--resume" not in done.stderr and "/rewind" not in done.stderr


def test_leaving_a_repl_whose_session_was_not_saved_offers_no_resume(workspace, tmp_path):
    (workspace / "s.json").write_text('[{"text": "hello there"}]')
    terminal = Terminal.start(workspace, "--script", "s.json",
                              env={"STEPAGENT_HOME": str(unusable_home(tmp_path, "junk"))})
    try:
        terminal.expect_text("will not be saved")
        terminal.sendline("hi")
        terminal.expect_text("hello there")
        terminal.sendline("/exit")
        terminal.expect(pexpect.EOF)
        assert "--resume" not in terminal.child.before
    finally:
        terminal.close()
