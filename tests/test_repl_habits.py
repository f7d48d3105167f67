"""REPL habits and headless modes: commands, completion, /diff, /clear, /model, -p formats."""

from __future__ import annotations

import io
import json
import re
import threading
from collections.abc import Iterator

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output

from models.catalog import ModelInfo
from session.journal import read_session
from session.store import SessionStore
from state import AppState
from tests.fake_chat_server import FakeChatServer, render
from tests.harness import call, journaled, turn
from tests.terminal import Terminal
from tests.test_lesson import run_index
from ui.completion import SlashCompleter
from ui.question_commands import is_command
from ui.prompt import after_first_draw, toolbar
from ui.slash import command_names, run_slash_command, unknown_command

PLAN_SCRIPT = {"turns": [
    {"text": "planning", "tool_calls": [{"name": "EnterPlanMode", "arguments": {}}]},
    {"tool_calls": [{"name": "ExitPlanMode", "arguments": {"plan": "1. write made.txt"}}]},
    {"tool_calls": [{"name": "Write", "arguments": {"file_path": "made.txt", "content": "x\n"}}]},
    {"text": "done"}]}


def test_a_message_that_starts_with_a_path_is_not_a_command():
    assert is_command("/mode edit") and is_command("/plan")
    assert not is_command("/tmp/x.py is broken") and not is_command("/usr/bin/env fails")


def test_an_unknown_command_suggests_the_nearest():
    assert "Did you mean /plan?" in unknown_command("/plna")
    assert "Did you mean" not in unknown_command("/zzzzzz")
    assert {"/plan", "/mode", "/diff", "/clear", "/model", "/usage", "/last"} <= set(command_names())


def completions(completer: SlashCompleter, text: str) -> list[str]:
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]


def test_tab_completes_commands_and_their_arguments():
    completer = SlashCompleter(command_names, {"/mode": lambda: ["plan", "build", "edit", "yolo"],
                                               "/model": lambda: 1 / 0})
    assert completions(completer, "/co") == ["/compact"]
    assert completions(completer, "/mode e") == ["edit"]
    assert completions(completer, "/model g") == [], "a failing source offers nothing"
    assert completions(completer, "hello /co") == []


def test_diff_shows_what_write_and_edit_changed_and_clear_starts_afresh(workspace, tmp_path):
    (workspace / "app.py").write_text("a = 1\n")
    _, live = journaled(workspace, SessionStore(tmp_path / "s.db"), [
        turn("", call("Write", file_path="new.txt", content="hello\n"),
             call("Edit", file_path="app.py", old_string="a = 1", new_string="a = 2"),
             call("Write", file_path="denied.txt", content="no\n")), turn("ok")],
        mode="build", permission_answers=[True, True, False])
    assert "No file changed" in run_slash_command("/diff", live).message
    live.agent.run_turn("go")
    diff = run_slash_command("/diff", live).message
    assert "+hello" in diff and "-a = 1" in diff and "+a = 2" in diff and "denied.txt" not in diff
    assert "--- /dev/null\n+++ b/new.txt\n" in diff, "a new file comes from /dev/null, as in git"
    assert "--- a/app.py\n+++ b/app.py\n" in diff
    old_id = live.agent.state.session_id
    assert old_id in run_slash_command("/clear", live).message
    assert live.agent.messages == [] and live.agent.state.session_id != old_id


def test_model_lists_the_catalog_and_switches(workspace, tmp_path):
    session, live = journaled(workspace, SessionStore(tmp_path / "s.db"), [])
    session.model.catalog = [ModelInfo("qwen2.5-coder:7b"), ModelInfo("llama3.1:8b")]
    listing = run_slash_command("/model", live).message.splitlines()
    assert listing[:2] == ["qwen2.5-coder:7b", "llama3.1:8b"]
    assert session.model.name in listing[2], "the session's model is not served here: the listing says so"
    assert run_slash_command("/model llama3.1:8b", live).message == "Model → llama3.1:8b"
    assert session.model.name == "llama3.1:8b"
    assert run_slash_command("/model", live).message.splitlines() == ["qwen2.5-coder:7b", "llama3.1:8b  [current]"]
    assert run_slash_command("/model nope", live).is_error


def test_usage_counts_reported_tokens(workspace, tmp_path):
    session, live = journaled(workspace, SessionStore(tmp_path / "s.db"), [turn("hi")])
    from agent.events import TokensUsed
    session.state.events.emit(TokensUsed(1200, 30, 1000))
    shown = run_slash_command("/usage", live).message
    assert "tokens in 1,200 (1,000 cached) · out 30 over 1 reply;" in shown and "context 0% (1,230 of 128,000" in shown


def test_usage_with_a_model_that_reports_none_says_so_without_counting_zero_replies(workspace, tmp_path):
    session, live = journaled(workspace, SessionStore(tmp_path / "s.db"), [turn("hi"), turn("again")])
    session.run("hello")
    session.run("and again")
    shown = run_slash_command("/usage", live).message
    assert "0 replies" not in shown and "not reported by the server" not in shown, shown
    assert f"{session.model.name} reports no token usage" in shown and "estimated" in shown


def test_p_dash_reads_the_prompt_from_stdin_and_json_formats(workspace, tmp_path):
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "the answer"}]))
    done = run_index(workspace, "--script", str(script), "-p", "-", "--output-format", "json",
                     stdin="a prompt from a pipe")
    record = json.loads(done.stdout)
    assert done.returncode == 0 and record["text"] == "the answer" and record["ending"] == "answered"
    done = run_index(workspace, "--script", str(script), "-p", "go", "--output-format", "stream-json")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0] == {"type": "message", "message": {"role": "user", "content": "go"}}
    assert lines[-1]["type"] == "result" and lines[-1]["text"] == "the answer"


def test_a_plan_headless_exits_4_unless_approved_with_a_flag(workspace, tmp_path):
    script = tmp_path / "plan.json"
    script.write_text(json.dumps(PLAN_SCRIPT))
    done = run_index(workspace, "--script", str(script), "-p", "make it")
    assert done.returncode == 4 and "1. write made.txt" in done.stdout
    assert not (workspace / "made.txt").exists() and not (workspace / ".stepagent").exists()
    done = run_index(workspace, "--script", str(script), "--mode", "edit", "--approve-plan", "-p", "make it")
    assert done.returncode == 0 and (workspace / "made.txt").read_text() == "x\n"


def test_the_start_up_line_names_the_sandbox_once(workspace):
    from types import SimpleNamespace

    from state import AppState
    from tools.bash.sandbox.status import sandbox_status
    from ui.repl import startup_line

    agent = SimpleNamespace(model=SimpleNamespace(name="m"), workspace=workspace, state=AppState())
    line = startup_line(SimpleNamespace(agent=agent), sandbox_status())
    assert line.lower().count("sandbox:") == 1 and "mode build" in line
    assert startup_line(SimpleNamespace(agent=agent), "").lower().count("sandbox:") == 1


def test_version_and_help(workspace):
    assert re.match(r"stepagent \d", run_index(workspace, "--version").stdout)
    shown = run_index(workspace, "--help").stdout
    assert "OPENAI_BASE_URL" in shown and "STEPAGENT_HOME" in shown and "/plan [task]" in shown


def test_the_repl_habits_in_a_terminal(workspace):
    server = FakeChatServer()
    url = server.start()
    server.reply_text("first answer")
    server.reply_text("second answer")
    server.reply_text("third answer")
    terminal = Terminal.start(workspace, "opening message",
                              env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    try:
        for shown in ["stepagent · model gpt-4o-mini at 127.0.0.1", "· workspace ", "mode build",
                      "first answer", "tokens in 120 (64 cached) · out 30"]:
            terminal.expect_text(shown)
        assert server.requests[0]["messages"][-1] == {"role": "user", "content": "opening message"}
        terminal.expect("›")
        terminal.sendline("/tmp/x.py is broken")
        terminal.expect_text("second answer")
        assert server.requests[1]["messages"][-1]["content"] == "/tmp/x.py is broken"
        terminal.expect("›")
        terminal.send("line one\x1b\rline two\r")
        terminal.expect_text("third answer")
        assert server.requests[2]["messages"][-1]["content"] == "line one\nline two"
        terminal.expect("›")
        terminal.send("/us")
        terminal.expect_text("/us")
        terminal.send("\t")  # the completion may be drawn on its own, after the typed part
        terminal.expect_text("age")
        terminal.send("\r")
        terminal.expect_text("This session: tokens in 360 (192 cached) · out 90 over 3 replies")
        terminal.expect("›")
        terminal.sendline("/exit")
        terminal.expect_text("Resume this session with:")
        terminal.expect_text("--resume sess_")
    finally:
        terminal.close()
        server.stop()


def held_before(word: str, events: list[str], held: threading.Event) -> Iterator[str]:
    """The stream's events, the one carrying `word` held back until `held` is set."""
    for event in events:
        if word in event:
            held.wait(30)
        yield event


def test_mode_and_context_use_stay_on_screen_during_a_turn(workspace):
    server = FakeChatServer()
    url = server.start()
    seen = threading.Event()
    server.reply_stream(held_before("FINALWORD", render(server.family, {
        "text": ["Streaming ", "slowly ", "FINALWORD"]}, wants_usage=True), seen))
    terminal = Terminal.start(workspace, "go", env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    try:
        terminal.expect_text("Streaming")
        terminal.child.expect(["context \\d+%", "FINALWORD"])
        assert "context" in terminal.child.after, "the status line shows while the answer streams"
        assert "mode: build" in terminal.child.before[-300:] + terminal.child.after
        seen.set()
        terminal.expect_text("FINALWORD")
        terminal.expect("›")
    finally:
        terminal.close()
        server.stop()


def test_a_session_begun_by_clear_resumes_in_the_mode_it_was_in(workspace, tmp_path):
    store = SessionStore(tmp_path / "s.db")
    _, live = journaled(workspace, store, [turn("first"), turn("second")], mode="plan")
    live.agent.run_turn("before")
    run_slash_command("/clear", live)
    live.agent.run_turn("after")
    restored = read_session(store, live.agent.state.session_id)
    assert restored.plan_mode, "a session begun by /clear while planning must resume planning"


def test_the_toolbar_keeps_the_keys_and_lets_a_long_model_name_be_cut():
    name = "org/a-long-model-name-" + "x" * 60
    for columns in (200, 80, 40):
        shown = fragment_list_to_text(toolbar(AppState(), lambda: name, lambda: "context 3%",
                                              lambda: columns)())
        assert len(shown) <= columns and "build  ·  context 3%  ·  " in shown, shown
        assert ("Shift+Tab: mode  ·  /help" in shown) == (columns == 200)
        assert shown.endswith(name) == (columns == 200), "a narrow terminal cuts the model's name, last"


def test_the_warm_up_starts_once_in_the_background_after_the_prompt_is_on_screen():
    main, screen = threading.current_thread(), io.StringIO()
    with create_pipe_input() as keys:
        output = Vt100_Output(screen, lambda: Size(rows=24, columns=80), term="xterm")
        prompt: PromptSession = PromptSession(input=keys, output=output)
        calls = []
        after_first_draw(prompt, lambda: calls.append(("›" in screen.getvalue(),
                                                        threading.current_thread() is main)))
        for line in ("one", "two"):
            keys.send_text(f"{line}\r")
            assert prompt.prompt("› ") == line
    for thread in threading.enumerate():
        if thread.name == "after-first-draw":
            thread.join(timeout=30)
    assert calls == [(True, False)]
