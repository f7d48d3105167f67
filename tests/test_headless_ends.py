"""How a -p run ends when its answer is not whole, or nobody reads it.

A reader that goes away (`--output-format stream-json … | head -1`) ends the run
quietly, as Unix tools end on SIGPIPE; a closed stdout is no internal error; an
answer the server cut at its length limit or filtered is reported as such, with
exit code 1, not taken for a whole answer.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.harness import run_index
from ui.headless import write_answer

ROOT = Path(__file__).resolve().parent.parent
# the call lasts until the test has closed the output's reading end (and made `gone`)
SLOW_TOOL = [{"tool_calls": [{"name": "Bash", "arguments": {
    "command": "until [ -e gone ]; do sleep 0.02; done"}}]}, {"text": "done"}]


def command(*args: str) -> list[str]:
    return [sys.executable, str(ROOT / "index.py"), *args]


def test_a_reader_that_goes_away_ends_the_run_quietly(workspace):
    (workspace / "s.json").write_text(json.dumps(SLOW_TOOL))
    run = subprocess.Popen(command("--script", "s.json", "--mode", "yolo", "-p", "hi",
                                   "--output-format", "stream-json"), cwd=workspace,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = json.loads(run.stdout.readline())
    run.stdout.close()  # what `head -1` does once it has its line
    (workspace / "gone").touch()
    stderr = run.communicate(timeout=60)[1]
    assert first["type"] == "message"
    assert run.returncode == 141
    assert "internal error" not in stderr and "Broken pipe" not in stderr and "Exception" not in stderr


def test_a_closed_stdout_is_no_internal_error(workspace):
    (workspace / "s.json").write_text(json.dumps([{"text": "done"}]))
    done = subprocess.run(command("--script", "s.json", "-p", "hi"), cwd=workspace, text=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr


@pytest.mark.parametrize("reason", ["length", "content_filter"])
def test_an_answer_cut_or_filtered_is_not_taken_for_complete(reason, server, workspace, capsys,
                                                             monkeypatch):
    server.reply(text=["The first half of"], finish=reason)
    code, out, err = run_index(capsys, monkeypatch, "-p", "hi", "--output-format", "json",
                               OPENAI_BASE_URL=server.url, COLUMNS="1000")
    result = json.loads(out)
    assert code == 1 and result["exit_code"] == 1
    assert result["ending"] == "cut" and result["text"] == "The first half of"
    assert reason in result["error"] and reason in err and "incomplete" in err



def test_a_reader_that_leaves_a_long_text_answer_ends_the_run_with_141_also_unbuffered(workspace):
    (workspace / "s.json").write_text(json.dumps([{"text": "\n".join(f"line {n}" for n in range(50_000))}]))
    run = subprocess.Popen(command("--script", "s.json", "-p", "hi"), cwd=workspace,
                           env={**os.environ, "PYTHONUNBUFFERED": "1"},
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.stdout.readline() == "line 0\n"
    run.stdout.close()  # `| head -1`, while the answer is still being written
    stderr = run.communicate(timeout=60)[1]
    assert run.returncode == 141, stderr
    assert "Broken pipe" not in stderr and "Exception" not in stderr


def test_an_unbuffered_stdout_gets_the_whole_answer_however_slowly_it_is_read():
    read_end, write_end = os.pipe()
    out = io.TextIOWrapper(io.FileIO(write_end, "wb"), write_through=True)  # what python -u makes
    answer = "\n".join(f"line {n}" for n in range(50_000))
    received = []
    reader = threading.Thread(target=lambda: received.append(_read_slowly(read_end)))
    reader.start()
    before = signal.signal(signal.SIGALRM, lambda *_: None)  # a signal cuts a write short
    signal.setitimer(signal.ITIMER_REAL, 0.002, 0.002)
    try:
        write_answer(answer, out)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    out.close()
    reader.join(timeout=30)
    assert received == [answer + "\n"]


def _read_slowly(fd: int) -> str:
    chunks = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
        time.sleep(0.001)
    os.close(fd)
    return b"".join(chunks).decode()
