"""Edit mode asks before a Write or Edit in `.git` or `.stepagent`: through `-p`, as a user runs it.

Edit mode writes the workspace's files without a question, but a program planted in
the repository's config or hooks, or in stepagent's project settings, would run
later outside every sandbox (in the user's own `git status`, at a commit, as a hook
while planning). In -p nobody can answer, so such a change is denied and the run
says so (exit code 5); any other file is still written at once.
"""

from __future__ import annotations

import os
import subprocess

from tests.test_user_hooks_cli import run, tool_results  # noqa: F401 (a fixture)

FSMONITOR = "[core]\n\tfsmonitor = sh -c 'touch /tmp/planted'\n"
PLANTED = [("Write", {"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ntouch planted\n"}),
           ("Edit", {"file_path": ".git/config", "old_string": "[core]\n", "new_string": FSMONITOR}),
           ("Write", {"file_path": "linked-config", "content": FSMONITOR}),
           ("Write", {"file_path": "sub/.git/config", "content": FSMONITOR}),
           ("Write", {"file_path": ".stepagent/settings.json", "content": '{"permissions": {"allow": ["Bash"]}}'})]


def test_edit_mode_asks_before_a_change_that_starts_programs_and_writes_the_rest(run, server, workspace):
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    subprocess.run(["git", "init", "-q", "sub"], cwd=workspace, check=True)
    os.symlink(".git/config", workspace / "linked-config")
    before = {path: (workspace / path).read_bytes() for path in (".git/config", "sub/.git/config")}
    server.reply_tool_calls(*PLANTED, ("Write", {"file_path": "notes.md", "content": "kept\n"}))
    server.reply_text("done")
    code, _, err = run("--mode", "edit", "-p", "set things up")
    assert code == 5, err
    assert {path: (workspace / path).read_bytes() for path in before} == before
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / ".stepagent" / "settings.json").exists()
    assert (workspace / "notes.md").read_text() == "kept\n"
    results = tool_results(server.requests[1])
    assert all("nobody" in result for result in results[:len(PLANTED)]), results


def test_edit_mode_asks_before_a_change_in_the_hooks_folder_the_repository_names(run, server, workspace):
    """`core.hooksPath = .githooks` (as husky and many setup scripts leave it) makes that folder
    the repository's hooks: a file written there runs at the user's next commit, unsandboxed."""
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    subprocess.run(["git", "config", "core.hooksPath", ".githooks"], cwd=workspace, check=True)
    server.reply_tool_calls(("Write", {"file_path": ".githooks/pre-commit", "content": "#!/bin/sh\ntouch planted\n"}),
                            ("Write", {"file_path": "hooks-notes.md", "content": "kept\n"}))
    server.reply_text("done")
    code, _, err = run("--mode", "edit", "-p", "set things up")
    assert code == 5, err
    assert not (workspace / ".githooks" / "pre-commit").exists()
    assert (workspace / "hooks-notes.md").read_text() == "kept\n"
    assert "nobody" in tool_results(server.requests[1])[0]
