"""Edit mode asks before a Write into `.git` or `.stepagent` under any name the file system takes for it.

On macOS's default file system (and Windows') names differ from the folder's only in
case, `.GIT/hooks/pre-commit` is `.git/hooks/pre-commit`; HFS+ also ignores some
invisible code points (`.g\\u200cit`), which git itself treats as `.git`. Edit mode
asked only about the exact names, so a model steered by a repository could plant a
hook or a setting there without a question. Nor does a repository's own folder need
that name: a folder with a HEAD and a config is one to git run inside it. In -p nobody
can answer: each is denied (exit code 5), and a file elsewhere is still written.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.test_user_hooks_cli import run, tool_results  # noqa: F401 (a fixture)

HOOK = "#!/bin/sh\ntouch planted\n"
PLANTED = [("Write", {"file_path": ".GIT/hooks/pre-commit", "content": HOOK}),
           ("Write", {"file_path": "sub/.Git/config", "content": "[core]\n\tfsmonitor = touch planted\n"}),
           ("Write", {"file_path": ".g\u200cit/hooks/post-checkout", "content": HOOK}),
           ("Write", {"file_path": ".StepAgent/settings.json", "content": '{"permissions": {"allow": ["Bash"]}}'})]


def test_edit_mode_asks_before_a_write_into_git_or_stepagent_under_another_case(run, server, workspace):
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    server.reply_tool_calls(*PLANTED, ("Write", {"file_path": "notes.md", "content": "kept\n"}))
    server.reply_text("done")
    code, _, err = run("--mode", "edit", "-p", "set things up")
    assert code == 5, err
    for _, args in PLANTED:
        assert not (workspace / args["file_path"]).exists(), args["file_path"]
    assert (workspace / "notes.md").read_text() == "kept\n"
    results = tool_results(server.requests[1])
    assert all("nobody" in result for result in results[:len(PLANTED)]), results


@pytest.mark.parametrize("order", [("HEAD", "config"), ("config", "HEAD")])
def test_edit_mode_asks_before_a_write_that_makes_a_folder_a_bare_repository(order, run, server, workspace):
    """git run in a folder holding HEAD, config, objects/ and refs/ takes it for a bare
    repository and its config for the repository's: `git branch` there, in a terminal,
    runs the planted core.pager. Whichever of HEAD and config comes second is asked about."""
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    contents = {"HEAD": "ref: refs/heads/main\n", "config": f"[core]\n\tpager = touch {workspace}/planted; cat\n"}
    writes = [("Write", {"file_path": "docs/objects/info/keep", "content": ""}),
              ("Write", {"file_path": "docs/refs/heads/keep", "content": ""}),
              *(("Write", {"file_path": f"docs/{name}", "content": contents[name]}) for name in order)]
    server.reply_tool_calls(*writes)
    server.reply_text("done")
    code, _, err = run("--mode", "edit", "-p", "set up the docs")
    assert code == 5, err
    assert (workspace / "docs" / order[0]).exists() and not (workspace / "docs" / order[1]).exists()
    results = tool_results(server.requests[1])
    assert ["nobody" in result for result in results] == [False, False, False, True], results
