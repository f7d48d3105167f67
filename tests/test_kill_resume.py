"""kill -9 at random points of a turn, then --continue: the history is valid every time, and no
call that ran is reported as not run.

Each Bash call writes its token to ran.txt before it sleeps, and each Write leaves
its file, so the test knows which calls ran whatever the journal says. The kill
points are of four kinds, one run each (KILL_POINTS): before any tool call, while a
call runs with calls after it in its reply, while the last call runs (its token has
appeared; a seeded random delay more), and after the last call. The killed turn is a
process of its own, forked by the worker's zygote (tests/zygote_client.py), so it reaches
its first call in about 0.1 s rather than after an interpreter's start-up; the --continue
after it runs in the test's process (run_index).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.loop import FAILED, INTERRUPTED, SKIPPED
from session.journal import NOT_STARTED, RESULT_LOST
from session.store import SessionStore
from tests.harness import assert_valid_history, run_index
from tests.zygote_client import Forked, forks, zygote

ROOT = Path(__file__).resolve().parent.parent
INDEX = str(ROOT / "index.py")
SEED = 42
CALL_SECONDS = 0.15  # how long each Bash call runs: the window a kill "while a call runs" lands in
NOT_RUN = {NOT_STARTED, INTERRUPTED, SKIPPED, FAILED}


def bash(token: str) -> dict:
    return {"name": "Bash", "arguments": {"command": f"echo {token} >> ran.txt && sleep {CALL_SECONDS}"}}


def write(token: str) -> dict:
    return {"name": "Write", "arguments": {"file_path": f"{token}.txt", "content": token}}


SCRIPT = [{"text": "", "tool_calls": [bash("a1"), write("w1"), bash("a2")]},
          {"text": "", "tool_calls": [bash("b1"), bash("b2")]},
          {"text": "all done"}]
TOKENS = ["a1", "a2", "b1", "b2"]


def ran(workspace: Path, token: str) -> bool:
    if token.startswith("w"):
        return (workspace / f"{token}.txt").exists()
    done = workspace / "ran.txt"
    return done.exists() and token in done.read_text().split()


def token_of(arguments: dict) -> str:
    """The token a scripted call leaves behind when it runs."""
    if "command" in arguments:
        return arguments["command"].split()[1]
    return arguments["file_path"].removesuffix(".txt")


def wait_for(condition, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out waiting for the turn to get there"
        time.sleep(0.02)


def start_turn(workspace: Path, env: dict) -> subprocess.Popen | Forked:
    """`python index.py` running the scripted turn headless, forked by the zygote where it can be."""
    argv = ["--script", "script.json", "--mode", "yolo", "-p", "go"]
    if not forks(env):
        return subprocess.Popen([sys.executable, INDEX, *argv], cwd=workspace, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    null = os.open(os.devnull, os.O_RDWR)
    try:
        return zygote().fork(INDEX, argv, env, str(workspace), stdio=[null, null, null])[0]
    finally:
        os.close(null)


def kill_at(workspace: Path, env: dict, point: int, delay: float) -> None:
    """Start a headless turn and kill -9 it `delay` seconds after call `point` began (0: after start)."""
    (workspace / "script.json").write_text(json.dumps(SCRIPT))
    process = start_turn(workspace, env)
    if point:
        wait_for(lambda: ran(workspace, TOKENS[point - 1]) or process.poll() is not None)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()


def kill_points(rng: random.Random) -> dict[str, tuple[int, float]]:
    """One kill point of each kind: the call it waits for (0: none) and the delay after."""
    return {"before any tool call": (0, rng.uniform(0.0, 0.08)),
            "while a call runs, calls after it in its reply": (1, rng.uniform(0.0, 1.2 * CALL_SECONDS)),
            "while the last call runs": (len(TOKENS), rng.uniform(0.0, 1.2 * CALL_SECONDS)),
            "after the last call": (len(TOKENS), CALL_SECONDS + 0.5)}


@pytest.mark.slow
def test_kill_9_anywhere_in_a_turn_then_continue(tmp_path, capsys, monkeypatch):
    for number, (kind, (point, delay)) in enumerate(kill_points(random.Random(SEED)).items()):
        workspace = tmp_path / f"run{number}"
        workspace.mkdir()
        home = str(tmp_path / f"home{number}")
        kill_at(workspace, {**os.environ, "STEPAGENT_HOME": home}, point, delay)
        (workspace / "after.json").write_text('[{"text": "resumed"}]')
        monkeypatch.chdir(workspace)
        code, out, err = run_index(capsys, monkeypatch, "--script", "after.json", "--continue", "-p", "after",
                                   STEPAGENT_HOME=home)
        where = f"kill {kind} (call {point} + {delay:.2f}s)"
        if code == 2 and "no earlier session" in err:
            assert not any(ran(workspace, token) for token in TOKENS), where
            continue
        assert code == 0 and out.strip() == "resumed", (where, err)
        store = SessionStore(Path(home) / "sessions.db")
        (info,) = store.sessions(workspace.resolve())
        messages = [e.payload for e in store.entries(info.id) if e.kind == "message"]
        assert_valid_history(messages)
        results = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
        calls = [(token_of(json.loads(c["function"]["arguments"])), results[c["id"]])
                 for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        for number, (token, result) in enumerate(calls):
            if result in NOT_RUN:
                assert not ran(workspace, token), f"{where}: {token} ran but is reported not run"
            if any(ran(workspace, later) for later, _ in calls[number + 1:]):
                assert result not in NOT_RUN | {RESULT_LOST}, f"{where}: the result of {token} was lost"
        assert messages[-1] == {"role": "assistant", "content": "resumed"}
