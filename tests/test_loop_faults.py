"""Nothing the model, a tool, a hook or a listener does ends the process, and the history stays valid.

Each fault is injected into a session wired as index.py wires it (tests/harness.py);
the property tests feed the loop open-ended replies from the scripted model.
"""

from __future__ import annotations

import json
import string

from hypothesis import HealthCheck, given, settings, strategies as st

from agent.events import MessageAdded, ToolDecision
from session.journal import NOT_STARTED, RESULT_LOST
from session.store import SessionStore
from tests.harness import Session, assert_valid_history, call, journaled, turn
from tools.base import Judgement


def raw(name: str, arguments: str = "{}", call_id: str | None = None) -> dict:
    """A tool call as a model might send it: any name, any argument text, any id."""
    return {"name": name, "arguments": arguments, **({"id": call_id} if call_id is not None else {})}


def tool_ids(message: dict) -> list[str]:
    return [c["id"] for c in message.get("tool_calls") or []]


def test_duplicate_ids_in_one_reply_each_get_their_own_result(workspace):
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    session = Session(workspace, [
        turn("", raw("Read", '{"file_path": "a.txt"}', "dup"), raw("Read", '{"file_path": "b.txt"}', "dup"),
             raw("Read", '{"file_path": "a.txt"}', "")),
        turn("done")])
    assert session.run().ending == "answered"
    sent = session.last_request()[1:]
    assert_valid_history(sent)
    ids = tool_ids(sent[1])
    assert len(set(ids)) == 3 and ids[0] == "dup" and all(ids)
    results = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert "alpha" in results[ids[0]] and "beta" in results[ids[1]] and "alpha" in results[ids[2]]


def test_ids_a_server_reuses_across_replies_are_made_distinct(workspace):
    session = Session(workspace, [turn("", raw("Glob", '{"pattern": "*"}', "call_0")),
                                  turn("", raw("Glob", '{"pattern": "*"}', "call_0")), turn("done")])
    session.run()
    assistant_ids = [i for m in session.agent.messages for i in tool_ids(m)]
    assert len(assistant_ids) == 2 and len(set(assistant_ids)) == 2
    assert_valid_history(session.agent.messages)


def test_a_hook_that_raises_fails_only_its_call(workspace):
    session = Session(workspace, [turn("", call("Glob", pattern="*"), call("TodoRead")), turn("done")])

    def broken(event):
        if event.tool.name == "Glob":
            raise RuntimeError("hook bug")
    session.executor.hooks.on_pre_tool_use("broken", broken, "deny")
    assert session.run().ending == "answered"
    glob, todos = session.tool_results()
    assert "RuntimeError: hook bug" in glob
    assert "hook bug" not in todos
    assert_valid_history(session.agent.messages)


def test_a_judge_that_raises_fails_only_its_call(workspace):
    def judge(command: str) -> Judgement:
        raise RecursionError("too deep")
    session = Session(workspace, [turn("", call("Bash", command="ls"), call("TodoRead")), turn("done")],
                      mode="plan", classifier=judge)
    assert session.run().ending == "answered"
    assert "RecursionError: too deep" in session.tool_results()[0]
    assert_valid_history(session.agent.messages)


def test_a_listener_that_raises_fails_only_its_call_and_the_journal_still_hears(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    session, _ = journaled(workspace, store, [turn("", call("Glob", pattern="*")), turn("done")])
    session.state.events.listeners.insert(0, lambda event: _raise_on(event, ToolDecision))
    assert session.run().ending == "answered"
    assert "ValueError: console bug" in session.tool_results()[0]
    assert [e.payload["tool"] for e in store.entries(session.state.session_id) if e.kind == "hook"] == ["Glob"]


def _raise_on(event, kind) -> None:
    if isinstance(event, kind):
        raise ValueError("console bug")


def test_an_unexpected_model_error_ends_the_turn_with_one_line_and_the_next_turn_works(workspace):
    session = Session(workspace, [turn("second answer")])
    complete = session.model.complete
    calls = []

    def flaky(messages, tools, on_text):
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("choices")
        return complete(messages, tools, on_text)
    session.agent.model.complete = flaky
    outcome = session.run("first")
    assert outcome.ending == "failed" and "KeyError" in outcome.error and "\n" not in outcome.error
    assert session.run("again").text == "second answer"
    assert_valid_history(session.agent.messages)


def test_a_listener_failing_on_the_reply_still_leaves_every_call_answered(workspace):
    session = Session(workspace, [turn("", call("Glob", pattern="*"), call("TodoRead")), turn("later")])
    failing = [True]

    def on_reply(event) -> None:
        if failing[0] and isinstance(event, MessageAdded) and event.message.get("tool_calls"):
            failing[0] = False
            raise OSError("render failed")
    session.state.events.subscribe(on_reply)
    outcome = session.run()
    assert outcome.ending == "failed" and "render failed" in outcome.error
    assert_valid_history(session.agent.messages)
    assert session.run("go on").ending == "answered"


def test_a_listener_failing_on_the_users_message_ends_only_that_turn(workspace):
    session = Session(workspace, [turn("answer")])
    failing = [True]

    def on_user(event) -> None:
        if failing[0] and isinstance(event, MessageAdded) and event.message["role"] == "user":
            failing[0] = False
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
    session.state.events.subscribe(on_user)
    assert session.run("\ud800").ending == "failed"
    assert session.run("again").text == "answer"
    assert_valid_history(session.agent.messages)


def test_each_result_is_journaled_before_the_next_call_runs(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    seen = []

    def approve(question: str) -> bool:
        seen.append([e.payload for e in store.entries(session.state.session_id)])
        return True
    session, _ = journaled(workspace, store, [
        turn("", call("Glob", pattern="*"), call("Write", file_path="x", content="x")), turn("ok")])
    session.executor.approve = approve
    session.run()
    stored_before_write = seen[0]
    assert any(m.get("role") == "tool" and m.get("tool_call_id") == "call_1_0" for m in stored_before_write)
    started = [e.payload["tool_call_id"] for e in store.entries(session.state.session_id)
               if e.kind == "started"]
    assert started == ["call_1_0", "call_1_1"]


def test_resume_tells_a_lost_result_from_a_call_never_run(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    session_id = "sess_killed"
    store.create_session(session_id, workspace)
    store.append(session_id, "message", {"role": "user", "content": "go"})
    store.append(session_id, "message", {"role": "assistant", "content": None, "tool_calls": [
        {"id": i, "type": "function", "function": {"name": "Bash", "arguments": "{}"}}
        for i in ("ran", "lost", "never")]})
    store.append(session_id, "started", {"tool_call_id": "ran", "tool": "Bash"})
    store.append(session_id, "message", {"role": "tool", "tool_call_id": "ran", "content": "done"})
    store.append(session_id, "started", {"tool_call_id": "lost", "tool": "Bash"})
    resumed, live = journaled(workspace, store, [turn("ok")])
    live.resume(session_id)
    results = {m["tool_call_id"]: m["content"] for m in resumed.agent.messages if m["role"] == "tool"}
    assert results == {"ran": "done", "lost": RESULT_LOST, "never": NOT_STARTED}
    assert_valid_history(resumed.agent.messages)


TOOL_NAMES = ["Read", "Write", "Edit", "Glob", "Grep", "TodoWrite", "TodoRead", "EnterPlanMode",
              "ExitPlanMode"]
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) |
                           st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)
arguments = st.one_of(
    st.text(max_size=30),
    json_values.map(json.dumps),
    st.dictionaries(st.sampled_from(["file_path", "pattern", "content", "plan", "todos", "old_string",
                                     "new_string", "offset"]), json_values, max_size=3).map(json.dumps))
calls = st.lists(st.fixed_dictionaries({
    "name": st.sampled_from(TOOL_NAMES) | st.text(string.printable, max_size=12),
    "arguments": arguments,
    "id": st.sampled_from(["", "a", "a_2", "call_1_0", "x"]) | st.text(max_size=4)}), max_size=5)
replies = st.lists(st.fixed_dictionaries({"text": st.text(max_size=20), "tool_calls": calls}),
                   min_size=1, max_size=4)


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(script=replies, mode=st.sampled_from(["plan", "build", "edit"]))
def test_any_reply_leaves_a_valid_history_and_one_result_per_call(workspace, script, mode):
    session = Session(workspace, script, mode=mode, plan_answers=["n"] * 20,
                      permission_answers=[False] * 50)
    outcome = session.run()
    assert outcome.ending in {"answered", "ended_by_tool", "step_limit"}, outcome
    assert_valid_history(session.agent.messages)
    sent_ids = [i for m in session.agent.messages for i in tool_ids(m)]
    assert len(sent_ids) == len(set(sent_ids)) and all(sent_ids)
    assert session.run("again").ending in {"answered", "ended_by_tool", "step_limit"}
    assert_valid_history(session.model.requests[-1][1:])


def test_an_error_nothing_else_caught_is_one_line_and_exit_code_1(monkeypatch, capsys):
    import index

    def broken(argv=None):
        raise LookupError("unexpected")
    monkeypatch.setattr(index, "main", broken)
    monkeypatch.delenv("STEPAGENT_DEBUG", raising=False)
    assert index.run_guarded([]) == 1
    assert capsys.readouterr().err == "stepagent: internal error: LookupError: unexpected\n"
