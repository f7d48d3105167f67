"""Ctrl-Z at the prompt and at a question suspends stepagent to the shell, as terminal programs do,
and `fg` brings it back with nothing typed into the line: the model is sent only the words typed."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest

from tests.fake_chat_server import FakeChatServer
from tests.terminal import ROOT, Terminal


def state_of(pid: int) -> str:
    """The process's state letter from /proc (T: stopped)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def child_of(shell: int) -> int:
    deadline = time.monotonic() + 10
    while not (children := Path(f"/proc/{shell}/task/{shell}/children").read_text().split()):
        assert time.monotonic() < deadline, "stepagent did not start"
        time.sleep(0.05)
    return int(children[0])


def suspend_and_resume(shell: Terminal, pid: int, redrawn: str) -> None:
    """Ctrl-Z: the shell says the job stopped and the process is stopped; `fg` continues it, and
    the screen comes back with `redrawn` on it (a person types again only once they see it)."""
    shell.send("\x1a")
    shell.expect_text("Stopped")
    shell.expect("READY\\$ ")
    assert state_of(pid) == "T"
    shell.sendline("fg")
    deadline = time.monotonic() + 10
    while state_of(pid) == "T":
        assert time.monotonic() < deadline, "fg did not continue it"
        time.sleep(0.05)
    shell.expect_text(redrawn)


@pytest.mark.slow
def test_ctrl_z_suspends_at_the_prompt_and_at_a_question_and_fg_resumes(
        workspace: Path, tmp_path: Path, server: FakeChatServer):
    server.reply_tool_calls(("Write", {"file_path": "a.txt", "content": "a\n"}))
    server.reply_text("left alone")
    env = {"STEPAGENT_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "k",
           "OPENAI_BASE_URL": server.url, "PS1": "READY$ "}
    shell = Terminal.start(workspace, "--norc", "--noprofile", "-i", program="bash", env=env)
    try:
        shell.expect("READY\\$ ")
        shell.sendline(shlex.join([sys.executable, str(ROOT / "index.py")]))
        pid = child_of(shell.child.pid)
        shell.expect("›")
        shell.send("hel")
        suspend_and_resume(shell, pid, "hel")
        shell.sendline("lo")
        shell.expect_text("Allow")
        suspend_and_resume(shell, pid, "Allow")
        shell.sendline("n")
        shell.expect("left alone")
    finally:
        shell.close()
    assert [m["content"] for m in server.requests[0]["messages"] if m["role"] == "user"][-1] == "hello"
    assert not (workspace / "a.txt").exists()
