"""The user's hooks and rules through the whole product: -p against the local Chat Completions
server, as a user runs it. What is checked is what a user sees: files written or not, what
the model was sent, what the hooks were given, what the screen says."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

import index
from settings.trust import trust
from settings.user_hooks import load_user_settings
from tests.hidden_layers import configuration  # noqa: F401 (a fixture)

RECORD = """import json, sys
data = json.load(sys.stdin)
with open({out!r}, "a") as seen:
    seen.write(json.dumps(data) + "\\n")
if {stop_rm} and data.get("tool_input", {{}}).get("command", "").startswith("rm "):
    print("rm is not allowed here", file=sys.stderr)
    sys.exit(2)
"""
# this Python, not `python3`: on PATH that may be a version manager's shim (pyenv's: a shell
# script starting more programs, 0.15-0.2 s of CPU a call)
STOP_RM = (f"{shlex.quote(sys.executable)} -c 'import json,sys; "
           "c=json.load(sys.stdin)[\"tool_input\"].get(\"command\",\"\"); "
           "c.startswith(\"rm \") and (print(\"rm is not allowed here\", file=sys.stderr), sys.exit(2))'")


def settings_file(path: Path, hooks: dict | None = None, permissions: dict | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {**({"hooks": hooks} if hooks else {}), **({"permissions": permissions} if permissions else {})}
    path.write_text(json.dumps(data))


def command(line: str, matcher: str = "") -> list[dict]:
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": line, "timeout": 20}]}]


def recorder(tmp_path: Path, name: str, stop_rm: bool = False) -> tuple[str, Path]:
    """A hook command that appends its input to a file (and with `stop_rm` refuses rm), and that file."""
    out = tmp_path / f"{name}.jsonl"
    script = tmp_path / f"{name}.py"
    script.write_text(RECORD.format(out=str(out), stop_rm=stop_rm))
    return f"{sys.executable} {script}", out


def seen(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


@pytest.fixture
def run(server, workspace, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)

    def run_p(*args: str) -> tuple[int, str, str]:
        code = index.main(list(args))
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run_p


def user_settings(tmp_path: Path) -> Path:
    return tmp_path / "home" / "settings.json"


def project_settings(workspace: Path) -> Path:
    return workspace / ".stepagent" / "settings.json"


def tool_results(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_an_exit_2_hook_stops_rm_and_the_model_reads_why(run, server, workspace, tmp_path):
    (workspace / "victim.txt").write_text("keep me")
    settings_file(user_settings(tmp_path), {"PreToolUse": command(STOP_RM, "Bash")})
    server.reply_tool_calls(("Bash", {"command": "rm victim.txt"}))
    server.reply_text("could not remove it")
    code, out, err = run("--mode", "yolo", "-p", "remove victim.txt")
    assert code == 0 and (workspace / "victim.txt").exists()
    assert "rm is not allowed here" in tool_results(server.requests[1])[0]
    assert "PreToolUse hook" in err


def test_a_hooks_allow_does_not_let_write_through_while_planning(run, server, workspace, tmp_path):
    allow = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
    hook_line, out = recorder(tmp_path, "pre")
    settings_file(user_settings(tmp_path), {"PreToolUse": command(f"{hook_line}; echo '{allow}'")})
    server.reply_tool_calls(("Write", {"file_path": "made.txt", "content": "x"}))
    server.reply_text("denied, as expected")
    code, _, _ = run("--mode", "plan", "-p", "make a file")
    assert code == 0 and not (workspace / "made.txt").exists()
    assert "plan-mode-guard" in tool_results(server.requests[1])[0]
    assert seen(out) == [], "the guard decides first: the hook is never asked about a denied call"


def test_a_crashing_hook_denies_a_read_while_planning_and_not_outside(run, server, workspace, tmp_path):
    (workspace / "notes.txt").write_text("secret plans")
    settings_file(user_settings(tmp_path), {"PreToolUse": command("exit 1", "Read")})
    for mode in ("plan", "build"):
        server.reply_tool_calls(("Read", {"file_path": "notes.txt"}))
        server.reply_text("done")
        code, _, err = run("--mode", mode, "-p", "read the notes")
        assert code == 0
    planning, building = tool_results(server.requests[1])[0], tool_results(server.requests[3])[0]
    assert "secret plans" not in planning and "failed" in planning and "exited with 1" in planning
    assert "secret plans" in building and "failed" in err


def test_post_tool_use_sees_the_tools_output_and_can_tell_the_model(run, server, workspace, tmp_path):
    (workspace / "notes.txt").write_text("ship on Friday")
    hook_line, out = recorder(tmp_path, "post")
    settings_file(user_settings(tmp_path), {"PostToolUse": command(
        f"{hook_line}; echo 'remember to run the tests' >&2; exit 2", "Read")})
    server.reply_tool_calls(("Read", {"file_path": "notes.txt"}))
    server.reply_text("read it")
    assert run("--mode", "build", "-p", "read the notes")[0] == 0
    [post] = seen(out)
    assert post["hook_event_name"] == "PostToolUse" and post["tool_name"] == "Read"
    assert "ship on Friday" in post["tool_response"]["content"]
    assert "remember to run the tests" in tool_results(server.requests[1])[0]


def test_user_prompt_submit_blocks_a_prompt_before_any_request(run, server, workspace, tmp_path):
    settings_file(user_settings(tmp_path), {"UserPromptSubmit": command(
        "grep -q password && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0")})
    code, out, err = run("-p", "my password is hunter2")
    assert code == 1 and server.requests == [] and "no secrets in prompts" in err
    server.reply_text("fine")
    assert run("-p", "a harmless prompt")[0] == 0 and len(server.requests) == 1


def test_an_untrusted_projects_hooks_never_run_and_its_allow_rules_do_not_apply(
        run, server, workspace, tmp_path):
    marker = tmp_path / "ran"
    hostile = f"touch {marker}"
    settings_file(project_settings(workspace), {
        "PreToolUse": command(hostile), "PostToolUse": command(hostile),
        "UserPromptSubmit": command(hostile), "SessionStart": command(hostile), "Stop": command(hostile)},
        {"allow": ["Bash", "Write", "Edit"], "deny": ["Bash(rm:*)"]})
    planted = json.loads(project_settings(workspace).read_text())
    planted["workspaces"] = {str(workspace): {"trusted": True, "permissions": {"allow": ["Write"]}}}
    project_settings(workspace).write_text(json.dumps(planted))
    (workspace / "victim.txt").write_text("keep me")
    server.reply_tool_calls(("Write", {"file_path": "planted.txt", "content": "x"}))
    server.reply_tool_calls(("Bash", {"command": "rm victim.txt"}))
    server.reply_text("done")
    code, _, err = run("--mode", "build", "-p", "do it")
    assert code == 5 and not marker.exists(), "5: the Write nobody could allow was denied"
    assert not (workspace / "planted.txt").exists(), "the project's allow rule did not skip the question"
    assert "they stay off: a -p run turns them on only with --trust-workspace" in err
    server.reply_tool_calls(("Bash", {"command": "rm victim.txt"}))
    server.reply_text("done")
    assert run("--mode", "yolo", "-p", "remove it")[0] == 0
    assert (workspace / "victim.txt").exists(), "the project's deny rule applies without trust"
    assert "deny rule Bash(rm:*)" in tool_results(server.requests[-1])[-1]
    assert not marker.exists()
    server.reply_text("trusted")
    assert run("--trust-workspace", "-p", "now trusted")[0] == 0
    assert marker.exists(), "with --trust-workspace the project's hooks run"


def test_a_workspace_trusted_in_the_repl_is_told_that_p_needs_the_flag(run, server, workspace, tmp_path):
    marker = tmp_path / "ran"
    settings_file(project_settings(workspace), {"PreToolUse": command(f"touch {marker}")},
                  {"allow": ["Bash"]})
    home = tmp_path / "home"
    trust(home, workspace, load_user_settings(home, workspace, False).waiting_for_trust)
    server.reply_text("done")
    code, _, err = run("-p", "go")
    assert code == 0 and not marker.exists()
    said = " ".join(err.split())
    assert "1 hook and 1 allow rule; you trust this workspace, but a -p run turns them on only " \
        "with --trust-workspace" in said and "until you trust" not in said
    server.reply_tool_calls(("Bash", {"command": "true"}))
    server.reply_text("done")
    code, _, err = run("--trust-workspace", "-p", "go")
    assert code == 0 and marker.exists() and "--trust-workspace" not in err


def test_a_deny_rule_holds_in_yolo_however_the_command_is_spelled(run, server, workspace, tmp_path):
    (workspace / "victim.txt").write_text("keep me")
    settings_file(user_settings(tmp_path), permissions={"deny": ["Bash(rm:*)", "Write(victim.txt)"],
                                                        "allow": ["Bash", "Write"]})
    server.reply_tool_calls(("Bash", {"command": "ls && /bin/rm victim.txt"}),
                            ("Bash", {"command": "sh -c 'rm victim.txt'"}),
                            ("Write", {"file_path": "./victim.txt", "content": "gone"}))
    server.reply_text("nothing removed")
    assert run("--mode", "yolo", "-p", "remove it")[0] == 0
    assert (workspace / "victim.txt").read_text() == "keep me"
    assert all("deny rule" in result for result in tool_results(server.requests[1]))


def test_a_read_deny_rule_keeps_the_file_out_of_every_search(run, server, workspace, tmp_path):
    (workspace / ".env").write_text("TOKEN=hunter2\n")
    (workspace / "deep" / "er").mkdir(parents=True)
    (workspace / "deep" / "er" / ".env").write_text("TOKEN=hunter3\n")
    (workspace / "notes.txt").write_text("TOKEN is read from .env\n")
    (workspace / "alias.txt").symlink_to(".env")
    settings_file(user_settings(tmp_path), permissions={"deny": ["Read(.env)"]})
    server.reply_tool_calls(("Grep", {"pattern": "TOKEN"}), ("Grep", {"pattern": "TOKEN", "path": "deep"}),
                            ("Glob", {"pattern": "**/*"}), ("Grep", {"pattern": "TOKEN", "glob": ".env"}))
    server.reply_text("searched")
    assert run("--mode", "plan", "-p", "find the token")[0] == 0
    everything, deeper, listed, narrowed = tool_results(server.requests[1])
    assert "notes.txt:1:TOKEN is read from .env" in everything
    for result in (everything, deeper, listed, narrowed):
        assert "hunter" not in result and not any(line.split(":")[0].endswith(".env") for line in result.splitlines())
    assert "left out: 2 files" in everything and "left out: 1 file " in deeper
    assert "notes.txt" in listed and "alias.txt" not in listed


def test_a_sub_agent_meets_the_users_deny_rules_too(run, server, workspace, tmp_path):
    (workspace / "victim.txt").write_text("keep me")
    (workspace / ".env").write_text("TOKEN=hunter2\n")
    settings_file(user_settings(tmp_path), permissions={"deny": ["Bash(rm:*)", "Read(.env)"]})
    server.reply_tool_calls(("Agent", {"description": "tidy", "prompt": "remove victim.txt, read .env",
                                       "subagent_type": "general"}))
    server.reply_tool_calls(("Bash", {"command": "rm victim.txt"}), ("Read", {"file_path": ".env"}),
                            ("Grep", {"pattern": "TOKEN"}))
    server.reply_text("could not")
    server.reply_text("the sub-agent could not")
    assert run("--mode", "yolo", "-p", "tidy up")[0] == 0
    assert (workspace / "victim.txt").read_text() == "keep me"
    removed, read, searched = tool_results(server.requests[2])
    assert "deny rule" in removed and "deny rule" in read
    assert "hunter" not in searched and "left out: 1 file" in searched


def test_a_file_name_holding_a_newline_cannot_smuggle_a_denied_file_out_of_a_search(
        run, server, workspace, tmp_path, configuration):
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "a\nb").write_text("TOKEN=hunter2\n")
    (workspace / "notes\nx.txt").write_text("TOKEN=public\n")
    settings_file(user_settings(tmp_path), permissions={"deny": ["Read(secrets/**)"]})
    server.reply_tool_calls(("Grep", {"pattern": "TOKEN"}), ("Glob", {"pattern": "**/*"}))
    server.reply_text("searched")
    assert run("--mode", "plan", "-p", "find the token")[0] == 0
    grepped, listed = tool_results(server.requests[1])
    assert "hunter2" not in grepped and "left out: 1 file " in grepped
    assert grepped.splitlines()[0] == '"notes\\nx.txt":1:TOKEN=public'
    assert listed.splitlines() == ['"notes\\nx.txt"', "(left out: 1 file your permission rules keep from being read)"]


def test_the_hook_input_carries_plan_while_planning(run, server, workspace, tmp_path):
    (workspace / "notes.txt").write_text("x")
    hook_line, out = recorder(tmp_path, "pre")
    settings_file(user_settings(tmp_path), {"PreToolUse": command(hook_line)})
    for mode in ("plan", "yolo"):
        server.reply_tool_calls(("Read", {"file_path": "notes.txt"}))
        server.reply_text("ok")
        assert run("--mode", mode, "-p", "read")[0] == 0
    first, second = seen(out)
    assert (first["permission_mode"], second["permission_mode"]) == ("plan", "yolo")
    assert first["tool_name"] == "Read" and first["tool_input"] == {"file_path": "notes.txt"}
    assert first["cwd"] == str(workspace) and first["session_id"].startswith("sess_")


def test_stop_and_session_start_hooks_reach_the_model(run, server, workspace, tmp_path):
    flag = tmp_path / "stopped-once"
    settings_file(user_settings(tmp_path), {
        "SessionStart": command("echo 'the build is red on main'"),
        "Stop": command(f"test -e {flag} && exit 0; touch {flag}; echo 'run the tests first' >&2; exit 2")})
    server.reply_text("all done")
    server.reply_text("tests run, now done")
    code, out, _ = run("-p", "finish")
    assert code == 0 and out.strip() == "tests run, now done"
    first, second = server.requests
    assert "the build is red on main" in json.dumps(first["messages"])
    assert "run the tests first" in second["messages"][-1]["content"]


def test_a_malformed_settings_file_is_one_line_and_the_run_goes_on(run, server, workspace, tmp_path):
    path = user_settings(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "hooks": [\n}\n')
    server.reply_text("fine")
    code, out, err = run("-p", "hello")
    assert code == 0 and out.strip() == "fine"
    assert [line for line in err.splitlines() if str(path) in line] == [
        next(line for line in err.splitlines() if f"{path}:3:" in line)]


def test_try_calls_runs_a_recorded_call_through_the_hooks_without_running_it(
        workspace, tmp_path, monkeypatch, capsys):
    (workspace / "victim.txt").write_text("keep me")
    hook_line, out = recorder(tmp_path, "pre", stop_rm=True)
    settings_file(user_settings(tmp_path), {"PreToolUse": command(hook_line, "Bash")},
                  {"deny": ["Write(.env)"]})
    calls = tmp_path / "calls.json"
    calls.write_text(json.dumps({"turns": [{"tool_calls": [
        {"name": "Bash", "arguments": {"command": "rm victim.txt"}},
        {"name": "Write", "arguments": {"file_path": ".env", "content": "x"}},
        {"name": "Bash", "arguments": {"command": "ls"}},
        {"name": "Write", "arguments": {"file_path": "new.txt", "content": "x"}}]}]}))
    assert index.main(["--try-calls", str(calls), "--mode", "build"]) == 0
    shown = capsys.readouterr().err
    assert (workspace / "victim.txt").exists() and not (workspace / "new.txt").exists()
    assert "denied by PreToolUse hook" in shown and "rm is not allowed here" in shown
    assert "denied by deny rule Write(.env)" in shown
    assert "would run" in shown and "would ask you" in shown, shown
    assert [entry["tool_input"]["command"] for entry in seen(out)] == ["rm victim.txt", "ls"]


def test_a_rule_kept_for_the_project_holds_in_the_next_session_and_lists_where(workspace, tmp_path):
    from agent.approval import PermissionAnswer
    from agent.assemble import assemble
    from ui.product import open_user_settings, product_layers
    from models.scripted import ScriptedModel
    from settings.listing import rule_lines
    from state import AppState
    from ui.console import ConsoleView
    from rich.console import Console
    from session.journal import Journal
    from session.live import Session as LiveSession

    home, asked = tmp_path / "home", []

    def session(answer):
        hooks = open_user_settings(home, workspace, ConsoleView(Console(file=open(os.devnull, "w"))),
                                   None, False)
        model = ScriptedModel([{"tool_calls": [{"name": "Bash", "arguments": {"command": "touch made"}}]},
                               {"text": "done"}])
        state = AppState()
        agent = assemble(workspace, state, model, lambda plan: None,
                         lambda request: asked.append(request) or answer, product_layers(home, user_hooks=hooks))
        journal = Journal(None, state, workspace, lambda text: None)
        state.events.subscribe(journal.on_event)
        agent.run_turn("make it")
        return hooks, LiveSession(agent, journal).trace()

    _, trace = session(PermissionAnswer(True, remember=True, kept="project"))
    assert len(asked) == 1 and (workspace / "made").exists()
    assert any("allowed by you" in line for line in trace)
    (workspace / "made").unlink()
    hooks, trace = session(PermissionAnswer(False))
    assert len(asked) == 1 and (workspace / "made").exists(), "the next session did not ask"
    assert any("allowed by allow rule Bash(touch:*) (kept for this project" in line for line in trace), trace
    assert any("Bash(touch:*)" in line and "kept for this project" in line
               for line in rule_lines(hooks.settings, hooks.waiting, []))
