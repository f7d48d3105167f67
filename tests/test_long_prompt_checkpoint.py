"""A prompt longer than the system's argument limit (~128 KiB) still gets its file checkpoint:
`-p -` reads it from standard input, and /rewind in the REPL lists its file and brings the
workspace back to before it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fake_chat_server import FakeChatServer
from tests.product_run import run_product
from tests.terminal import Terminal

LONG = "describe " + "x" * 200_000


@pytest.mark.slow
def test_a_prompt_over_128_kib_is_checkpointed_and_rewound(workspace: Path, server: FakeChatServer):
    server.reply_tool_calls(("Write", {"file_path": "first.txt", "content": "1\n"}))
    server.reply_text("first written")
    server.reply_tool_calls(("Write", {"file_path": "second.txt", "content": "2\n"}))
    server.reply_text("second written")
    env = {**os.environ, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url}  # forked by the zygote

    first = run_product("--mode", "yolo", "-p", "write first.txt", cwd=workspace, env=env)
    second = run_product("--mode", "yolo", "--continue", "-p", "-", cwd=workspace, env=env, input=LONG)

    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    assert "cannot run" not in second.stdout + second.stderr
    assert (workspace / "second.txt").exists()
    repl = Terminal.start(workspace, "--continue", env=env)
    repl.expect("›")
    repl.sendline("/rewind")
    repl.expect_text("+first.txt")
    repl.expect_text("2 › describe xxx")
    repl.expect_text("+second.txt")
    repl.sendline("/rewind 2")
    repl.expect_text("remove (1): second.txt")
    repl.expect_text("Rewind the files? [y/N]")
    repl.sendline("y")
    repl.expect_text("Rewound to checkpoint 2")
    assert (workspace / "first.txt").exists() and not (workspace / "second.txt").exists()
    repl.close()
