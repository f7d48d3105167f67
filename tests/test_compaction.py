"""Compaction keeps plan mode, the plan and the todos (failure mode 5)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from agent.history import reminder_kind
from session.compaction import MAX_PLAN_BYTES, AutoCompact
from session.token_estimate import TokenEstimate
from tests.harness import Session, call, run_index, turn
from tools.workspace import save_plan

TODOS = [{"content": "Write the parser", "status": "in_progress", "activeForm": "Writing the parser"}]


def test_compaction_while_planning_keeps_plan_mode_on_and_enforced(workspace):
    session = Session(workspace, [
        turn("", call("TodoWrite", todos=TODOS)), turn("researched"),
        turn("SUMMARY: parser task, research done"),
        turn("", call("Write", file_path="p.py", content="x")), turn("ok")], mode="plan")
    session.run("plan the parser")
    session.agent.preparers[0] = AutoCompact(1, 0.000001)
    session.run("go on")
    request = session.model.requests[3]
    text = "\n".join(str(m["content"]) for m in request)
    assert request[0]["content"].startswith("# Plan Mode (ACTIVE)")
    assert "SUMMARY: parser task" in text
    assert "Plan mode is ACTIVE" in text
    assert "1. [in_progress] Write the parser" in text
    assert "four phases" in request[0]["content"]
    assert any(reminder_kind(m) == "plan-mode" for m in request)
    assert session.state.plan_mode
    write = [d for d in session.decisions if d.tool == "Write"]
    assert [(d.decision, d.hook) for d in write] == [("deny", "plan-mode-guard")]
    assert not (workspace / "p.py").exists()


def test_compaction_after_a_plan_carries_the_plan_file_and_todos(workspace):
    session = Session(workspace, [turn("", call("ExitPlanMode", plan="## The plan\n1. do it")),
                                  turn("", call("TodoWrite", todos=TODOS)), turn("working"),
                                  turn("SUMMARY"), turn("next")], mode="plan", plan_answers=["y"])
    session.run("plan")
    from session.compaction import compact

    compact(session.agent, 128_000)
    session.run("continue")
    text = "\n".join(str(m["content"]) for m in session.last_request())
    assert "Plan mode is off" in text
    assert "A plan file exists from plan mode at" in text and "## The plan\n1. do it" in text
    assert "Write the parser" in text
    assert not session.state.plan_mode


def test_a_huge_plan_file_is_cut_to_80_kib(workspace):
    session = Session(workspace, [turn("SUMMARY"), turn("ok")])
    save_plan(workspace, session.state.session_id, "x" * (MAX_PLAN_BYTES * 2))
    from session.compaction import compact

    compact(session.agent, 128_000)
    continuity = session.agent.messages[1]["content"]
    assert continuity.count("x") <= MAX_PLAN_BYTES + 10
    assert continuity.count("x") >= MAX_PLAN_BYTES


def test_automatic_compaction_fires_past_the_share_of_the_window(workspace):
    (workspace / "big.txt").write_text("word\n" * 4000)
    session = Session(workspace, [turn("", call("Read", file_path="big.txt")), turn("SUMMARY"),
                                  turn("done")])
    session.agent.preparers[0] = AutoCompact(window_tokens=8000, share=0.5)
    session.run("read it")
    assert [reminder_kind(m) for m in session.agent.messages[:2]] == ["summary", "continuity"]
    assert len(session.model.requests) == 3
    assert session.model.tool_schemas[1] == [], "the summary request offers no tools"


def test_no_compaction_below_the_share(workspace):
    session = Session(workspace, [turn("", call("Glob", pattern="*")), turn("done")])
    session.run("hi")
    assert not any(reminder_kind(m) == "summary" for m in session.agent.messages)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["append", "append", "append", "replace", "rewrite", "clear", "look"]),
                max_size=40))
def test_the_running_estimate_matches_the_whole_history_however_it_changes(changes):
    """Appends are counted once; a replaced or cleared history (compaction, resume, /clear) afresh."""
    estimate, history = TokenEstimate(), []
    for number, change in enumerate(changes):
        if change == "append":
            history.append({"role": "user", "content": "é" * number})
        elif change == "replace":
            history[:] = [{"role": "user", "content": f"summary {number}"}, *history[len(history) // 2:]]
        elif change == "rewrite":
            history[1:] = [{"role": "user", "content": f"later {number}"} for _ in history[1:]]
        elif change == "clear":
            history.clear()
        assert estimate.tokens(history) == len(json.dumps(history)) // 4


@pytest.mark.slow
def test_a_history_far_past_the_window_compacts_from_a_transcript_that_fits(workspace, server, capsys,
                                                                          monkeypatch):
    for number in range(20):
        (workspace / f"part{number}.txt").write_text(f"part {number}\n" + ("x" * 59 + "\n") * 1000)
    server.window_tokens = 20_000
    server.reply(calls=[("Read", {"file_path": f"part{number}.txt"}) for number in range(20)])
    server.reply_text("Summary: twenty parts read.")
    server.reply_text("All twenty parts are read.")
    code, out, err = run_index(capsys, monkeypatch, "--context-window", "20000", "-p", "read every part",
                               OPENAI_BASE_URL=server.url)
    assert code == 0, err
    assert out.strip() == "All twenty parts are read."
    summary_request = server.requests[1]
    assert len(json.dumps(summary_request)) // 4 <= server.window_tokens
    assert "[earlier messages omitted]" in summary_request["messages"][-1]["content"]
