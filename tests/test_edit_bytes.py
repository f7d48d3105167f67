"""Edit changes a file's bytes only where its text changed, and the diff shown is of those bytes.

Read shows every line end as "\\n", so the model's old_string and new_string speak that
text; the file keeps its own ends (LF, CRLF, a lone CR, a mix) and its byte order mark, and
a file that is not UTF-8 is refused in one line rather than transcoded. Each case is a real `-p` run of stepagent with a scripted model
(yolo, so nothing asks), compared byte for byte with what the file must hold, with the diff
printed under the call (a diff's lines end at LF, so a lone CR shows inside its line, as ␍).
The diff asked about in build mode is the one the call makes (the preview replaces with the
function the Edit does, the line-ends layer's `replaced`), in the harness and in the REPL.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from agent.events import ToolFinished
from tests.harness import Session, turn
from tests.terminal import Terminal
from tests.product_run import run_product
from tools.line_ends import LINE_END, replaced

CRLF = b"one\r\ntwo\r\nthree\r\n"
MIXED = b"unix\nwindows\r\nold mac\rlast"
LATIN_1 = "caf\u00e9 = 1\r\nprice = 2\r\n".encode("latin-1")


def edit(old: str, new: str, **more) -> dict:
    return {"name": "Edit", "arguments": {"file_path": "f.txt", "old_string": old, "new_string": new, **more}}


def run_edit(workspace: Path, before: bytes, call: dict) -> tuple[bytes, str]:
    """The file's bytes after one scripted call in a real `-p` run, and what the run printed under it."""
    (workspace / "f.txt").write_bytes(before)
    (workspace / "s.json").write_text(json.dumps([{"tool_calls": [call]}, {"text": "done"}]))
    done = run_product("--script", "s.json", "--mode", "yolo", "-p", "go", cwd=workspace,
                       env={**os.environ, "COLUMNS": "1000"})
    assert done.returncode == 0, done.stderr
    return (workspace / "f.txt").read_bytes(), done.stderr.split("⎿", 1)[-1]


CHANGES = {
    "lf": (b"one\ntwo\n", edit("two", "TWO"), b"one\nTWO\n", "-two +TWO"),
    "crlf, one line": (CRLF, edit("two", "TWO"), b"one\r\nTWO\r\nthree\r\n", "-two +TWO"),
    "crlf, a line added after context": (CRLF, edit("one\ntwo\nthree", "one\ntwo\n2.5\nthree"),
                                         b"one\r\ntwo\r\n2.5\r\nthree\r\n", "+2.5"),
    "crlf, a line added inside a line": (CRLF, edit("two", "two\n2.5"), b"one\r\ntwo\r\n2.5\r\nthree\r\n",
                                         "+2.5"),
    "crlf, the model's own crlf": (CRLF, edit("one\r\ntwo", "one\r\n1.5\r\ntwo"),
                                   b"one\r\n1.5\r\ntwo\r\nthree\r\n", "+1.5"),
    "crlf, lines removed": (CRLF, edit("one\ntwo\n", ""), b"three\r\n", "-one -two"),
    "lone cr": (b"a\rb\rc", edit("b", "B"), b"a\rB\rc", "-a␍b␍c +a␍B␍c"),
    "lone cr, then an lf after a line emptied": (b"a\rb\nc", edit("b", ""), b"a\r\r\nc", "-a␍b +a␍"),
    "mixed, an lf line": (MIXED, edit("unix", "UNIX"), b"UNIX\nwindows\r\nold mac\rlast", "-unix +UNIX"),
    "mixed, a crlf line": (MIXED, edit("windows", "WINDOWS"), b"unix\nWINDOWS\r\nold mac\rlast",
                           "-windows +WINDOWS"),
    "mixed, a line added after a lone cr": (MIXED, edit("old mac\nlast", "old mac\nnew\nlast"),
                                            b"unix\nwindows\r\nold mac\rnew\rlast",
                                            "-old mac␍last +old mac␍new␍last"),
    "mixed, a line added among mixed context": (MIXED, edit("unix\nwindows\nold mac", "unix\nwindows\nnew\nold mac"),
                                                b"unix\nwindows\r\nnew\r\nold mac\rlast", "+new"),
    "mixed, every line": (MIXED, edit("n", "N", replace_all=True), b"uNix\nwiNdows\r\nold mac\rlast",
                          "-unix -windows +uNix +wiNdows"),
    "utf-8 with bom": (b"\xef\xbb\xbfhead\r\nbody\r\n", edit("body", "BODY"), b"\xef\xbb\xbfhead\r\nBODY\r\n",
                       "-body +BODY"),
    "utf-8 with bom, the bom copied": (b"\xef\xbb\xbfhead\r\nbody\r\n", edit("\ufeffhead", "HEAD"),
                                       b"\xef\xbb\xbfHEAD\r\nbody\r\n", "-\ufeffhead +\ufeffHEAD"),
}


@pytest.mark.parametrize("case", sorted(CHANGES))
def test_only_the_changed_text_changes_bytes_and_the_diff_shows_it(case, workspace):
    before, call, expected, diff = CHANGES[case]
    after, printed = run_edit(workspace, before, call)
    assert after == expected
    changed = [line.strip() for line in printed.split("\n") if line.strip()[:1] in ("+", "-")]
    assert " ".join(changed) == diff, printed


REFUSED = {  # a file that is not UTF-8 is not transcoded: its bytes stay as they are
    "latin-1": (LATIN_1, edit("price = 2", "price = 3"), "f.txt is not UTF-8 text"),
    "a lone surrogate": (CRLF, edit("two", "t\ud800o"), "The edit holds a lone surrogate (U+D800)"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_text_the_file_cannot_hold_is_refused_in_one_line_and_nothing_changes(case, workspace):
    before, call, reason = REFUSED[case]
    after, printed = run_edit(workspace, before, call)
    assert after == before
    assert reason in printed and len(printed.strip().split("\n")) == 1, printed


def finished_changes(session: Session) -> list[str]:
    changes: list[str] = []
    session.state.events.subscribe(lambda event: changes.append(event.change)
                                   if isinstance(event, ToolFinished) else None)
    return changes


def test_the_diff_asked_about_is_the_change_made(workspace):
    """Build mode shows the diff before asking; after the yes the file holds that change, shown again."""
    (workspace / "f.txt").write_bytes(CRLF)
    session = Session(workspace, [turn("", edit("two", "TWO")), turn("done")], permission_answers=[True])
    changes = finished_changes(session)
    session.run()
    preview = session.permission_requests[0].preview
    assert (preview.added, preview.removed) == (1, 1) and "-two\r\n+TWO\r\n" in preview.text
    assert (workspace / "f.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"
    assert changes == [preview.text]


def test_the_preview_says_an_edit_will_fail_for_the_reason_the_call_gives(workspace):
    (workspace / "f.txt").write_bytes(b"x = 1\nx = 1\n")
    session = Session(workspace, [turn("", edit("x = 1", "x = 2")), turn("done")], permission_answers=[True])
    session.run()
    assert "holds old_string 2 times" in session.permission_requests[0].preview.note
    assert (workspace / "f.txt").read_bytes() == b"x = 1\nx = 1\n"


def test_the_repl_shows_the_diff_of_the_bytes_and_writes_them(workspace, tmp_path):
    (workspace / "f.txt").write_bytes(CRLF)
    (tmp_path / "s.json").write_text(json.dumps({"turns": [
        {"tool_calls": [edit("one\ntwo", "one\ntwo\n2.5")]}, {"text": "all done"}]}))
    terminal = Terminal.start(workspace, "--script", str(tmp_path / "s.json"))
    try:
        terminal.expect("›")
        terminal.sendline("add a line")
        for shown in ["● Edit(f.txt)", " two", "+2.5", " three", r"Allow? [y/"]:
            terminal.expect_text(shown)
        terminal.sendline("y")
        terminal.expect_text("Edited f.txt: +1 −0")
        terminal.expect_text("all done")
        assert (workspace / "f.txt").read_bytes() == b"one\r\ntwo\r\n2.5\r\nthree\r\n"
    finally:
        terminal.close()


ENDS = st.sampled_from(["\n", "\r\n", "\r"])
END = r"(?:\r\n|\r(?!\n)|(?<!\r)\n)"  # one end each: a CRLF is never a CR and an LF
WORDS = st.text("ab ", max_size=3)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(WORDS, ENDS), min_size=1, max_size=6), st.data())
def test_the_text_read_changes_as_asked_and_the_bytes_around_it_stay(lines, data):
    raw = "".join(line + end for line, end in lines)
    text = LINE_END.sub("\n", raw)
    start = data.draw(st.integers(0, len(text)))
    old = text[start:data.draw(st.integers(start, len(text)))]
    new = data.draw(st.text("ab\n", max_size=8))
    after, count = replaced(raw, old, new, every=False)
    assert count == (text.count(old) if old else 0)
    if count:
        assert LINE_END.sub("\n", after) == text.replace(old, new, 1)
        first = re.search(END.join(map(re.escape, old.split("\n"))), raw)
        assert after.startswith(raw[:first.start()]) and after.endswith(raw[first.end():])
        if old.count("\n") == new.count("\n") and not re.search(r"\r(?!\n)", raw):
            assert LINE_END.findall(after) == LINE_END.findall(raw)
