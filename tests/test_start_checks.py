"""Where it runs: the endpoint the environment names is the one used, and bad values stop the
start with one line on standard error, before anything runs (no request, no session)."""

from __future__ import annotations

import pytest

import index


def run_index(capsys, monkeypatch, *args: str, **env: str) -> tuple[int, str, str]:
    """index.main in this process; its exit code (a parser error's too), stdout and stderr."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
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
                                 "http://host:99999/v1", "not a url"])
def test_an_invalid_base_url_is_one_line_before_anything_runs(url, workspace, capsys, monkeypatch):
    code, out, err = run_index(capsys, monkeypatch, "-p", "hi", OPENAI_BASE_URL=url)
    assert code == 2 and out == ""
    assert "OPENAI_BASE_URL" in err and len(err.strip().splitlines()) == 1
    assert "cannot connect" not in err
