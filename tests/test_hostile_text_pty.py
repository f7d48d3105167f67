"""Nothing the model, a file or a command prints reaches the terminal raw: the bytes a
pseudo-terminal receives, checked for every kind of sequence on every path."""

from __future__ import annotations

import io
import json
import re

import pytest

from tests.fake_chat_server import FakeChatServer
from tests.hostile_text import NEVER_DRAWN, SEQUENCES, marker, payloads, split_after_escapes, visible
from tests.terminal import Terminal
from tests.product_run import run_product
from ui.safe_text import safe


def recorded(terminal: Terminal) -> io.StringIO:
    """Everything the program writes to the terminal from now on."""
    terminal.child.logfile_read = io.StringIO()
    return terminal.child.logfile_read


def assert_drawn_safely(raw: str, path: str, shown: bool = True) -> None:
    """No sequence of this path reached the terminal; when the path is shown, each is visible."""
    for kind, sequence in SEQUENCES.items():
        assert sequence + marker(path, kind) not in raw, f"{kind} through {path} reached the terminal"
        if shown:
            assert safe(sequence) + marker(path, kind) in visible(raw), f"{kind} through {path} not shown"


def assert_nothing_raw(raw: str) -> None:
    for prefix in NEVER_DRAWN:
        assert prefix not in raw, f"{prefix!r} reached the terminal"


def test_model_text_split_across_chunks_is_drawn_as_placeholders(workspace):
    server = FakeChatServer()
    url = server.start()
    answer = "".join(f"{text}\n\n" for text in payloads("stream")) + "end of answer"
    server.reply_text(*split_after_escapes(answer))
    terminal = Terminal.start(workspace, env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": url})
    try:
        terminal.expect("›")
        screen = recorded(terminal)
        terminal.sendline("hello")
        terminal.expect("end of answer")
        terminal.expect("›")
    finally:
        terminal.close()
        server.stop()
    assert_drawn_safely(screen.getvalue(), "stream")
    assert_nothing_raw(screen.getvalue())


TOOL_NAME = "\x1b]0;pwned\x07Fake\u202e"


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


ASKED = r"Allow\? \["


@pytest.fixture
def hostile_session(workspace, tmp_path):
    """A session where every path carries every sequence: model text, todos, a file read and
    its content in an edit's diff, a command's output, the plan, and the calls put to the user."""
    file_text = "\n".join(payloads("file"))
    (workspace / "evil.txt").write_text(file_text + "\n")
    (workspace / "cmd.txt").write_text("\n".join(payloads("output")) + "\n")
    todos = [{"content": text, "status": "pending"} for text in payloads("todo")]
    script = tmp_path / "hostile.json"
    script.write_text(json.dumps({"title": "hostile \x1b]0;title\x07", "turns": [
        {"text": "\n\n".join(payloads("text")),
         "tool_calls": [call("TodoWrite", todos=todos), call("Read", file_path="evil.txt"),
                        call("Bash", command="cat cmd.txt"),
                        call("Read", file_path="no\x1b[2Jsuch\u202e.txt"), call(TOOL_NAME)]},
        {"text": "presenting", "tool_calls": [call("ExitPlanMode", plan="\n\n".join(payloads("plan")))]},
        {"text": "running", "tool_calls": [
            call("Bash", command="touch made\r# harmless"),
            call("Write", file_path="new.txt", content="\n".join(payloads("write"))),
            call("Edit", file_path="evil.txt", old_string=file_text, new_string="changed")]},
        {"text": "end of script"}]}))
    terminal = Terminal.start(workspace, "--script", str(script))
    terminal.expect("›")
    yield terminal
    terminal.close()


def refuse(terminal: Terminal, shown_last: str) -> None:
    """Wait until `shown_last` and the question are on screen, answer no, wait for the denial."""
    terminal.expect(re.escape(shown_last))
    terminal.expect(ASKED)
    terminal.sendline("n")
    terminal.expect("denied by you")


def test_every_path_draws_every_sequence_as_placeholders(hostile_session, workspace):
    screen = recorded(hostile_session)
    hostile_session.sendline("/plan look around")
    hostile_session.expect("Approve")
    hostile_session.sendline("y")
    refuse(hostile_session, "touch made␍# harmless")
    before_question = visible(screen.getvalue()).rpartition("● Bash(")[2]
    refuse(hostile_session, marker("write", "bidi-isolate"))
    refuse(hostile_session, marker("file", "bidi-isolate"))
    hostile_session.expect("end of script")
    hostile_session.expect("›")
    hostile_session.sendline("/todos")
    hostile_session.expect(marker("todo", "bidi-isolate"))
    hostile_session.expect("›")
    hostile_session.sendline("/trace")
    hostile_session.expect("Fake")
    hostile_session.expect("›")
    raw = screen.getvalue()
    for path in ("text", "todo", "plan", "write", "file"):
        assert_drawn_safely(raw, path)
    assert_drawn_safely(raw, "output", shown=False)
    for kind in ("backspace", "bidi-override", "bidi-isolate"):
        assert safe(SEQUENCES[kind]) + marker("output", kind) in visible(raw), "the command's last lines"
    assert "touch made␍# harmless" in before_question
    assert "invisible characters, shown as ␍" in before_question
    assert visible(raw).count("no␛[2Jsuch\\u202e.txt") >= 2, "the call and its error"
    assert visible(raw).count(safe(TOOL_NAME)) >= 2, "the call and /trace"
    assert "made\r#" not in raw
    assert_nothing_raw(raw)
    assert not (workspace / "made").exists() and not (workspace / "new.txt").exists()


def run_headless(workspace, *, tty: bool) -> bytes:
    """`index.py -p` with a scripted answer full of sequences; the bytes on its stdout."""
    script = workspace.parent / "answer.json"
    script.write_text(json.dumps([{"text": "\n".join(payloads("answer"))}]))
    if not tty:
        return run_product("--script", str(script), "-p", "go", cwd=workspace, text=False).stdout
    terminal = Terminal.start(workspace, "--script", str(script), "-p", "go")
    terminal.child.logfile_read = screen = io.StringIO()
    try:
        terminal.expect(pytest.importorskip("pexpect").EOF)
    finally:
        terminal.close()
    return screen.getvalue().encode()


def test_headless_answer_is_byte_for_byte_through_a_pipe(workspace):
    assert run_headless(workspace, tty=False) == ("\n".join(payloads("answer")) + "\n").encode()


def test_headless_answer_on_a_terminal_is_drawn_as_placeholders(workspace):
    raw = run_headless(workspace, tty=True).decode()
    assert_drawn_safely(raw, "answer")
    assert_nothing_raw(raw)
