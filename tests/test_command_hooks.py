"""Running a command hook: JSON in, exit code and output out, as Claude Code reads them; a hook
that hangs is stopped with everything it started, and its output is bounded."""

from __future__ import annotations

import json
import os
import time

import pytest

from settings.command_hook import MAX_OUTPUT, run_command
from settings.hook_answer import MAX_REASON, HookAnswer, read_answer


def answer(command: str, event: str = "PreToolUse", workspace=None, timeout: float = 20):
    run = run_command(command, {"hook_event_name": event, "tool_name": "Bash",
                                "tool_input": {"command": "rm -rf x"}}, workspace, timeout)
    return read_answer(event, run)


def test_the_hook_reads_its_input_as_json_in_the_workspace(tmp_path):
    script = "import json,os,sys; d=json.load(sys.stdin); open('seen','w').write(json.dumps([d, os.getcwd(), os.environ['STEPAGENT_PROJECT_DIR']]))"
    assert answer(f"python3 -c \"{script}\"", workspace=tmp_path) == HookAnswer()
    seen, cwd, project = json.loads((tmp_path / "seen").read_text())
    assert seen["tool_input"] == {"command": "rm -rf x"} and cwd == project == str(tmp_path)


def test_exit_2_blocks_with_standard_error_as_the_reason(tmp_path):
    assert answer("echo 'no rm here' >&2; exit 2", workspace=tmp_path) == HookAnswer("deny", "no rm here")
    assert answer("echo 'tests fail' >&2; exit 2", "Stop", tmp_path) == HookAnswer("block", "tests fail")


@pytest.mark.parametrize("output, decision, reason", [
    ({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                             "permissionDecisionReason": "fine"}}, "allow", "fine"),
    ({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}, "ask", "sure?"),
    ({"decision": "block", "reason": "not today"}, "deny", "not today"),
    ({"decision": "approve"}, "allow", ""),
    ({"suppressOutput": True}, "", ""),
])
def test_exit_0_json_is_read_as_claude_code_reads_it(tmp_path, output, decision, reason):
    got = answer(f"echo '{json.dumps(output)}'", workspace=tmp_path)
    assert (got.decision, got.reason, got.failure) == (decision, reason, "")


@pytest.mark.parametrize("command, failure", [
    ("exit 1", "exited with 1"),
    ("echo boom >&2; exit 3", "exited with 3: boom"),
    ("echo '{\"hookSpecificOutput\": '", "not valid JSON"),
    ("echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"yes\"}}'", "must be allow, deny or ask"),
    ("no-such-program-here", "exited with 127"),
])
def test_a_hook_that_fails_says_how(tmp_path, command, failure):
    got = answer(command, workspace=tmp_path)
    assert got.decision == "" and failure in got.failure


def test_context_for_the_prompt_and_session_events(tmp_path):
    assert answer("echo 'the build is red'", "UserPromptSubmit", tmp_path).context == "the build is red"
    json_context = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "hi"}}
    assert answer(f"echo '{json.dumps(json_context)}'", "SessionStart", tmp_path).context == "hi"
    assert answer("echo 'ignored'", "PreToolUse", tmp_path) == HookAnswer()


def test_a_hook_that_hangs_is_stopped_with_what_it_started(tmp_path):
    got = answer("sleep 300 & echo $! > child; sleep 300", workspace=tmp_path, timeout=1)
    assert "timed out" in got.failure
    child = int((tmp_path / "child").read_text())
    for _ in range(100):
        if not os.path.exists(f"/proc/{child}") or open(f"/proc/{child}/stat").read().split()[2] == "Z":
            break
        time.sleep(0.05)
    else:
        pytest.fail("the hook's child outlived it")


def test_output_is_bounded_and_the_reason_the_model_reads_is_cut(tmp_path):
    got = run_command("head -c 10000000 /dev/zero | tr '\\0' x >&2; exit 2", {}, tmp_path, 30)
    assert len(got.stderr) == MAX_OUTPUT
    reason = read_answer("PreToolUse", got).reason
    assert len(reason) < MAX_REASON + 100 and reason.endswith("more characters cut]")


def test_a_hook_that_does_not_read_its_input_is_fine(tmp_path):
    big = {"tool_input": {"content": "x" * 1_000_000}}
    assert run_command("exit 0", big, tmp_path, 20).exit_code == 0
