"""Sessions survive: the journal, resume, a killed process, a broken database, /trace."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pexpect
import pytest

from session.journal import RESULT_LOST
from session.store import SessionStore
from tests.fake_chat_server import FakeChatServer
from tests.harness import assert_valid_history, call, journaled, run_index, turn
from tests.terminal import Terminal
from tests.product_run import run_product
from tools.todos import todos_of
from tools.workspace import plan_digest, plan_text

ROOT = Path(__file__).resolve().parent.parent
TODOS = [{"content": "Plan the change", "status": "in_progress", "activeForm": "Planning the change"},
         {"content": "Make it", "status": "pending"}]


def test_resume_restores_messages_modes_todos_and_trace(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    first, live = journaled(workspace, store, [
        turn("", call("TodoWrite", todos=TODOS), call("Write", file_path="x", content="x")),
        turn("researching")], mode="edit")
    first.state.enter_plan_mode("/plan")
    first.run("plan a change")

    second, resumed = journaled(workspace, store, [turn("resumed answer")])
    resumed.resume(first.state.session_id)
    assert second.state.session_id == first.state.session_id
    assert second.agent.messages == first.agent.messages
    assert second.state.plan_mode and second.state.permission_mode.value == "edit"
    assert todos_of(second.state) == todos_of(first.state)
    second.run("go on")
    assert second.model.requests[0][1:len(first.agent.messages) + 1] == first.agent.messages
    trace = "\n".join(resumed.trace())
    assert "mode → plan  (by /plan)" in trace and "mode → plan  (by resume)" in trace
    assert "✓ TodoWrite     allowed" in trace and "✗ Write         denied by plan-mode-guard" in trace
    assert "      rule plan-mode-allowlist: plan mode is active" in trace, "the reason, indented below"


def test_trace_sizes_its_tool_column_to_the_longest_name(workspace, tmp_path):
    question = {"question": "Which greeting?", "header": "Greeting", "multiSelect": False,
                "options": [{"label": "Hello", "description": "short"},
                            {"label": "Hi", "description": "shorter"}]}
    session, live = journaled(workspace, SessionStore(tmp_path / "sessions.db"), [
        turn("", call("AskUserQuestion", questions=[question]), call("Read", file_path="x")),
        turn("asked")])
    session.run("ask me")
    decisions = [line for line in live.trace() if line.startswith(("  ✓", "  ✗"))]
    assert [line.split()[1] for line in decisions] == ["AskUserQuestion", "Read"]
    columns = {line.index(line.split()[2]) for line in decisions}
    assert len(columns) == 1, f"the verbs start in one column: {decisions}"


def test_every_mode_change_and_hook_decision_is_an_entry(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    session, _ = journaled(workspace, store, [
        turn("", call("Read", file_path="a"), call("Write", file_path="b", content="b")),
        turn("", call("ExitPlanMode", plan="p")), turn("ok")], plan_answers=["y"])
    session.state.enter_plan_mode("/plan")
    session.run()
    entries = store.entries(session.state.session_id)
    hooks = [e.payload for e in entries if e.kind == "hook"]
    modes = [e.payload["cause"] for e in entries if e.kind == "mode"]
    assert [(h["tool"], h["decision"]) for h in hooks] == [("Read", "allow"), ("Write", "deny"),
                                                          ("ExitPlanMode", "allow")]
    assert modes == ["/plan", "ExitPlanMode approval"]
    messages = [e.payload for e in entries if e.kind == "message"]
    assert messages == session.agent.messages


def test_the_trace_says_how_each_plan_review_ended_and_keeps_it_on_resume(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    session, live = journaled(workspace, store, [
        turn("", call("ExitPlanMode", plan="p")), turn("", call("ExitPlanMode", plan="p2")),
        turn("ok")], plan_answers=["add tests", "y"])
    session.state.enter_plan_mode("/plan")
    session.run()
    _, resumed = journaled(workspace, store, [])
    resumed.resume(session.state.session_id)
    first, second = plan_digest(plan_text("p"))[:12], plan_digest(plan_text("p2"))[:12]
    for trace in (live.trace(), resumed.trace()):
        reviews = [line.strip() for line in trace if "your review" in line]
        assert reviews == [f"your review of plan revision 1 (sha256 {first}): not approved: your "
                           "feedback goes to the model",
                           f"your review of plan revision 2 (sha256 {second}): plan approved (build mode)"]
    revisions = store.revisions(session.state.session_id)
    assert [(r.number, r.plan, r.outcome, r.feedback) for r in revisions] == [
        (1, "p\n", "feedback", "add tests"), (2, "p2\n", "approve", "")]


def test_a_compacted_session_resumes_compacted(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    first, live = journaled(workspace, store, [turn("a"), turn("SUMMARY")])
    first.run("hello")
    live.compact()
    second, resumed = journaled(workspace, store, [])
    resumed.resume(first.state.session_id)
    assert second.agent.messages == first.agent.messages
    assert "SUMMARY" in second.agent.messages[0]["content"]


@pytest.mark.slow
def test_sigkill_mid_turn_loses_at_most_that_turn(workspace, tmp_path):
    home = tmp_path / "home"
    script = tmp_path / "slow.json"
    script.write_text(json.dumps([{"text": "first answer"},
                                  {"text": "", "tool_calls": [{"name": "Bash", "arguments": {
                                      "command": "sleep 30 && touch late.txt"}}]}]))
    env = {**os.environ, "STEPAGENT_HOME": str(home)}
    terminal = Terminal.start(workspace, "--script", str(script), "--mode", "yolo", env=env)
    terminal.expect("›")
    terminal.sendline("turn one")
    terminal.expect("first answer")
    terminal.sendline("turn two")
    terminal.expect("sleep 30")
    time.sleep(0.3)
    os.kill(terminal.child.pid, signal.SIGKILL)
    terminal.child.wait()

    server = FakeChatServer()
    url = server.start()
    server.reply_text("carrying on")
    try:
        done = run_product("--continue", "-p", "turn three", cwd=workspace,
                           env={**env, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "carrying on"
    sent = server.requests[0]["messages"][1:]
    assert [m["content"] for m in sent if m["role"] == "user" and not m["content"].startswith("<")] == [
        "turn one", "turn two", "turn three"]
    assert {"role": "tool", "tool_call_id": "call_2_0", "content": RESULT_LOST} in sent
    assert_valid_history(sent)
    assert not (workspace / "late.txt").exists()


def test_resume_in_a_terminal_shows_plan_todos_and_trace(workspace, tmp_path):
    script = tmp_path / "todos.json"
    script.write_text(json.dumps([{"text": "", "tool_calls": [{"name": "TodoWrite", "arguments": {"todos": TODOS}}]},
                                  {"text": "listed"}]))
    env = {"STEPAGENT_HOME": str(tmp_path / "home")}

    def start(*args: str) -> Terminal:
        return Terminal.start(workspace, "--script", str(script), *args, env=env)

    first = start()
    first.expect("›")
    first.sendline("/plan make a list")
    first.expect("listed")
    first.sendline("/exit")
    first.expect(pexpect.EOF)

    second = start("--continue")
    second.expect("Resumed sess_")
    second.expect("PLAN")
    second.expect("todos 0/2")
    second.sendline("/todos")
    second.expect("◐ Planning the change")
    second.sendline("/trace")
    second.expect(r"mode → plan\s+\(by /plan\)")
    second.expect(r"TodoWrite\s+allowed")
    second.sendline("/exit")
    second.expect(pexpect.EOF)


def test_continue_without_an_earlier_session_is_a_clear_error(workspace):
    done = run_product("--continue", "-p", "x", cwd=workspace)
    assert done.returncode == 2 and "no earlier session" in done.stderr


@pytest.mark.parametrize("damage", ["corrupt", "locked"])
def test_a_broken_database_leaves_the_agent_running_in_memory(workspace, tmp_path, damage):
    home = tmp_path / "home"
    home.mkdir()
    database = home / "sessions.db"
    blocker = None
    if damage == "corrupt":
        database.write_bytes(b"garbage" * 1000)
    else:
        store = SessionStore(database)
        store.create_session("sess_kept", workspace)
        store.append("sess_kept", "message", {"role": "user", "content": "kept"})
        store.close()
        blocker = sqlite3.connect(database, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")

    def contents() -> object:
        if damage == "corrupt":
            return database.read_bytes()
        return list(sqlite3.connect(database).iterdump())

    before = contents()
    (workspace / "s.json").write_text('[{"text": "still answering"}]')
    done = run_product("--script", "s.json", "-p", "hi", cwd=workspace,
                       env={**os.environ, "STEPAGENT_HOME": str(home), "STEPAGENT_BUSY_TIMEOUT": "0.2"})
    if blocker:
        blocker.execute("ROLLBACK")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "still answering"
    assert "session store" in done.stderr and "in memory" in done.stderr
    assert "Traceback" not in done.stderr
    assert contents() == before


@pytest.mark.parametrize("given, waits, error", [
    (None, 5000, ""), ("0.25", 250, ""), ("soon", 5000, "STEPAGENT_BUSY_TIMEOUT must be a number of seconds")])
def test_a_write_waits_five_seconds_for_another_stepagent_unless_told_otherwise(tmp_path, monkeypatch,
                                                                                  given, waits, error):
    from types import SimpleNamespace

    from ui.startup import open_store

    if given is None:
        monkeypatch.delenv("STEPAGENT_BUSY_TIMEOUT", raising=False)
    else:
        monkeypatch.setenv("STEPAGENT_BUSY_TIMEOUT", given)
    errors: list[str] = []
    store = open_store(tmp_path, SimpleNamespace(error=errors.append))
    assert store._db.execute("PRAGMA busy_timeout").fetchone()[0] == waits  # SQLite's own figure, in ms
    assert [error in line for line in errors] == ([True] if error else [])


@pytest.mark.slow
def test_continue_keeps_the_stored_mode_unless_mode_is_given(workspace, tmp_path):
    env = {**os.environ, "STEPAGENT_HOME": str(tmp_path / "home")}
    (workspace / "s.json").write_text('[{"text": "planned"}]')
    run_product("--script", "s.json", "--mode", "plan", "-p", "plan", cwd=workspace,
                env=env, check=True)
    server = FakeChatServer()
    url = server.start()
    server.reply_text("a")
    server.reply_text("b")
    try:
        for extra in ([], ["--mode", "build"]):
            run_product("--continue", *extra, "-p", "x", cwd=workspace, check=True,
                        env={**env, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    finally:
        server.stop()
    first, second = (request["messages"][0]["content"] for request in server.requests)
    assert first.startswith("# Plan Mode (ACTIVE)")
    assert "Plan Mode" not in second
    listing = run_product("--resume", cwd=workspace, env=env)
    assert listing.returncode == 0 and listing.stdout.count("sess_") == 1


def two_sessions(workspace, store: SessionStore) -> list[str]:
    """Two stored sessions of this workspace: a question answered, then a plan made."""
    ids = []
    for mode, prompt, answer in [("build", "what does app.py do?", "It greets."),
                                 ("plan", "plan a   refactor\nof app.py", "Here is my plan.")]:
        session, _ = journaled(workspace, store, [turn(answer)], mode=mode)
        session.run(prompt)
        ids.append(session.state.session_id)
    return ids


def test_the_session_list_shows_first_prompt_age_and_mode_and_marks_this_one(workspace, tmp_path):
    from ui.startup import session_lines

    store = SessionStore(tmp_path / "sessions.db")
    answered, planned = two_sessions(workspace, store)
    lines = session_lines(store.sessions(workspace), current=answered)
    assert lines[0].startswith(f"  {planned}") and "just now" in lines[0]
    assert "plan " in lines[0] and lines[0].endswith("plan a refactor of app.py")
    assert lines[1].startswith(f"● {answered}") and "build" in lines[1]
    assert "what does app.py do?" in lines[1] and "(this session)" in lines[1]


def test_resume_takes_a_unique_start_of_an_id_and_names_the_matches_when_not(workspace, tmp_path):
    from session.live import AmbiguousSession, NoSuchSession

    store = SessionStore(tmp_path / "sessions.db")
    answered, planned = two_sessions(workspace, store)
    _, live = journaled(workspace, store, [])
    unique = next(answered[:n] for n in range(6, len(answered)) if not planned.startswith(answered[:n]))
    assert live.resume(unique) == answered
    assert live.last_exchange() == ("what does app.py do?", "It greets.")
    from ui.slash import run_slash_command

    by_command = run_slash_command(f"/resume {planned[:len(unique) + 2]}", live)
    assert by_command.resumed and planned in by_command.message, by_command.message
    assert live.last_exchange() == ("plan a   refactor\nof app.py", "Here is my plan.")
    with pytest.raises(AmbiguousSession) as ambiguous:
        live.find("sess_")
    assert answered in str(ambiguous.value) and planned in str(ambiguous.value)
    with pytest.raises(NoSuchSession):
        live.find("sess_zzz")


@pytest.mark.slow
def test_resume_from_the_command_line_by_prefix_reprints_the_last_exchange(workspace, tmp_path):
    home = tmp_path / "home"
    answered, planned = two_sessions(workspace, SessionStore(home / "sessions.db"))
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "next answer"}]))

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_product("--script", str(script), *args, cwd=workspace,
                           env={**os.environ, "STEPAGENT_HOME": str(home)})

    listed = run("--resume")
    assert listed.returncode == 0 and "what does app.py do?" in listed.stdout
    assert "--resume ID" in listed.stdout
    ambiguous = run("--resume", "sess_", "-p", "go on")
    assert ambiguous.returncode == 2 and answered in ambiguous.stderr and planned in ambiguous.stderr
    unique = next(planned[:n] for n in range(6, len(planned)) if not answered.startswith(planned[:n]))
    resumed = run("--resume", unique, "-p", "go on")
    assert resumed.returncode == 0, resumed.stderr
    assert f"Resumed {planned}" in resumed.stderr
    assert "› plan a refactor of app.py" in resumed.stderr and "Here is my plan." in resumed.stderr


def test_the_exit_hint_repeats_the_command_the_user_ran(workspace, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "hello back"}]))
    launcher = str(ROOT / "bin" / "stepagent")
    terminal = Terminal.start(workspace, "--script", str(script), "hello", program=launcher,
                              env={"STEPAGENT_HOME": str(tmp_path / "home")}, columns=200)
    try:
        terminal.expect_text("hello back")
        terminal.expect("›")
        terminal.sendline("/exit")
        terminal.expect_text("Resume this session with:")
        terminal.expect_text(f"{launcher} --resume sess_")
    finally:
        terminal.close()


def test_trace_counts_one_call_and_one_request_in_the_singular(workspace, tmp_path):
    session, live = journaled(workspace, SessionStore(tmp_path / "sessions.db"),
                              [turn("", call("Read", file_path="x")), turn("read")])
    session.run("read x")
    assert live.trace()[0] == "2 model requests and 1 tool call in this run:"
    session.run("again")
    assert live.trace()[0] == "3 model requests and 1 tool call in this run:"


def test_continuing_a_session_adds_no_entry_that_did_not_happen(workspace, tmp_path):
    from session.journal import read_session

    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "one"}]))
    for args in (["-p", "hi"], ["--continue", "-p", "again"], ["--continue", "-p", "and again"]):
        done = run_product("--script", str(script), *args, cwd=workspace)
        assert done.returncode == 0, done.stderr
    store = SessionStore(tmp_path / "home" / "sessions.db")
    (stored,) = store.sessions(workspace)
    restored = read_session(store, stored.id)
    assert [entry["cause"] for entry in restored.audit if entry["kind"] == "mode"] == ["session opened"]
    assert [m["content"] for m in restored.messages if m["role"] == "user"] == ["hi", "again", "and again"]


def test_the_session_list_says_how_many_older_sessions_it_leaves_out(workspace, tmp_path, capsys, monkeypatch):
    from ui.startup import session_lines

    store = SessionStore(tmp_path / "sessions.db")
    for n in range(23):
        session, _ = journaled(workspace, store, [turn("ok")])
        session.run(f"prompt {n}")
    _, live = journaled(workspace, store, [])
    from ui.slash import run_slash_command

    listed = run_slash_command("/resume", live).message.splitlines()
    assert sum(line.startswith("  sess_") for line in listed) == 20
    assert any("and 3 older sessions, not listed" in line for line in listed)
    assert "older session" not in "\n".join(session_lines(store.sessions(workspace, limit=30),
                                                          stored=store.session_count(workspace)))
    monkeypatch.chdir(workspace)
    code, out, err = run_index(capsys, monkeypatch, "--resume", STEPAGENT_HOME=str(tmp_path))
    assert code == 0 and "and 3 older sessions, not listed" in out + err, out + err
