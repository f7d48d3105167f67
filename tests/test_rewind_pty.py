"""/rewind in the real REPL, typed at as a person would, against the local Chat Completions server:
the rewind names the files it would remove and write back and asks first (no keeps a file the user
made by hand), files changed by Write and by Bash come back, the model hears neither rewound prompt,
the rewind is itself undone, the user's .git never changes, and a resumed session rewinds again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fake_chat_server import FakeChatServer
from tests.terminal import Terminal
from tests.test_rewind_snapshots import fingerprint


def spoken(request: dict) -> list[str]:
    """The user's own prompts in a request (reminders, which start with a tag, left out)."""
    return [m["content"] for m in request["messages"]
            if m["role"] == "user" and not m["content"].startswith("<")]


@pytest.mark.slow
def test_rewind_in_a_terminal_restores_files_and_conversation_and_undoes_itself_across_a_resume(
        workspace: Path, tmp_path: Path, server: FakeChatServer):
    (workspace / "changed.txt").write_text("before\n")
    (workspace / "gone.txt").write_text("keep me\n")
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "start"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *command],
                       cwd=workspace, check=True)
    git_folder = fingerprint(workspace / ".git")
    server.reply_tool_calls(("Write", {"file_path": "new.txt", "content": "new\n"}))
    server.reply_text("written")
    server.reply_tool_calls(("Bash", {"command": "echo after > changed.txt && rm gone.txt"}))
    server.reply_text("changed and deleted")
    server.reply_text("a fresh start")
    server.reply_text("after the resume")
    env = {"STEPAGENT_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "k",
           "OPENAI_BASE_URL": server.url}

    repl = Terminal.start(workspace, "--mode", "yolo", env=env)
    repl.expect("›")
    repl.sendline("write new.txt")
    repl.expect("written")
    repl.sendline("change one file and delete another")
    repl.expect("changed and deleted")
    assert (workspace / "new.txt").exists() and not (workspace / "gone.txt").exists()
    (workspace / "mywork.txt").write_text("made by hand\n")

    repl.sendline("/rewind")
    repl.expect_text("1 › write new.txt")
    repl.expect_text("+new.txt")
    repl.expect_text("2 › change one file and delete another")
    repl.expect_text("~changed.txt  -gone.txt")
    repl.sendline("/rewind 1")
    repl.expect_text("remove (2): mywork.txt  new.txt")
    repl.expect_text("write back (2): changed.txt  gone.txt")
    repl.expect_text("Rewind the files? [y/N]")
    repl.sendline("")
    repl.expect_text("Not rewound")
    assert (workspace / "mywork.txt").read_text() == "made by hand\n"
    assert (workspace / "new.txt").exists() and not (workspace / "gone.txt").exists()
    repl.sendline("/rewind 1")
    repl.expect_text("Rewind the files? [y/N]")
    repl.sendline("y")
    repl.expect_text("Rewound to checkpoint 1")
    repl.expect_text("removed (2): mywork.txt  new.txt")
    repl.expect_text("written back (2): changed.txt  gone.txt")
    repl.expect_text("Undo with /rewind 3.")
    assert not (workspace / "mywork.txt").exists()
    assert not (workspace / "new.txt").exists()
    assert (workspace / "changed.txt").read_text() == "before\n"
    assert (workspace / "gone.txt").read_text() == "keep me\n"
    assert fingerprint(workspace / ".git") == git_folder

    repl.sendline("start again")
    repl.expect("a fresh start")
    assert spoken(server.requests[-1]) == ["start again"]
    repl.sendline("/rewind")
    repl.expect_text("3 ↺ before /rewind 1")
    repl.sendline("/rewind 3")
    repl.expect_text("Rewind the files? [y/N]")
    repl.sendline("y")
    repl.expect_text("Rewound to checkpoint 3")
    assert (workspace / "mywork.txt").read_text() == "made by hand\n"
    assert (workspace / "new.txt").read_text() == "new\n"
    assert (workspace / "changed.txt").read_text() == "after\n"
    assert not (workspace / "gone.txt").exists()
    assert fingerprint(workspace / ".git") == git_folder
    repl.sendline("/exit")
    repl.expect_text("Resume this session with")
    repl.close()

    resumed = Terminal.start(workspace, "--continue", env=env)
    resumed.expect("›")
    resumed.sendline("/rewind")
    resumed.expect_text("5 ↺ before /rewind 3")
    resumed.sendline("/rewind 2")
    resumed.expect_text("Rewind the files? [y/N]")
    resumed.sendline("y")
    resumed.expect_text("Rewound to checkpoint 2")
    assert (workspace / "gone.txt").read_text() == "keep me\n"
    assert (workspace / "new.txt").exists()
    resumed.sendline("one more")
    resumed.expect("after the resume")
    assert spoken(server.requests[-1]) == ["write new.txt", "one more"]
    assert fingerprint(workspace / ".git") == git_folder
    resumed.close()
