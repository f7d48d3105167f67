"""The session page in a real browser (headless Chromium): it renders with no console error, its own
script runs, a hostile session's markup never runs, no request leaves the page, and it prints."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from session.store import SessionStore
from step42_plan_mode.browser import Browser
from tests.page_kit import MARKER, attacks, hostile_session, lesson_session, page_of

pytestmark = pytest.mark.skipif(shutil.which("chromium") is None,
                                reason="chromium is not installed (.ci/run installs it)")
SETTLE = "new Promise(done => setTimeout(done, 300))"  # for a refresh or a late load to happen


@pytest.fixture
def browser(chromium: Browser) -> Browser:
    """The suite's one Chromium (tests/conftest.py)."""
    return chromium


class Loopback:
    """A web server on a free loopback port that notes every request it gets."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    server = Loopback()
    yield server
    server.server.shutdown()
    server.server.server_close()


def written(folder: Path, page: str) -> Path:
    path = folder / "page.html"
    path.write_text(page, encoding="utf-8")
    return path


def test_the_lesson_page_renders_without_an_error_and_its_own_script_opens_every_call(browser, workspace,
                                                                                      tmp_path):
    store = SessionStore(tmp_path / "db")
    path = written(tmp_path, page_of(lesson_session(workspace, store), store))
    visit = browser.open(path)
    assert visit.errors == [] and visit.requests == [path.as_uri()]
    assert browser.evaluate("document.querySelectorAll('details.call').length") == 14
    assert browser.evaluate("document.querySelectorAll('details.call[open]').length") == 0, "collapsed"
    assert browser.evaluate("document.querySelectorAll('svg.timeline rect.span').length") == 1
    browser.evaluate("document.getElementById('open-all').click()")
    assert browser.evaluate("[...document.querySelectorAll('details')].every(d => d.open)"), \
        "the page's script ran: the policy admits it by its hash"
    browser.evaluate("document.getElementById('close-all').click()")
    assert browser.evaluate("document.querySelectorAll('details[open]').length") == 0


def test_a_hostile_sessions_markup_never_runs_and_no_request_leaves_the_page(browser, tmp_path, loopback):
    workspace = tmp_path / "<img src=x onerror=\"window.pwned='workspace'\">"
    workspace.mkdir()
    store = SessionStore(tmp_path / "db")
    session = hostile_session(workspace, store, loopback.origin)
    path = written(tmp_path, page_of(session, store))
    visit = browser.open(path)
    browser.evaluate("document.getElementById('open-all').click()")
    browser.evaluate(SETTLE)
    assert visit.errors == []
    assert browser.evaluate("document.title") == f"stepagent session {session.state.session_id}"
    assert browser.evaluate("window.pwned === undefined")
    assert browser.evaluate("location.href") == path.as_uri(), "no refresh, no link followed"
    assert visit.requests == [path.as_uri()] and loopback.requests == []
    assert browser.evaluate("document.querySelectorAll('img, iframe, object, video, link, base, "
                            "meta[http-equiv=refresh], textarea, a[href^=javascript]').length") == 0
    shown = browser.evaluate("document.body.innerText")
    assert all(attack.split("\n")[0] in shown for attack in attacks(loopback.origin)[:-1]), \
        "each attack is on the page as text"
    assert shown.count(MARKER) >= 10


def test_the_policy_stops_markup_even_where_escaping_would_have_failed(browser, workspace, tmp_path,
                                                                      loopback):
    store = SessionStore(tmp_path / "db")
    page = page_of(lesson_session(workspace, store), store)
    refresh = next(attack for attack in attacks(loopback.origin) if "refresh" in attack)
    injected = "".join(attack for attack in attacks(loopback.origin) if attack != refresh)
    path = written(tmp_path, page.replace("<main>", "<main>" + injected, 1))
    visit = browser.open(path)
    browser.evaluate(SETTLE)
    assert browser.evaluate("window.pwned === undefined") and MARKER not in browser.evaluate("document.title")
    browser.evaluate("document.getElementById('jslink').click()")
    browser.evaluate(SETTLE)
    assert MARKER not in browser.evaluate("document.title"), "a javascript: link does not run either"
    assert loopback.requests == [], "the policy refused every load"
    assert visit.errors and all("Content Security Policy" in error for error in visit.errors)


def test_printing_opens_every_call_for_the_print_and_drops_the_colours_background(browser, workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    browser.open(written(tmp_path, page_of(lesson_session(workspace, store), store)))
    browser.evaluate("window.addEventListener('beforeprint', () => { window.closedWhilePrinting = "
                     "document.querySelectorAll('details:not([open])').length; })")
    opened = browser.evaluate("document.querySelectorAll('details[open]').length")
    browser.call("Page.printToPDF", {}, session=True)
    assert browser.evaluate("window.closedWhilePrinting") == 0, "every call is printed open"
    assert browser.evaluate("document.querySelectorAll('details[open]').length") == opened, "and closed after"
    browser.call("Emulation.setEmulatedMedia", {"media": "print"}, session=True)
    try:
        assert browser.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
        assert browser.evaluate("getComputedStyle(document.querySelector('nav')).display") == "none"
    finally:
        browser.call("Emulation.setEmulatedMedia", {"media": ""}, session=True)
