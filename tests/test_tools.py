"""The file, search and shell tools, called as the model calls them."""

from __future__ import annotations

import subprocess

import pytest

from tests.harness import Session, call, turn
from tools.workspace import make_own_folder


def run_calls(workspace, *calls, mode="yolo"):
    session = Session(workspace, [turn("", *calls), turn("ok")], mode=mode)
    session.run()
    return session.tool_results()


def test_read_numbers_lines_and_pages(workspace):
    (workspace / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    page, = run_calls(workspace, call("Read", file_path="f.txt", offset=3, limit=2))
    assert "     3\tline 3" in page and "line 5" not in page and "offset=5" in page


def test_write_and_edit_change_files_atomically(workspace):
    results = run_calls(workspace, call("Write", file_path="d/a.txt", content="one two two"),
                        call("Edit", file_path="d/a.txt", old_string="two", new_string="2"),
                        call("Edit", file_path="d/a.txt", old_string="two", new_string="2",
                             replace_all=True))
    assert "occurs 2 times" in results[1]
    assert (workspace / "d/a.txt").read_text() == "one 2 2"
    assert [p.name for p in (workspace / "d").iterdir()] == ["a.txt"], "no temporary file left"


def test_write_and_edit_refuse_paths_outside_the_workspace(workspace, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (workspace / "link").symlink_to(tmp_path)
    results = run_calls(workspace, call("Write", file_path=str(outside), content="x"),
                        call("Write", file_path="../outside.txt", content="x"),
                        call("Edit", file_path="link/outside.txt", old_string="keep", new_string="x"))
    assert all("outside the workspace" in r for r in results)
    assert outside.read_text() == "keep"


@pytest.mark.parametrize("repository", [True, False], ids=["git", "no-git"])
def test_glob_and_grep_respect_gitignore(workspace, repository):
    """Outside a git repository too, and so stepagent's own folder (it ignores itself) is left out."""
    if repository:
        subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (make_own_folder(workspace) / "plan.py").write_text("needle = 'a plan'\n")
    (workspace / "src").mkdir()
    (workspace / "src/app.py").write_text("def main():\n    return 'needle'\n")
    (workspace / "build").mkdir()
    (workspace / "build/app.py").write_text("needle = 1\n")
    (workspace / "src/secret.py").write_text("needle = 'hidden'\n")
    (workspace / ".gitignore").write_text("build/\nsecret.py\n")
    found, deep, matches, in_python, filtered = run_calls(
        workspace, call("Glob", pattern="*.py"), call("Glob", pattern="**/*.py"),
        call("Grep", pattern="needle"), call("Grep", pattern="needle", glob="**/*.py"),
        call("Grep", pattern="needle", glob="*.txt"))
    assert found.splitlines() == deep.splitlines() == ["src/app.py"]
    assert matches.splitlines() == in_python.splitlines() == ["src/app.py:2:    return 'needle'"]
    assert filtered == "No matching lines found."


def test_grep_reports_a_bad_pattern_as_an_error(workspace):
    result, = run_calls(workspace, call("Grep", pattern="("))
    assert result.startswith("Grep failed")


def test_bash_returns_output_and_exit_code(workspace):
    ok, failed = run_calls(workspace, call("Bash", command="echo hi"), call("Bash", command="exit 3"))
    assert ok == "hi\n[exit code 0]"
    assert failed.endswith("[exit code 3]")


def test_bash_names_itself_bash_in_what_the_model_reads(workspace):
    """The shell is found once, by path, yet its $0 and its error messages still say `bash`."""
    result, = run_calls(workspace, call("Bash", command="echo $0; no-such-command-here"))
    assert result == "bash\nbash: line 1: no-such-command-here: command not found\n[exit code 127]"


def test_bash_timeout_stops_the_command(workspace):
    result, = run_calls(workspace, call("Bash", command="sleep 5", timeout=1))
    assert "timed out after 1 s" in result


def test_bash_output_that_is_not_utf8_is_shown_not_fatal(workspace):
    result, = run_calls(workspace, call("Bash", command="printf 'ok \\377\\n'"))
    assert result.startswith("ok �") and result.endswith("[exit code 0]")


def test_bash_output_is_capped_and_a_flood_is_stopped(workspace):
    long, flood = run_calls(workspace, call("Bash", command="seq 100000"),
                            call("Bash", command="cat /dev/zero"))
    assert "output cut at 30000 of 588895 characters" in long and long.endswith("[exit code 0]")
    assert flood.endswith("[stopped: it printed more than 10 MB]")


def test_git_hooks_still_run_outside_plan_mode(workspace):
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ntouch hook-ran.txt\n")
    hook.chmod(0o755)
    result, = run_calls(workspace, call("Bash", command="git -c user.email=a@b -c user.name=n "
                                                    "commit -q --allow-empty -m x"))
    assert result.endswith("[exit code 0]")
    assert (workspace / "hook-ran.txt").exists(), "the user's own hooks are not the agent's to switch off"
