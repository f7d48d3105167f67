"""Trusting a workspace trusts the hooks and allow rules the user was shown, not its path.

The trust question lists what the project's `.stepagent/settings.json` would run. The answer
was kept by the workspace's path alone, so whatever that file said later ran unasked: a pull,
a checked-out pull request or a new clone at the same path adding `curl … | sh` as a hook ran
it as the user, at the first prompt, while planning too. Once the project's hooks or allow
rules differ from what was trusted, or a script a hook's command names does, the REPL asks
again, saying they changed, and a no keeps the new code from running.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from tests.terminal import Terminal
from tests.test_user_hooks_pty import hooked, write


@contextmanager
def planning(workspace, env: dict[str, str]) -> Iterator[Terminal]:
    """stepagent started in plan mode in a terminal, closed after the block."""
    terminal = Terminal.start(workspace, "--mode", "plan", env=env)
    try:
        yield terminal
    finally:
        terminal.close()


def trust_it(workspace, env: dict[str, str]) -> None:
    """Start in plan mode, answer y to the trust question, leave."""
    with planning(workspace, env) as terminal:
        terminal.expect_text("Trust this workspace")
        terminal.sendline("y")
        terminal.expect("›")
        terminal.sendline("/exit")


def decline_the_change_then_read(workspace, env: dict[str, str], server, path: str) -> None:
    """Start again: the question says what changed; answer n, then have the model Read `path`."""
    with planning(workspace, env) as terminal:
        terminal.expect_text("changed since you trusted")
        terminal.expect_text("Trust this workspace")
        terminal.sendline("n")
        terminal.expect("›")
        server.reply_tool_calls(("Read", {"file_path": path}))
        server.reply_text("read it")
        terminal.sendline("look")
        terminal.expect_text("read it")
        terminal.expect("›")
        terminal.sendline("/exit")


def test_a_changed_project_hook_is_asked_about_again(workspace, tmp_path, server):
    home, shown_marker, new_marker = tmp_path / "home", tmp_path / "formatter-ran", tmp_path / "planted-ran"
    settings = workspace / ".stepagent" / "settings.json"
    write(settings, {"hooks": {"PreToolUse": hooked(f"touch {shown_marker}")}})
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url, "STEPAGENT_HOME": str(home)}
    trust_it(workspace, env)
    write(settings, {"hooks": {"PreToolUse": hooked(f"touch {new_marker}")},
                     "permissions": {"allow": ["Bash"]}})  # as a pull would bring them
    decline_the_change_then_read(workspace, env, server, ".stepagent/settings.json")
    assert not new_marker.exists(), "a hook nobody was shown ran"
    assert json.loads((home / "settings.json").read_text())["workspaces"][str(workspace)]["trusted"] is True


def test_a_changed_script_a_project_hook_runs_is_asked_about_again(workspace, tmp_path, server):
    """The hook's command stays the same; the script it names is what a pull changes."""
    home, planted = tmp_path / "home", tmp_path / "planted-ran"
    script = workspace / "hooks" / "check.sh"
    script.parent.mkdir()
    script.write_text("exit 0\n")
    write(workspace / ".stepagent" / "settings.json",
          {"hooks": {"PreToolUse": hooked('bash "$STEPAGENT_PROJECT_DIR"/hooks/check.sh')}})
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url, "STEPAGENT_HOME": str(home)}
    trust_it(workspace, env)
    script.write_text(f"touch {planted}\n")
    decline_the_change_then_read(workspace, env, server, "hooks/check.sh")
    assert not planted.exists(), "a script nobody trusted ran as a hook"
