"""The settings files: a broken one is one line naming the file and the line and the rest goes on;
the schema is Claude Code's; trust and kept rules live in the user's own file, never lost."""

from __future__ import annotations

import json
import threading

import pytest

from settings.files import SettingsFile, SettingsUnwritable, read_settings
from settings.paths import project_settings_path, user_settings_path
from settings.schema import CommandHook, Settings, parse_settings
from settings.trust import covered, is_trusted, keep_rule, trust, workspace_key

HOOKED = {"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [
    {"type": "command", "command": "./check.sh", "timeout": 10}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "make test"}]}]},
    "permissions": {"allow": ["Bash(git status:*)", "Read"], "ask": ["Bash(git push:*)"],
                    "deny": ["Bash(rm:*)", "Write(.env)"]}}


def test_a_malformed_file_is_one_line_naming_the_file_and_line(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{\n  "hooks": {\n    "PreToolUse": [,]\n  }\n}\n')
    read = read_settings(path, "user")
    assert read.data == {} and f"{path}:3:" in read.problem and "\n" not in read.problem
    assert parse_settings(read).problems == (read.problem,)


def test_the_schema_is_claude_codes(tmp_path):
    path = project_settings_path(tmp_path)
    path.parent.mkdir()
    path.write_text(json.dumps(HOOKED))
    found = parse_settings(read_settings(path, "project"))
    assert found.problems == ()
    assert found.hooks[0] == CommandHook("PreToolUse", "Bash|Write", "./check.sh", 10.0, f"project {path}")
    assert found.hooks[1].event == "Stop" and found.hooks[1].timeout == 60
    assert [(r.kind, r.rule.text) for r in found.rules] == [
        ("deny", "Bash(rm:*)"), ("deny", "Write(.env)"), ("ask", "Bash(git push:*)"),
        ("allow", "Bash(git status:*)"), ("allow", "Read")]
    assert found.hooks[0].matches("Write") and not found.hooks[0].matches("WriteAll")


@pytest.mark.parametrize("matcher, tool, matches", [
    ("", "Read", True), ("*", "Bash", True), ("Edit|Write", "Write", True), ("Edit|Write", "Bash", False),
    ("Notebook.*", "NotebookEdit", True), ("^Bash$", "Bash", True), ("Bash", "BashOutput", False)])
def test_the_matcher_is_a_regular_expression_on_the_tool_name(matcher, tool, matches):
    assert CommandHook("PreToolUse", matcher, "true", 1, "user").matches(tool) is matches


def test_each_unusable_entry_is_named_and_the_rest_still_counts(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "(", "hooks": [{"type": "command", "command": "a"}]},
        {"matcher": "", "hooks": [{"type": "prompt", "prompt": "x"}, {"command": "kept"}]}],
        "Notification": []}, "permissions": {"deny": ["Agent(Explore)", "Bash(rm:*)"]}}))
    found = parse_settings(read_settings(path, "user"))
    assert [hook.command for hook in found.hooks] == ["kept"]
    assert [rule.rule.text for rule in found.rules] == ["Bash(rm:*)"]
    assert len(found.problems) == 4 and all(str(path) in problem for problem in found.problems)


def test_trust_and_kept_rules_go_to_the_users_file_and_keep_what_was_there(tmp_path):
    home, workspace = tmp_path / "home", tmp_path / "app"
    workspace.mkdir()
    home.mkdir()
    user_settings_path(home).write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}
    shown = parse_settings(SettingsFile(workspace / "settings.json", "project", {"hooks": hooks}))
    assert not is_trusted(home, workspace, shown)
    trust(home, workspace, shown)
    keep_rule(home, workspace, "project", "Bash(make test:*)")
    keep_rule(home, workspace, "user", "Bash(git status:*)")
    keep_rule(home, workspace, "user", "Bash(git status:*)")
    assert is_trusted(home, workspace, shown) and not is_trusted(home, tmp_path, shown)
    assert not is_trusted(home, workspace, Settings()), "trust covers the hooks shown, not others"
    data = json.loads(user_settings_path(home).read_text())
    assert data["permissions"] == {"deny": ["Bash(rm:*)"], "allow": ["Bash(git status:*)"]}
    entry = data["workspaces"][workspace_key(workspace)]
    assert entry == {"trusted": True, "covers": covered(shown, workspace),
                     "permissions": {"allow": ["Bash(make test:*)"]}}
    kept = parse_settings(read_settings(user_settings_path(home), "user"), workspace_key(workspace))
    assert [r.rule.text for r in kept.rules] == ["Bash(rm:*)", "Bash(git status:*)", "Bash(make test:*)"]
    assert "kept for this project" in kept.rules[-1].source


def test_a_file_that_does_not_parse_is_never_written_over(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    broken = '{"permissions": {"allow": ["Read"]},,}'
    user_settings_path(home).write_text(broken)
    with pytest.raises(SettingsUnwritable, match="left as it is"):
        trust(home, tmp_path, Settings())
    assert user_settings_path(home).read_text() == broken


def test_writers_at_once_lose_no_rule(tmp_path):
    home = tmp_path / "home"
    rules = [f"Bash(task{n}:*)" for n in range(12)]
    threads = [threading.Thread(target=keep_rule, args=(home, tmp_path, "user", rule)) for rule in rules]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kept = json.loads(user_settings_path(home).read_text())["permissions"]["allow"]
    assert sorted(kept) == sorted(rules)


def test_the_projects_settings_file_is_committable_and_plans_are_not(tmp_path):
    import subprocess

    from tools.workspace import make_own_folder, write_inside

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    make_own_folder(tmp_path)
    write_inside(tmp_path, ".stepagent/settings.json", "{}")
    write_inside(tmp_path, ".stepagent/plans/plan-sess_1.md", "1. a")
    ignored = subprocess.run(["git", "-C", str(tmp_path), "check-ignore", ".stepagent/settings.json",
                              ".stepagent/.gitignore", ".stepagent/plans/plan-sess_1.md"],
                             capture_output=True, text=True).stdout.split()
    assert ignored == [".stepagent/.gitignore", ".stepagent/plans/plan-sess_1.md"]


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_a_hostile_projects_settings_file_cannot_hang_the_start(tmp_path, kind):
    import os

    path = project_settings_path(tmp_path)
    path.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.write_text('{"x": "' + "a" * (2 * 1024 * 1024) + '"}')
    read = read_settings(path, "project")
    assert read.data == {} and str(path) in read.problem and "cannot be read" in read.problem
