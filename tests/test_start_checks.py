"""Where it runs: the endpoint the environment names is the one used, and bad values stop the
start with one line on standard error, before anything runs (no request, no session)."""

from __future__ import annotations

import io
import sys

import pytest

import index
from tests.product_run import run_product


class Keyboard(io.StringIO):
    """Standard input as a terminal's: a REPL start gets as far as it would at one."""

    def isatty(self) -> bool:
        return True


def run_index(capsys, monkeypatch, *args: str, **env: str) -> tuple[int, str, str]:
    """index.main in this process, its standard input a terminal; its exit code (a parser
    error's too), stdout and stderr."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", Keyboard())
    try:
        code = index.main(list(args))
    except SystemExit as exit:
        code = exit.code
    shown = capsys.readouterr()
    return code, shown.out, shown.err


def lan_url(server) -> str:
    """The fake server under a host name that is not this machine's by its look (127.0.0.1 in
    decimal), as a server elsewhere on the LAN is."""
    return server.url.replace("127.0.0.1", "2130706433")


def test_a_base_url_without_a_key_is_used(server, workspace, capsys, monkeypatch):
    server.reply_text("Hello from the LAN.")
    code, out, err = run_index(capsys, monkeypatch, "-p", "hi", OPENAI_BASE_URL=lan_url(server))
    assert code == 0, err
    assert out.strip() == "Hello from the LAN." and "lesson" not in err
    assert server.requests


def test_doctor_names_a_base_url_without_a_key(server, workspace, capsys, monkeypatch):
    server.reply_text("OK")
    code, out, err = run_index(capsys, monkeypatch, "--doctor", OPENAI_BASE_URL=lan_url(server))
    shown = " ".join(out.split())
    assert code == 0, err
    assert "2130706433" in shown and "no endpoint configured" not in shown


@pytest.mark.parametrize("url", ["localhost:11434/v1", "http://", "ftp://example.com/v1",
                                 "http://host:99999/v1", "not a url", "http://local\nhost:1/v1",
                                 "http://localhost:1/v1\n", "http://localhost:1/\tv1"])
def test_an_invalid_base_url_is_one_line_before_anything_runs(url, workspace, capsys, monkeypatch):
    code, out, err = run_index(capsys, monkeypatch, "-p", "hi", OPENAI_BASE_URL=url)
    assert code == 2 and out == ""
    assert "OPENAI_BASE_URL" in err and len(err.strip().splitlines()) == 1
    assert "cannot connect" not in err


DEEP_SCRIPT = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("args, said", [
    (["--context-window", "0"], "--context-window"), (["--context-window", "-5"], "--context-window"),
    (["--context-window", "1e23"], "--context-window"), (["--model", ""], "--model"),
    (["--record", "missing/rec.json"], "missing"), (["--script", "deep.json"], "nested too deep"),
    (["--timeout", "0"], "--timeout")])
def test_a_bad_value_is_one_line_on_stderr_before_anything_runs(args, said, server, workspace,
                                                                 capsys, monkeypatch):
    (workspace / "deep.json").write_text(DEEP_SCRIPT)
    for run in (["-p", "hi"], []):
        code, out, err = run_index(capsys, monkeypatch, *args, *run, OPENAI_BASE_URL=server.url)
        assert code == 2 and out == ""
        assert said in err and len(err.strip().splitlines()) == 1, err
    assert server.requests == [] and not (workspace.parent / "home" / "sessions.db").exists()


def test_the_lesson_has_its_own_flag_whatever_the_environment(workspace, capsys, monkeypatch):
    code, out, err = run_index(capsys, monkeypatch, "--lesson", "-p", "add a greeting file",
                               OPENAI_API_KEY="sk-real", OPENAI_BASE_URL="http://192.0.2.1/v1")
    assert code == 4 and "--lesson: running the offline lesson model" in err
    code, out, err = run_index(capsys, monkeypatch, "--lesson", "--doctor",
                               OPENAI_API_KEY="sk-real", OPENAI_BASE_URL="http://192.0.2.1/v1")
    shown = " ".join(out.split())
    assert code == 0 and "OPENAI_API_KEY alone for OpenAI" in shown and "cannot connect" not in shown


def test_p_users_set_the_deadline_of_a_request(server, workspace, capsys, monkeypatch):
    for _ in range(5):
        server.hang()
    code, out, err = run_index(capsys, monkeypatch, "--timeout", "0.5", "-p", "hi",
                               OPENAI_BASE_URL=server.url)
    assert code == 1 and out == ""
    assert "within 0.5 s" in " ".join(err.split()) and len(server.requests) == 1


@pytest.mark.parametrize("args, said", [
    (["--resume", "nosuch"], "--resume nosuch: no session of this workspace starts with 'nosuch'"),
    (["--continue"], "--continue: no earlier session in this workspace to continue"),
    (["--try-calls", "calls.json"], "--try-calls calls.json: not valid JSON"),
    (["--try-calls", "missing.json"], "--try-calls missing.json: cannot read it"),
    (["--try-calls", "empty.json"], "--try-calls empty.json: holds no tool calls")])
def test_a_flag_naming_nothing_usable_is_said_first_and_alone(args, said, workspace, capsys,
                                                              monkeypatch):
    (workspace / "calls.json").write_text('{"name": "Bash", "arguments": {')
    (workspace / "empty.json").write_text("[]")
    for run in (["-p", "hi"], []):
        code, out, err = run_index(capsys, monkeypatch, *args, *run)
        assert code == 2 and out == ""
        assert err.splitlines() == [err.splitlines()[0]] and err.startswith(f"stepagent: {said}"), err


def test_a_repl_started_from_a_pipe_is_refused_in_one_line_pointing_to_p(workspace):
    done = run_product(cwd=workspace, input="/plan add a greeting file\n")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "-p -" in done.stderr, done.stderr
    assert not (workspace.parent / "home" / "sessions.db").exists()
    listed = run_product("-p", "-", cwd=workspace, input="add a greeting file\n")
    assert listed.returncode == 4 and "Plan" in listed.stdout, "the pipe works with -p -"


@pytest.mark.parametrize("args", [["--resume", "-p", "hi"], ["-p", "hi", "--resume"],
                                  ["--mode", "plan", "--resume", "--", "hi"]])
def test_a_prompt_with_a_bare_resume_is_refused_rather_than_dropped(args, server, workspace,
                                                                   capsys, monkeypatch):
    code, out, err = run_index(capsys, monkeypatch, *args, OPENAI_BASE_URL=server.url)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--resume ID" in err and "--continue" in err
    assert server.requests == []
