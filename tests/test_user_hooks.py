"""The user's hooks and rules at run time: what trust turns on, and how hooks' answers combine."""

from __future__ import annotations

import json

from settings.paths import project_settings_path, user_settings_path
from settings.trust import trust
from settings.user_hooks import UserHooks, load_user_settings
from state import AppState, PermissionMode
from ui.workspace_trust import off_line


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def hook(command: str, matcher: str = "") -> dict:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}


def test_an_untrusted_project_keeps_only_its_deny_and_ask_rules(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "app"
    write(project_settings_path(workspace), {
        "hooks": {"PreToolUse": [hook("touch ran")]},
        "permissions": {"allow": ["Bash"], "ask": ["Read"], "deny": ["Bash(rm:*)"]}})
    loaded = load_user_settings(home, workspace, trusted=False)
    assert loaded.settings.hooks == ()
    assert [(r.kind, r.rule.text) for r in loaded.settings.rules] == [("deny", "Bash(rm:*)"), ("ask", "Read")]
    assert len(loaded.waiting_for_trust.hooks) == 1 and loaded.waiting_for_trust.rules[0].rule.text == "Bash"
    assert "1 hook and 1 allow rule" in off_line(home, workspace, loaded.waiting_for_trust, asked=True)
    trusted = load_user_settings(home, workspace, trusted=True)
    assert len(trusted.settings.hooks) == 1 and trusted.waiting_for_trust.hooks == ()


def test_a_deny_beats_an_ask_beats_an_allow_and_a_failure_denies_only_while_planning(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "app"
    allow = json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}})
    ask = json.dumps({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}})
    write(user_settings_path(home), {"hooks": {"PreToolUse": [
        hook(f"echo '{allow}'"), hook(f"echo '{ask}'", "Bash"), hook("echo no >&2; exit 2", "Write"),
        hook("exit 1", "Read")]}})
    workspace.mkdir()
    shown: list[str] = []
    hooks = UserHooks(load_user_settings(home, workspace, False).settings, workspace, home, shown.append)
    state = AppState()
    assert hooks.pre_tool_use("Grep", {}, state.view()).verdict == "allow"
    assert hooks.pre_tool_use("Bash", {}, state.view()).reason == "sure?"
    assert hooks.pre_tool_use("Write", {}, state.view()).verdict == "deny"
    assert hooks.pre_tool_use("Read", {}, state.view()).verdict == "allow" and "failed" in shown[-1]
    state.enter_plan_mode("test")
    denied = hooks.pre_tool_use("Read", {}, state.view())
    assert denied.verdict == "deny" and "exited with 1" in denied.reason and "while planning" in denied.reason


def test_the_input_says_plan_while_planning_and_the_mode_otherwise(tmp_path):
    seen = []
    hooks = UserHooks(load_user_settings(tmp_path, tmp_path, False).settings, tmp_path, tmp_path)
    state = AppState(permission_mode=PermissionMode.YOLO)
    seen.append(hooks.payload("PreToolUse", state.view())["permission_mode"])
    state.enter_plan_mode("test")
    seen.append(hooks.payload("PreToolUse", state.view())["permission_mode"])
    assert seen == ["yolo", "plan"]
