"""Grep and Glob on a hostile repository: what ripgrep may open, and how much it may keep.

git clone creates the symbolic links a repository carries, ignore files
included, and ripgrep opens every ignore file it meets. With bubblewrap, ripgrep
sees only the searched tree, so a link that leads outside dangles; without it, and
for a tree outside the workspace, a link to anything but a regular file is
refused before ripgrep runs. In every
mode ripgrep's memory, time and kept output are bounded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

import tools.ripgrep
import tools.search
from tools.bash.sandbox.status import detect_layers
from tools.search import make_search_tools

ROOT = Path(__file__).resolve().parent.parent
RETURNS_WITHIN = 30


def layer_configurations() -> list:
    """With bubblewrap's view where it runs here, and without it."""
    found = detect_layers()
    configurations = [pytest.param(replace(found, bwrap=None), id="without-bwrap")]
    if found.bwrap:
        configurations.append(pytest.param(found, id="bwrap-view"))
    return configurations


def search(workspace: Path, layers, name: str, **args) -> tuple[str, bool]:
    """A Glob or Grep call's text and whether it failed, failing the test if it does not return."""
    tool = {t.name: t for t in make_search_tools(workspace, layers=lambda: layers)}[name]
    results = []
    thread = threading.Thread(target=lambda: results.append(tool.handler(args)), daemon=True)
    thread.start()
    thread.join(RETURNS_WITHIN)
    assert not thread.is_alive(), f"{name} blocked"
    return results[0].content, results[0].is_error


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Makes a clone of a repository that carries these links, as `git clone` leaves it."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")

    def make(links: dict[str, str], files: dict[str, str] | None = None) -> Path:
        source = tmp_path / "source"
        (source / "sub").mkdir(parents=True)
        git("init", "-q", cwd=source)
        for name, text in {"README.md": "hello\n", "hidden.txt": "hello\n", "sub/notes.md": "hello\n",
                           **(files or {})}.items():
            (source / name).write_text(text)
        for name, target in links.items():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, source / name)
        git("add", "-A", cwd=source)
        git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "links", cwd=source)
        git("clone", "-q", str(source), str(tmp_path / "clone"), cwd=tmp_path)
        return tmp_path / "clone"
    return make


def blocked_writer(fifo: Path) -> threading.Event:
    """A writer waiting on `fifo` outside the repository; the event is set if a reader woke it."""
    os.mkfifo(fifo)
    woken = threading.Event()

    def write() -> None:
        try:
            with open(fifo, "w") as pipe:
                woken.set()
                pipe.write("*.md\n")
        except OSError:
            pass
    threading.Thread(target=write, daemon=True).start()
    return woken


def release(fifo: Path) -> None:
    os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))


@pytest.mark.parametrize("layers", layer_configurations())
@pytest.mark.parametrize("name,args", [("Grep", {"pattern": "hello"}), ("Glob", {"pattern": "*"}),
                                       ("Grep", {"pattern": "hello", "path": "sub"})])
def test_a_cloned_ignore_link_to_an_outside_fifo_wakes_no_writer(clone, tmp_path, layers, name, args):
    fifo = tmp_path / "outside.fifo"
    workspace = clone({".ignore": str(fifo), "sub/.rgignore": "../../outside.fifo",
                       "sub/code.txt": "../README.md"})
    woken = blocked_writer(fifo)
    try:
        text, failed = search(workspace, layers, name, **args)
        assert not woken.is_set(), "ripgrep opened the FIFO"
    finally:
        release(fifo)
    if layers.bwrap:
        assert "notes.md" in text and not failed
    else:
        assert failed and "outside.fifo" in text


@pytest.mark.parametrize("layers", layer_configurations())
@pytest.mark.parametrize("name,args", [("Grep", {"pattern": "hello"}), ("Glob", {"pattern": "*"})])
@pytest.mark.parametrize("link", [".ignore", ".gitignore"])
def test_a_search_of_the_folder_above_does_not_open_the_fifo_a_cloned_link_leads_to(clone, tmp_path,
                                                                                   layers, name, args,
                                                                                   link):
    """Searched from above, the view holds both the clone's link and the FIFO beside the clone."""
    fifo = tmp_path / "outside.fifo"
    workspace = clone({link: "../outside.fifo"})
    woken = blocked_writer(fifo)
    try:
        text, failed = search(workspace, layers, name, path=str(tmp_path), **args)
        assert not woken.is_set(), "ripgrep opened the FIFO"
    finally:
        release(fifo)
    assert failed and link in text


@pytest.mark.skipif(not detect_layers().bwrap, reason="bubblewrap is not available here")
def test_in_the_view_a_link_to_a_device_or_an_outside_file_dangles(clone, tmp_path):
    (tmp_path / "patterns").write_text("hidden.txt\n")
    workspace = clone({".rgignore": "/dev/zero", ".ignore": str(tmp_path / "patterns"),
                       "sub/.gitignore": "/proc/self/mounts"})
    text, failed = search(workspace, detect_layers(), "Grep", pattern="hello")
    assert not failed and "hidden.txt" in text


@pytest.mark.parametrize("link", ["/dev/zero", "/proc/version", "/proc/self/mounts"])
@pytest.mark.parametrize("where", ["sub/.gitignore", ".git/info/exclude"])
def test_without_bubblewrap_a_link_to_a_device_or_kernel_file_is_refused(clone, link, where):
    workspace = clone({})
    (workspace / where).unlink(missing_ok=True)
    os.symlink(link, workspace / where)
    text, failed = search(workspace, replace(detect_layers(), bwrap=None), "Grep", pattern="hello")
    assert failed and where in text and link.split("/")[1] in text


@pytest.mark.parametrize("layers", layer_configurations())
def test_an_ignore_link_inside_the_tree_still_applies(clone, layers):
    workspace = clone({".gitignore": "sub/patterns"}, {"sub/patterns": "hidden.txt\n"})
    text, failed = search(workspace, layers, "Grep", pattern="hello")
    assert not failed and "README.md" in text and "hidden.txt" not in text


@pytest.mark.parametrize("path", ["/", "/proc", "/dev", "/sys/kernel"])
def test_the_kernel_folders_are_never_searched(tmp_path, monkeypatch, path):
    def walked(tree: Path) -> list[Path]:
        raise AssertionError(f"{tree} was walked for leases before the refusal")
    monkeypatch.setattr(tools.search, "leased_in", walked)
    for name in ("Grep", "Glob"):
        text, failed = search(tmp_path, detect_layers(), name, pattern="x", path=path)
        assert failed and "kernel" in text, text


@pytest.mark.parametrize("layers", layer_configurations())
def test_ripgrep_stops_at_its_memory_limit(tmp_path, monkeypatch, layers):
    monkeypatch.setattr(tools.ripgrep, "MEMORY_BYTES", 256 << 20)
    (tmp_path / "a.txt").write_text("hello\n")
    assert "a.txt" in search(tmp_path, layers, "Grep", pattern="hello")[0], "rg runs at this limit"
    with open(tmp_path / ".rgignore", "wb") as huge:
        huge.truncate(48 << 20)
    text, failed = search(tmp_path, layers, "Grep", pattern="hello")
    assert failed and "memory" in text


def fake_ripgrep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """Glob and Grep run this shell script in place of rg (only without bubblewrap's view)."""
    script = tmp_path / "rg.sh"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    monkeypatch.setattr(tools.ripgrep, "ripgrep", lambda: str(script))


def test_ripgrep_is_stopped_once_enough_lines_are_kept(tmp_path, monkeypatch):
    finished = tmp_path / "finished"
    fake_ripgrep(tmp_path, monkeypatch, f"seq 1 1000000 | sed 's/^/f\\x00/'\ntouch '{finished}'")
    text, failed = search(tmp_path, replace(detect_layers(), bwrap=None), "Grep", pattern="")
    assert not failed and text.startswith("f:1\nf:2\n")
    assert not finished.exists(), "rg ran to its end although the lines kept were enough"


def test_a_huge_line_is_cut(tmp_path, monkeypatch):
    fake_ripgrep(tmp_path, monkeypatch, "printf 'f\\0001:'; head -c 20000000 /dev/zero | tr '\\0' x; echo")
    text, failed = search(tmp_path, replace(detect_layers(), bwrap=None), "Grep", pattern="x")
    assert not failed and text.startswith("f:1:xxx") and len(text) < 10_000


def test_a_huge_file_name_is_left_out_and_said_so(tmp_path, monkeypatch):
    """A name cut short would be checked against the deny rules as another file's."""
    fake_ripgrep(tmp_path, monkeypatch, "head -c 20000000 /dev/zero | tr '\\0' x; printf '\\0001:secret\\n'; "
                 "printf 'f\\0002:kept\\n'; printf 'no-null-at-the-end'")
    text, failed = search(tmp_path, replace(detect_layers(), bwrap=None), "Grep", pattern="x")
    assert not failed and text.startswith("f:2:kept\n") and "secret" not in text and "no-null" not in text
    assert "1 result whose file name is too long" in text and "permission rules" not in text


@pytest.mark.parametrize("layers", layer_configurations())
def test_bytes_that_are_not_utf8_are_replaced(tmp_path, layers):
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9 menu\n")
    text, failed = search(tmp_path, layers, "Grep", pattern="menu")
    assert not failed and "caf\ufffd menu" in text


def test_a_sandbox_that_cannot_start_is_a_failure_not_no_match(tmp_path):
    bwrap = detect_layers().bwrap
    if not bwrap:
        pytest.skip("bubblewrap does not run here")
    (tmp_path / "notes.md").write_text("hello\n")
    found = tools.ripgrep.run_ripgrep(["hello"], tmp_path, [bwrap, "--ro-bind", str(tmp_path / "gone"),
                                                           str(tmp_path / "gone"), "--"])
    assert found.problem.startswith("the search's sandbox could not start") and not found.lines


def test_searches_find_files_from_an_environment_reached_through_a_link(workspace, tmp_path):
    """A clone whose .venv is a link: the view used to bind rg below the link, fail, and read as 'no match'."""
    linked = workspace / ".venv"
    os.symlink(os.path.realpath(sys.prefix), linked)
    (workspace / "notes.md").write_text("hello\n")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "Glob", "arguments": {"pattern": "*.md"}},
                                                  {"name": "Grep", "arguments": {"pattern": "hello"}}]},
                                  {"text": "looked"}]))
    ran = subprocess.run([str(linked / "bin" / "python"), str(ROOT / "index.py"), "--mode", "plan",
                          "--script", str(script), "--output-format", "stream-json", "-p", "look"],
                         cwd=workspace, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    told = [line["message"]["content"] for line in map(json.loads, ran.stdout.splitlines())
            if line["type"] == "message" and line["message"]["role"] == "tool"]
    assert len(told) == 2 and all("notes.md" in result for result in told), told
