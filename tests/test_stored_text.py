"""Every text reaches the store, and a store that fails leaves a history an endpoint accepts.

Lone surrogates (a model's JSON may hold `\\ud800`; invalid UTF-8 in the user's
prompt reaches Python as `\\udcff`) and arguments nested too deep to parse go
through the full-text insert; each case is run with `-p`, then resumed against
the fake server, which refuses a history with an orphan tool message.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import session.store
from agent.history import reminder_kind
from session.journal import read_session
from session.store import SessionStore
from tests.harness import assert_valid_history, call, journaled, run_index, turn
from tests.product_run import run_product

NESTED = '{"file_path": ' + "[" * 5000 + "]" * 5000 + "}"
REPLIES = [{"tool_calls": [{"name": "Read", "arguments": {"file_path": "a\ud800.txt"}}]},
           {"tool_calls": [{"name": "Re\ud800ad", "arguments": {}}]},
           {"tool_calls": [{"name": "TodoWrite", "arguments": {"todos": [
               {"content": "fix \ud800", "status": "in_progress", "activeForm": "fixing \ud800"}]}}]},
           {"tool_calls": [{"name": "Read", "arguments": NESTED}]},
           {"text": "answer \ud800 here"}]
CASES = {  # the model's texts share one session: one run and one resume instead of five
    "tool arguments, tool name, todos, nested arguments and model text": (REPLIES, "hi", 0),
    "plan": ([{"tool_calls": [{"name": "ExitPlanMode", "arguments": {"plan": "1. \ud800 step"}}]}],
             "plan it", 4),
    "prompt": ([{"text": "done"}], b"x \xff", 0),
    "prompt on standard input": ([{"text": "done"}], b"-", 0),
}


def run_process(workspace: Path, *args: str | bytes, stdin: bytes = b"") -> tuple[int, str]:
    """A real run of stepagent in the workspace; its exit code and stderr on one line."""
    done = run_product(*args, cwd=workspace, input=stdin, env={**os.environ, "COLUMNS": "1000"}, text=False)
    return done.returncode, " ".join(done.stderr.decode(errors="replace").split())


def resumed(capsys, monkeypatch, server) -> tuple[int, str, str]:
    """`--continue -p "go on"` against the server, in this process: the session's last run."""
    return run_index(capsys, monkeypatch, "--continue", "-p", "go on", OPENAI_BASE_URL=server.url)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_text_is_stored_and_the_session_resumes(case, workspace, server, capsys, monkeypatch):
    script, prompt, expected = CASES[case]
    (workspace / "s.json").write_text(json.dumps(script))
    mode = ["--mode", "plan"] if case == "plan" else []
    code, err = run_process(workspace, "--script", "s.json", *mode, "-p", prompt, stdin=b"x \xff")
    assert code == expected, err
    assert "internal error" not in err and "in memory" not in err
    store = SessionStore(workspace.parent / "home" / "sessions.db")
    stored = read_session(store, store.sessions(workspace)[0].id).messages
    assert stored[0]["content"].startswith("x " if isinstance(prompt, bytes) else prompt)
    calls = sum(len(turn.get("tool_calls", [])) for turn in script)
    assert len([m for m in stored if not reminder_kind(m)]) == 1 + len(script) + calls
    server.reply_text("resumed")
    code, _, err = resumed(capsys, monkeypatch, server)
    assert code == 0, err
    sent = server.requests[-1]["messages"][1:]
    assert sent[:len(stored)] == stored and {"role": "user", "content": "go on"} in sent[len(stored):]
    assert_valid_history(sent)


def test_a_plan_with_a_lone_surrogate_is_approved_saved_as_shown_and_resumed(workspace, server, capsys,
                                                                           monkeypatch):
    """The plan shown, digested and saved is the same text: the surrogate as the escape the screen draws."""
    script = [{"tool_calls": [{"name": "ExitPlanMode", "arguments": {"plan": "1. \ud800 step"}}]},
              {"text": "building"}]
    (workspace / "s.json").write_text(json.dumps(script))
    code, err = run_process(workspace, "--script", "s.json", "--mode", "plan", "--approve-plan",
                          "-p", "plan it")
    assert code == 0 and "1. \\ud800 step" in err, err
    store = SessionStore(workspace.parent / "home" / "sessions.db")
    session_id = store.sessions(workspace)[0].id
    saved = (workspace / ".stepagent" / "plans" / f"plan-{session_id}.md").read_bytes()
    assert saved == b"1. \\ud800 step\n"
    [revision] = store.revisions(session_id)
    assert revision.outcome == "approve" and revision.plan.encode() == saved
    assert revision.digest == hashlib.sha256(saved).hexdigest()
    stored = read_session(store, session_id).messages
    [asked] = [m for m in stored if m.get("tool_calls")]
    assert json.loads(asked["tool_calls"][0]["function"]["arguments"]) == {"plan": "1. \ud800 step"}
    server.reply_text("resumed")
    code, _, err = resumed(capsys, monkeypatch, server)
    assert code == 0, err
    sent = server.requests[-1]["messages"][1:]
    assert sent[:len(stored)] == stored
    assert_valid_history(sent)


def test_a_store_that_refuses_a_reply_keeps_no_orphan_result(workspace, tmp_path, monkeypatch):
    def refusing(payload: str) -> str:
        if '"tool_calls"' in payload:
            raise ValueError("text the index cannot take")
        return payload

    monkeypatch.setattr(session.store, "searchable_text", refusing)
    store = SessionStore(tmp_path / "sessions.db")
    warnings: list[str] = []
    first, live = journaled(workspace, store, [turn("", call("Glob", pattern="*")), turn("done")])
    live.journal.warn = warnings.append
    assert first.run("hello").ending == "answered"
    stored = read_session(store, first.state.session_id).messages
    assert [m["role"] for m in stored] == ["user"]
    assert_valid_history(stored)
    assert len(warnings) == 1 and "in memory" in warnings[0]
