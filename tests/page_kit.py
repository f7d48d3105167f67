"""Shared by the session page's tests: sessions to export, and the page read back as a person reads it.

`lesson_session` plays the offline lesson through (feedback, n, a new prompt,
y, yes to the Write); `hostile_session` fills every path session text takes
into the page (model text, tool arguments, file contents, command output, a
plan, feedback, todos, a denial's token, the workspace's own name) with markup
that would run, load or break out if it were not escaped.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from session.store import SessionStore
from step42_plan_mode.browser import Browser
from step42_plan_mode.lesson_model import load_lesson
from tests.harness import Session, call, journaled, turn
from ui.export import export_page

MARKER = "PWNED"


def attacks(origin: str) -> list[str]:
    """Markup that would set the title or window.pwned, or fetch from `origin`, were it live."""
    return [
        f"<script>document.title='{MARKER}-script';window.pwned='script'</script>",
        f"<img src=x onerror=\"document.title='{MARKER}-onerror';window.pwned='onerror'\">",
        f"<a id=jslink href=\"javascript:void(document.title='{MARKER}-link')\">click me</a>",
        f"</textarea></pre></details></code><script>window.pwned='breakout'</script>",
        "\"'><svg onload=\"window.pwned='attribute'\"></svg>",
        "--><!--<script>window.pwned='comment'</script>",
        "]]><svg><script>window.pwned='cdata'</script></svg>",
        f"<img src=\"{origin}/img\"><link rel=stylesheet href=\"{origin}/css\">",
        f"<style>@import url({origin}/import);</style><iframe src=\"{origin}/frame\"></iframe>",
        f"<meta http-equiv=refresh content=\"0;url={origin}/refresh\"><base href=\"{origin}/\">",
        f"<object data=\"{origin}/object\"></object><video src=\"{origin}/video\"></video>",
        "\x1b]0;terminal title\x07 \u202egnp.exe",
    ]


def lesson_session(workspace: Path, store: SessionStore) -> Session:
    """The offline lesson played through and journaled: feedback, n, a new prompt, y, yes."""
    session, _ = journaled(workspace, store, [], plan_answers=["please also greet in French", "n", "y"],
                           permission_answers=[True])
    session.agent.model = session.model = load_lesson()
    session.run("add a greeting file")
    session.run("keep it to two lines")
    return session


def hostile_session(workspace: Path, store: SessionStore, origin: str) -> Session:
    """A session where every kind of session text carries the attacks."""
    hostile = "\n".join(attacks(origin))
    (workspace / "notes.txt").write_text(hostile, encoding="utf-8")
    todos = [{"content": hostile, "status": "in_progress", "active_form": hostile}]
    turns = [
        turn(hostile, call("Read", file_path="notes.txt"), call("Bash", command="cat notes.txt"),
             call("TodoWrite", todos=todos)),
        turn("", call("Bash", command=f"echo '{attacks(origin)[0]}' > {attacks(origin)[1]}"),
             call("Write", file_path="page.html", content=hostile)),
        turn("", call("ExitPlanMode", plan=hostile)),
        turn("", call("ExitPlanMode", plan=hostile + "\nrevised")),
        turn("", call("Write", file_path="page.html", content=hostile),
             call("Edit", file_path="page.html", old_string="revised", new_string=hostile),
             call("Bash", command="cat page.html", timeout=hostile)),
        turn(hostile)]
    session, _ = journaled(workspace, store, turns, mode="yolo", plan_answers=[hostile, "y"])
    session.state.enter_plan_mode(hostile)
    session.run(hostile)
    return session


def page_of(session: Session, store: SessionStore) -> str:
    """The session's page as /export --html writes it."""
    session_id = session.state.session_id
    return export_page(session_id, store.entries(session_id), session.workspace, store.revisions(session_id))


BLOCKS = {"p", "div", "li", "dt", "pre", "summary", "h1", "h2", "h3", "h4", "tr", "section", "article"}
CELLS = {"td", "th", "dd"}
SKIPPED = {"script", "style", "title"}


@dataclass
class _Reader(HTMLParser):
    """The page's text, as a person reads it: blocks on lines of their own, cells split by |,
    script, style and the window's title left out."""

    parts: list[str] = field(default_factory=list)
    skipping: int = 0

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.skipping += tag in SKIPPED
        if tag in BLOCKS:
            self.parts.append("\n")
        elif tag in CELLS:
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        self.skipping -= tag in SKIPPED

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str]]]] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.found.append((tag, attrs))


def tags_of(page: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every element the page's markup makes, with its attributes, as a browser's parser reads them."""
    elements = _Elements()
    elements.feed(page)
    return elements.found


def read_page(page: str) -> str:
    """The page's visible text in one string."""
    reader = _Reader()
    reader.feed(page)
    return "".join(reader.parts)


SHARE_DIFFERING = """(async (first, second) => {
  const load = (source) => new Promise((done, failed) => {
    const image = new Image(); image.onload = () => done(image); image.onerror = failed; image.src = source; });
  const [a, b] = await Promise.all([load(first), load(second)]);
  if (a.width !== b.width || a.height !== b.height) return 1;
  const canvas = document.createElement("canvas"); canvas.width = a.width; canvas.height = a.height;
  const pen = canvas.getContext("2d", {willReadFrequently: true});
  const pixels = (image) => { pen.clearRect(0, 0, a.width, a.height); pen.drawImage(image, 0, 0);
                              return pen.getImageData(0, 0, a.width, a.height).data; };
  const p = pixels(a), q = pixels(b);
  let differing = 0;
  for (let i = 0; i < p.length; i += 4) if (p[i] !== q[i] || p[i + 1] !== q[i + 1] || p[i + 2] !== q[i + 2]) differing++;
  return differing / (p.length / 4);
})"""


def share_differing(browser: Browser, first: bytes, second: bytes) -> float:
    """The share of pixels that differ between two PNGs (1 when their sizes differ), as the browser decodes them."""
    def url(png: bytes) -> str:
        return "data:image/png;base64," + base64.b64encode(png).decode()

    browser.go("about:blank")
    return browser.evaluate(f"{SHARE_DIFFERING}({url(first)!r}, {url(second)!r})")
