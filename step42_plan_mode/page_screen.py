"""The README's picture of a session page: the offline lesson played through, exported, drawn by Chromium.

The lesson runs as a learner plays it, wired as the product wires it: the
lesson model, the journal writing to a session store, and answers given in
order: feedback on the first plan, `n` on the revised one, a new prompt, `y`
on the third, and yes to the Write. The page is what `/export --html` writes
from that store; the temporary workspace's path is shown as ~/lesson so the
picture does not change from run to run. Headless Chromium draws it
(step42_plan_mode/browser.py). The PNG carries the SHA-256 of the page it was
drawn from in a text chunk, so tests/test_screens.py can tell a stale picture
without a browser, and with one compares the pixels too. After the page
changes, draw it again:

    .venv/bin/python -m step42_plan_mode.page_screen
"""

from __future__ import annotations

import hashlib
import struct
import sys
import tempfile
import zlib
from pathlib import Path

from agent.assemble import assemble
from ui.product import product_layers
from session.journal import Journal
from session.store import SessionStore
from state import AppState
from step42_plan_mode.browser import Browser
from step42_plan_mode.lesson_model import load_lesson
from ui.plan_review import plan_review
from ui.export import export_page

PICTURE = Path(__file__).resolve().parent / "screens" / "session-page.png"
SESSION_ID = "sess_0000lesson0000"
SHOWN_WORKSPACE = "~/lesson"
PLAN_ANSWERS = ["please also greet in French", "n", "y"]
PROMPTS = ["add a greeting file", "keep it to two lines"]
SIZE = (1000, 1250)
DIGEST_KEY = b"stepagent-page-sha256"


def lesson_page() -> str:
    """The page of the lesson played through, as /export --html writes it."""
    answers = iter(PLAN_ANSWERS)
    with tempfile.TemporaryDirectory() as folder:
        workspace, home = Path(folder) / "lesson", Path(folder) / "home"
        workspace.mkdir()
        store = SessionStore(home / "sessions.db")
        state = AppState(session_id=SESSION_ID)
        state.events.subscribe(Journal(store, state, workspace, warn=print).on_event)
        agent = assemble(workspace, state, load_lesson(), lambda plan: plan_review(next(answers)),
                         lambda request: True, product_layers(home, store))
        for prompt in PROMPTS:
            agent.run_turn(prompt)
        page = export_page(SESSION_ID, store.entries(SESSION_ID), workspace, store.revisions(SESSION_ID))
        store.close()
        return page.replace(str(workspace), SHOWN_WORKSPACE)


def digest(page: str) -> str:
    """The SHA-256 of a page, as the picture records it."""
    return hashlib.sha256(page.encode()).hexdigest()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def with_digest(png: bytes, page_digest: str) -> bytes:
    """The PNG with a tEXt chunk naming the page it shows, right after its header chunk."""
    header_end = 8 + 8 + 13 + 4
    return png[:header_end] + _chunk(b"tEXt", DIGEST_KEY + b"\0" + page_digest.encode()) + png[header_end:]


def recorded_digest(png: bytes) -> str:
    """The page digest a picture carries, '' when it has none."""
    at = 8
    while at + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[at:at + 8])
        data = png[at + 8:at + 8 + length]
        if kind == b"tEXt" and data.startswith(DIGEST_KEY + b"\0"):
            return data[len(DIGEST_KEY) + 1:].decode()
        at += 12 + length
    return ""


def draw(page: str, browser: Browser) -> bytes:
    """The browser's picture of the page (top of it, SIZE), carrying the page's digest."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "page.html"
        path.write_text(page, encoding="utf-8")
        browser.open(path)
        return with_digest(browser.screenshot(), digest(page))


def main(argv: list[str] | None = None) -> int:
    """Write the picture to the file given, or to step42_plan_mode/screens/session-page.png."""
    target = Path((argv or sys.argv[1:] or [str(PICTURE)])[0])
    with Browser(*SIZE) as browser:
        target.write_bytes(draw(lesson_page(), browser))
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
