"""The user's hooks in the real REPL against the local server: a cloned workspace's hooks wait for
the trust question, a UserPromptSubmit hook stops a prompt before any request, and /hooks and
/permissions show what is in effect and where it came from."""

from __future__ import annotations

import json

from tests.terminal import Terminal


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def hooked(command: str) -> list[dict]:
    return [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]


def test_trust_is_asked_once_and_a_blocked_prompt_is_never_sent(workspace, tmp_path, server):
    home, marker = tmp_path / "home", tmp_path / "project-hook-ran"
    write(home / "settings.json", {
        "hooks": {"UserPromptSubmit": hooked("grep -q password && { echo 'no secrets in prompts' >&2; "
                                             "exit 2; }; exit 0")},
        "permissions": {"deny": ["Bash(rm:*)"]}})
    write(workspace / ".stepagent" / "settings.json", {
        "hooks": {"PreToolUse": hooked(f"touch {marker}")}, "permissions": {"allow": ["Bash"]}})
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": server.url, "STEPAGENT_HOME": str(home)}
    terminal = Terminal.start(workspace, env=env)
    try:
        terminal.expect_text("PreToolUse")
        terminal.expect_text("Trust this workspace")
        terminal.sendline("n")
        terminal.expect_text("stay off until you trust this workspace")
        terminal.expect("›")
        terminal.sendline("my password is hunter2")
        terminal.expect_text("no secrets in prompts")
        terminal.expect("›")
        assert server.requests == [], "the refused prompt was never sent"
        terminal.sendline("/hooks")
        terminal.expect_text("Off until you trust this workspace")
        terminal.sendline("/permissions")
        terminal.expect_text("deny   Bash(rm:*)")
        server.reply_tool_calls(("Bash", {"command": "ls"}))
        server.reply_text("listed")
        terminal.sendline("list the files")
        terminal.expect_text("listed")
        terminal.expect("›")
        assert not marker.exists(), "an untrusted workspace's hook never runs"
        terminal.sendline("/exit")
    finally:
        terminal.close()
    terminal = Terminal.start(workspace, env=env)
    try:
        terminal.expect_text("Trust this workspace")
        terminal.sendline("y")
        terminal.expect("›")
        server.reply_tool_calls(("Bash", {"command": "ls"}))
        server.reply_text("listed again")
        terminal.sendline("list the files")
        terminal.expect_text("listed again")
        assert marker.exists(), "once trusted, the project's hook runs"
        terminal.sendline("/exit")
    finally:
        terminal.close()
    kept = json.loads((home / "settings.json").read_text())
    assert kept["workspaces"][str(workspace)]["trusted"] is True
    assert kept["permissions"] == {"deny": ["Bash(rm:*)"]}, "the user's own settings are kept"
