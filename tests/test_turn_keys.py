"""The reader of keys typed during a turn, on a pseudo-terminal of its own (ui/turn_keys.py),
and the session store it writes through from its thread."""

from __future__ import annotations

import os
import signal
import termios
import threading
import time
from pathlib import Path

import pytest
from prompt_toolkit.input.typeahead import get_typeahead
from prompt_toolkit.input.vt100 import Vt100Input
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from session.store import SessionStore
from state import AppState
from ui.turn_keys import STAYS_PLANNING, TurnKeys, as_draft


def presses(text: str) -> list[KeyPress]:
    keys = {"\r": Keys.ControlM, "\x7f": Keys.ControlH}
    return [KeyPress(keys.get(character, character), character) for character in text]


def soon(condition) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, "the reader never got there"
        time.sleep(0.01)


@pytest.fixture
def keyboard():
    """A TurnKeys reading a pseudo-terminal's far end, and a way to type at it."""
    main, far = os.openpty()
    terminal = Vt100Input(os.fdopen(far, "r", closefd=False))
    said: list[str] = []
    keys = TurnKeys(AppState(), said.append, terminal)
    yield keys, (lambda text: os.write(main, text.encode())), said, far
    keys.finish(ended=True)
    get_typeahead(terminal)
    os.close(main)
    os.close(far)


def test_the_draft_is_what_the_prompt_line_would_hold():
    keys = TurnKeys(AppState(), held=presses("helo\x7flo\rnext"))
    assert keys.draft() == "hello⏎next"
    keys.held = presses("x" * 100)
    assert keys.draft() == "…" + "x" * 59


def test_a_cancelled_turn_makes_each_enter_a_new_line():
    drafted = as_draft(presses("a\rb"))
    assert [press.key for press in drafted] == ["a", Keys.Escape, Keys.ControlM, "b"]


def test_keys_are_held_and_a_question_drops_them(keyboard):
    keys, typed, _, _ = keyboard
    keys.start()
    typed("y\r")
    soon(lambda: len(keys.held) == 2)
    with keys.paused() as dropped:
        assert dropped == 2 and keys.held == []
        typed("n")  # typed while the question waits: the question's, not held
    keys.finish(ended=True)
    assert keys.held == []


def test_shift_tab_cycles_the_mode_at_once_and_keys_go_to_the_next_prompt(keyboard):
    keys, typed, _, far = keyboard
    cooked = termios.tcgetattr(far)
    keys.start()
    assert not termios.tcgetattr(far)[3] & termios.ECHO
    typed("ok\x1b[Z")
    soon(lambda: keys.state.mode_label == "edit")
    keys.finish(ended=True)
    assert termios.tcgetattr(far) == cooked
    assert [press.key for press in get_typeahead(keys.terminal)] == ["o", "k"]


def test_shift_tab_while_planning_stays_in_plan_mode_and_says_so(keyboard):
    keys, typed, said, _ = keyboard
    keys.state.enter_plan_mode("test")
    keys.start()
    typed("\x1b[Z")
    soon(lambda: said)
    assert said == [STAYS_PLANNING] and keys.state.plan_mode


def test_threads_writing_to_one_store_take_turns(tmp_path: Path):
    store = SessionStore(tmp_path / "sessions.db")
    store.create_session("sess_1", tmp_path)
    failures: list[BaseException] = []

    def write(kind: str) -> None:
        try:
            for number in range(150):
                store.append("sess_1", kind, {"n": number})
        except BaseException as failure:
            failures.append(failure)
    threads = [threading.Thread(target=write, args=(kind,)) for kind in ("mode", "hook")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(store.entries("sess_1")) == 300


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the thread's mask in /proc")
def test_the_reader_leaves_ctrl_c_to_the_main_thread(keyboard):
    keys = keyboard[0]
    keys.start()
    status = Path(f"/proc/self/task/{keys._reader.native_id}/status").read_text()
    blocked = int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)
    assert blocked & 1 << (signal.SIGINT - 1), "a Ctrl-C the reader took would not wake the main thread"
