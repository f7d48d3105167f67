"""Keys typed while a turn runs, in the real REPL, typed as a person types them (ui/turn_keys.py).

Shift+Tab switches the mode at once: the next call meets it, the spinner shows it, the
journal records it; it never leaves plan mode while the turn runs. Text typed meanwhile is
shown as held and waits at the next prompt, after Ctrl-C too. And Ctrl-C leaves no frozen
spinner line behind on an 80-column screen. Every wait is for what the screen shows, or a
gate the test opens: nothing here races a sleep.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pexpect
import pytest

from session.store import SessionStore
from tests.fake_chat_server import FakeChatServer
from tests.terminal import Screen, Terminal

SHIFT_TAB = "\x1b[Z"
WAIT_FOR_GATE = "while [ ! -e gate ]; do sleep 0.05; done"


def script(workspace: Path, *turns: dict) -> str:
    path = workspace.parent / "script.json"
    path.write_text(json.dumps({"turns": list(turns)}))
    return str(path)


def bash(command: str) -> dict:
    return {"text": "", "tool_calls": [{"name": "Bash", "arguments": {"command": command}}]}


WRITE = {"text": "", "tool_calls": [{"name": "Write", "arguments": {"file_path": "w.txt",
                                                                      "content": "written\n"}}]}


def stored(kind: str) -> list[dict]:
    store = SessionStore(Path(os.environ["STEPAGENT_HOME"]) / "sessions.db")
    try:
        return [entry.payload for info in store.sessions(Path.cwd())
                for entry in store.entries(info.id) if entry.kind == kind]
    finally:
        store.close()


def user_messages() -> list[str]:
    return [payload["content"] for payload in stored("message") if payload["role"] == "user"]


@pytest.fixture
def repl(workspace):
    started: list[Terminal] = []

    def start(*args: str, **options) -> Terminal:
        started.append(Terminal.start(workspace, *args, **options))
        return started[-1]
    yield start
    for terminal in started:
        terminal.close()


def test_shift_tab_during_a_call_puts_plan_mode_on_before_the_next_call(repl, workspace):
    terminal = repl("--mode", "yolo", "--script", script(workspace, bash(WAIT_FOR_GATE), WRITE,
                                                         {"text": "Done."}))
    terminal.expect("›")
    terminal.sendline("go")
    terminal.expect_text("Running Bash…")
    terminal.send(SHIFT_TAB)
    terminal.expect_text("mode → plan (by Shift+Tab)")
    terminal.expect_text("PLAN  ·  model")  # the spinner's status line, while the call still runs
    (workspace / "gate").touch()
    terminal.expect_text("denied by plan-mode-guard")
    terminal.expect_text("Done.")
    terminal.expect_text("PLAN")
    assert not (workspace / "w.txt").exists()
    assert {"plan_mode": True, "permission_mode": "yolo", "cause": "Shift+Tab"} in stored("mode")


@pytest.fixture
def held_reply(workspace):
    """A fake endpoint whose first reply, a Write, waits for the gate."""
    server, gate = FakeChatServer(), threading.Event()
    url = server.start()
    server.reply_tool_calls(("Write", {"file_path": "w.txt", "content": "x"}), after=gate)
    server.reply_text("noted")
    yield server, gate, {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url}
    gate.set()
    server.stop()


def test_shift_tab_mid_turn_never_leaves_plan_mode(repl, workspace, held_reply):
    server, gate, env = held_reply
    terminal = repl("--mode", "plan", env=env)
    terminal.expect("›")
    terminal.sendline("go")
    terminal.expect_text("Working…")
    terminal.send(SHIFT_TAB)
    terminal.expect_text("Plan mode stays on while the agent works")
    gate.set()
    terminal.expect_text("denied by plan-mode-guard")
    terminal.expect_text("noted")
    terminal.expect_text("PLAN")
    assert not (workspace / "w.txt").exists()
    assert all(entry["plan_mode"] for entry in stored("mode"))
    assert not any(entry["cause"] == "Shift+Tab" for entry in stored("mode"))


@pytest.mark.parametrize("typed, shown, after_ctrl_c, sent", [
    ("typed during the turn", "› typed during the turn  (kept for the prompt)",
     "› typed during the turn", "typed during the turn"),
    # an Enter typed into a turn then cancelled is a new line: nothing goes until the user sends it
    ("first line\rsecond", "first line⏎second", "second", "first line\nsecond"),
])
def test_text_typed_during_a_turn_is_shown_and_kept_after_ctrl_c(repl, workspace, typed, shown,
                                                                   after_ctrl_c, sent):
    terminal = repl("--script", script(workspace, bash("sleep 60"), {"text": "Done."}))
    terminal.expect("›")
    terminal.sendline("go")
    terminal.expect_text("Running Bash…")
    terminal.send(typed)
    terminal.expect_text(shown)
    terminal.send("\x03")
    terminal.expect_text("Turn cancelled")
    terminal.expect_text(after_ctrl_c)
    terminal.send("\r")
    terminal.expect_text("Done.")
    terminal.sendline("/exit")  # the store is read once stepagent has ended, every write made
    terminal.expect(pexpect.EOF)
    assert user_messages() == ["go", sent]


@pytest.mark.skipif(not shutil.which("tmux"), reason="tmux is not installed")
def test_ctrl_c_during_the_model_s_retries_leaves_no_spinner_line(workspace, tmp_path):
    server = FakeChatServer()
    url = server.start()
    for _ in range(5):
        server.fail(500, "overloaded")
    # started for real: forked (sooner), 1 run in 17 left the spinner's line behind, a drawing race to find
    screen = Screen(tmp_path, workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url},
                    columns=80, forked=False)
    try:
        screen.wait_for("›")
        screen.keys("hello", "Enter")
        screen.wait_for("retrying in")
        screen.keys("C-c")
        shown = screen.wait_for("Turn cancelled")
    finally:
        screen.close()
        server.stop()
    assert "Working…" not in shown, shown


def streamed_until(gate: threading.Event, *pieces: str):
    """SSE events: `pieces` of text, then a word every 0.05 s until `gate` is set, then the end."""
    def chunk(delta: dict, finish: str | None = None) -> str:
        return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0,
                                      "model": "fake",
                                      "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    yield chunk({"role": "assistant", "content": ""})
    for piece in pieces:
        yield chunk({"content": piece})
    while not gate.is_set():
        yield chunk({"content": " more"})
    yield chunk({}, "stop")
    yield "data: [DONE]"


def test_a_hook_and_a_streaming_reply_show_what_runs_the_mode_and_the_keys_typed(repl, workspace, server,
                                                                                 tmp_path):
    home = Path(os.environ["STEPAGENT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Read", "hooks": [{"type": "command", "command": WAIT_FOR_GATE}]}]}}))
    (workspace / "notes.txt").write_text("one\n")
    streaming = threading.Event()
    server.reply_tool_calls(("Read", {"file_path": "notes.txt"}))
    server.reply_stream(streamed_until(streaming, "Reading the notes"), pace=0.05)
    terminal = repl("--mode", "yolo", env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url})
    terminal.expect("›")
    terminal.sendline("go")
    terminal.expect_text("Running PreToolUse hook")  # the hook holds the Read: the spinner names it
    terminal.send("abc")
    terminal.expect_text("› abc  (kept for the prompt)")
    (workspace / "gate").touch()
    terminal.expect_text("Reading the notes")
    terminal.send("def")
    terminal.expect_text("› abcdef  (kept for the prompt)")  # under the streaming reply too
    terminal.send(SHIFT_TAB)
    terminal.expect_text("mode → plan (by Shift+Tab)")
    terminal.expect_text("PLAN  ·  model")  # the live tail's status line follows the mode
    streaming.set()
    terminal.expect_text("abcdef")  # waiting at the prompt
