"""The session page: export time and page size for sessions of 500 and 5,000 messages.

    .venv/bin/python bench/page_export.py

A session of 500 messages is played through the product (scripted model,
hooks, executor, tools, journal into SQLite): turns that Read a file, Edit it
and answer, with token usage reported; every tenth turn plans first (a plan
with feedback, then approved) and keeps a todo list. The 5,000-message session
is those entries stored ten times over (call ids made unique), since playing
it would time the agent, not the export; the store is in /dev/shm where there
is one. The export is what /export --html does: read the entries, tell the
story, draw the page. Markdown export of the same session
is timed beside it, as the ratio's baseline. With chromium installed, the two
pages' loads are timed side by side, alternately in one browser, and the time
to draw the large page's end after a jump there is shown. Targets (CPU time
and a side-by-side ratio, since wall-clock time on a shared machine measures
the neighbours): the 5,000-message export takes at most 1.5 s of CPU, and
its page loads in at most 12× the 500-message page's time (no work at load
that grows faster than the page); a miss exits non-zero.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from common import ROOT, median_seconds, verdict  # noqa: F401

from agent.assemble import assemble
from ui.product import product_layers
from models.base import Reply, Usage
from models.scripted import ScriptedModel
from session.journal import Journal
from session.store import SessionStore
from state import AppState
from ui.modes import select
from ui.plan_review import plan_review
from ui.export import export_markdown, export_page

PLAYED = 500
COPIES = (1, 10)
RUNS = 3
EXPORT_TARGET_SECONDS = 1.5
LOAD_RATIO_TARGET = 12.0
MESSAGES_PER_TURN = 5
SOURCE = "".join(f"def step_{n}(value):\n    return value + {n}\n\n" for n in range(40))


@dataclass
class ReportingModel:
    """A scripted model whose every reply reports token usage, as a real server's does."""

    script: ScriptedModel
    name: str = "bench"

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        reply = self.script.complete(messages, tools, on_text)
        reply.usage = Usage(sum(len(str(m.get("content") or "")) for m in messages) // 4, 40)
        return reply


def turns_for(number: int) -> list[dict[str, Any]]:
    """One turn's model replies: plan (every tenth turn), read, edit, answer."""
    edit = {"name": "Edit", "arguments": {"file_path": "app.py", "old_string": f"+ {number % 40}\n",
                                          "new_string": f"+ {number % 40}  # turn {number}\n"}}
    steps = [{"text": f"Reading the code for change {number}.",
              "tool_calls": [{"name": "Read", "arguments": {"file_path": "app.py"}}, edit]},
             {"text": f"Change {number} is made: step {number % 40} now notes its turn."}]
    if number % 10:
        return steps
    todos = [{"content": f"Change {number}", "status": "in_progress"}, {"content": "Check", "status": "pending"}]
    plan = {"name": "ExitPlanMode", "arguments": {"plan": f"## Change {number}\n\n1. Edit app.py.\n"}}
    revised = {"name": "ExitPlanMode", "arguments": {"plan": f"## Change {number}\n\n1. Edit app.py.\n2. Check.\n"}}
    return [{"tool_calls": [{"name": "TodoWrite", "arguments": {"todos": todos}}, plan]},
            {"tool_calls": [revised]}, *steps]


def played_session(folder: Path, messages: int) -> tuple[SessionStore, str]:
    """A stored session of about `messages` messages, played through the product."""
    workspace = folder / f"workspace-{messages}"
    workspace.mkdir()
    (workspace / "app.py").write_text(SOURCE, encoding="utf-8")
    store = SessionStore(folder / f"sessions-{messages}.db")
    state = AppState()
    script = ScriptedModel([])
    reviews: list[str] = []
    agent = assemble(workspace, state, ReportingModel(script), lambda plan: plan_review(reviews.pop(0)),
                     lambda request: True, product_layers(store=store, window=(10**9, 0.8)))
    state.events.subscribe(Journal(store, state, workspace, warn=print).on_event)
    select(state, "yolo", "bench")
    number = 0
    while len(agent.messages) < messages:
        number += 1
        script.turns += turns_for(number)
        if number % 10 == 0:
            state.enter_plan_mode("/plan")
            reviews += ["check it too", "y"]
        agent.run_turn(f"make change {number}")
    return store, state.session_id


def copied(store: SessionStore, session_id: str, copies: int) -> str:
    """A new session holding `copies` copies of a session's entries, each copy's call ids its own."""
    target = f"{session_id}x{copies}"
    store.create_session(target, Path(store.workspace_of(session_id) or "."))
    entries = store.entries(session_id)
    for copy in range(copies):
        for entry in entries:
            store.append(target, entry.kind, _renamed(entry.payload, f"-{copy}"))
    return target


def _renamed(payload: dict[str, Any], suffix: str) -> dict[str, Any]:
    renamed = dict(payload)
    if "tool_call_id" in renamed:
        renamed["tool_call_id"] += suffix
    if renamed.get("tool_calls"):
        renamed["tool_calls"] = [{**call, "id": call["id"] + suffix} for call in renamed["tool_calls"]]
    return renamed


SCROLL_TO_END = """new Promise(done => { const start = performance.now();
  window.scrollTo(0, document.body.scrollHeight);
  requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - start))); })"""


@dataclass
class Export:
    """One session's export figures."""

    messages: int
    entries: int
    wall: float
    cpu: float
    markdown: float
    size: int
    path: Path


def exported(store: SessionStore, session_id: str, workspace: Path, folder: Path) -> Export:
    """The page export timed (wall and CPU, median of RUNS), the markdown export beside it."""
    def page() -> str:
        return export_page(session_id, store.entries(session_id), workspace, store.revisions(session_id))

    walls, cpus = [], []
    for _ in range(RUNS):
        wall, cpu = time.perf_counter(), time.process_time()
        html = page()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    markdown = median_seconds(lambda: export_markdown(session_id, store.entries(session_id)), RUNS)
    path = folder / f"{session_id}.html"
    path.write_text(html, encoding="utf-8")
    entries = store.entries(session_id)
    return Export(sum(entry.kind == "message" for entry in entries), len(entries), statistics.median(walls),
                  statistics.median(cpus), markdown, len(html.encode()), path)


def browser_figures(small: Path, large: Path) -> tuple[float, float, float] | None:
    """Chromium's median loads of the two pages (to the load event and a frame), alternately in one
    browser, and the time to draw the large page's end after a jump there; None without chromium."""
    if shutil.which("chromium") is None:
        return None
    from step42_plan_mode.browser import Browser

    with Browser() as browser:
        browser.open(large)  # the first load warms the browser up
        loads: dict[Path, list[float]] = {small: [], large: []}
        for _ in range(RUNS):
            for path in (small, large):
                start = time.perf_counter()
                browser.open(path)
                loads[path].append(time.perf_counter() - start)
        jump = browser.evaluate(SCROLL_TO_END) / 1000
    return statistics.median(loads[small]), statistics.median(loads[large]), jump


def main() -> int:
    memory = "/dev/shm" if Path("/dev/shm").is_dir() else None  # playing the session is not a disk bench
    with tempfile.TemporaryDirectory(prefix="stepagent-bench-page-", dir=memory) as scratch:
        folder = Path(scratch)
        start = time.perf_counter()
        store, played_id = played_session(folder, PLAYED)
        print(f"played {PLAYED} messages through the product in {time.perf_counter() - start:.1f} s")
        workspace = folder / f"workspace-{PLAYED}"
        figures = [exported(store, copied(store, played_id, copies), workspace, folder) for copies in COPIES]
        store.close()
        for export in figures:
            print(f"{export.messages:,} messages ({export.entries:,} entries): page export "
                  f"{export.wall * 1000:.0f} ms ({export.cpu * 1000:.0f} ms of CPU; median of {RUNS}), "
                  f"markdown export {export.markdown * 1000:.0f} ms, ratio {export.wall / export.markdown:.1f}×; "
                  f"page {export.size / 1e6:.2f} MB")
        largest = figures[-1]
        print(f"   5,000-message export: {largest.cpu:.2f} s of CPU "
              f"{verdict(largest.cpu, EXPORT_TARGET_SECONDS, f'{EXPORT_TARGET_SECONDS} s')}")
        missed = largest.cpu > EXPORT_TARGET_SECONDS
        browser = browser_figures(figures[0].path, largest.path)
        if browser is None:
            print("   the pages' load in a browser: not measured (no chromium)")
        else:
            small, large, jump = browser
            ratio = large / small
            print(f"   chromium loads the 500-message page in {small * 1000:.0f} ms, the 5,000-message one in "
                  f"{large * 1000:.0f} ms: {ratio:.1f}× for 10× the messages "
                  f"{verdict(ratio, LOAD_RATIO_TARGET, f'{LOAD_RATIO_TARGET:.0f}×')}; it draws the end after "
                  f"a jump there in {jump * 1000:.0f} ms")
            missed = missed or ratio > LOAD_RATIO_TARGET
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
