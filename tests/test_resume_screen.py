"""What resuming looks like: the session list's columns and mark, the exit hint that can be
copied whole at 80 columns, and a /compact summary drawn as markdown."""

from __future__ import annotations

import json
import os
import re

from session.session_list import SessionInfo
from session.store import SessionStore
from tests.harness import journaled, turn
from tests.terminal import Terminal
from tests.product_run import run_product
from ui.slash import run_slash_command

LAUNCHER = "/opt/a/rather/long/folder/where/someone/keeps/their/tools/bin/stepagent"


def test_the_age_column_is_padded_so_the_mode_column_lines_up():
    now = 1_000_000.0
    rows = [SessionInfo(f"sess_{n:016x}", "/w", now - seconds, 3, "hello", "build").line(now)
            for n, seconds in enumerate([5, 5 * 60, 45 * 60, 3 * 3600, 9 * 86400, 400 * 86400])]
    columns = {row.index("build") for row in rows}
    assert len(columns) == 1, "\n".join(rows)


def test_the_list_promises_the_mark_only_when_this_session_is_listed_and_marked(workspace, tmp_path):
    store = SessionStore(tmp_path / "sessions.db")
    earlier, _ = journaled(workspace, store, [turn("It greets.")])
    earlier.run("what does app.py do?")
    session, live = journaled(workspace, store, [turn("ok")])
    fresh = run_slash_command("/resume", live).message
    assert earlier.state.session_id in fresh
    assert "●" not in fresh, "nothing is stored for this session yet: no mark, no promise of one"
    session.run("hello")
    listed = run_slash_command("/resume", live).message.splitlines()
    assert "● this one" in listed[0]
    assert [line for line in listed if line.startswith(f"● {session.state.session_id}")]


def test_the_resume_commands_are_printed_whole_on_their_own_line_at_80_columns(workspace, tmp_path):
    env = {"STEPAGENT_HOME": str(tmp_path / "home"), "STEPAGENT_COMMAND": LAUNCHER, "COLUMNS": "80"}
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"text": "hello back"}, {"text": "**Done**: wrote `a.txt`."}]))
    terminal = Terminal.start(workspace, "--script", str(script), "hello", env=env, columns=80)
    try:
        terminal.expect_text("hello back")
        terminal.expect("›")
        terminal.sendline("/compact")
        terminal.expect_text("Compacted. Summary:")
        terminal.expect_text("Done: wrote a.txt.")
        terminal.expect("›")
        terminal.sendline("/exit")
        terminal.expect_text("Resume this session with:")
        terminal.expect(re.compile(re.escape(f"{LAUNCHER} --resume ") + r"sess_[0-9a-f]{16}"))
    finally:
        terminal.close()
    listed = run_product("--resume", cwd=workspace, env={**os.environ, **env})
    assert f"{LAUNCHER} --resume ID" in listed.stdout.splitlines(), listed.stdout


def test_a_compacted_session_resumed_shows_its_summary_drawn_as_markdown(workspace, tmp_path):
    import io

    from rich.console import Console

    from ui.console import ConsoleView
    from ui.startup import show_last_exchange

    store = SessionStore(tmp_path / "sessions.db")
    first, live = journaled(workspace, store, [turn("hello"), turn("**Done**: wrote `a.txt`.")])
    first.run("write a.txt")
    run_slash_command("/compact", live)
    _, resumed = journaled(workspace, store, [])
    resumed.resume(first.state.session_id)
    console = Console(file=io.StringIO(), width=80, record=True)
    show_last_exchange(resumed, ConsoleView(console))
    shown = console.export_text()
    assert "Where it stopped" in shown and "Done: wrote a.txt." in shown, shown
    assert "**" not in shown and "`" not in shown and "system-reminder" not in shown
