"""/export --html: the session page shows every call, decision, plan span, revision, diff, todo and
token count, and holds nothing that could run or load (read here as text; tests/test_page_browser.py
opens it in Chromium)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from hypothesis import given, settings, strategies as st

from agent.events import TokensUsed
from session.store import Entry, SessionStore
from session.story import read_story
from tests import harness
from tests.harness import call, journaled, turn
from tests.page_kit import attacks, hostile_session, lesson_session, page_of, read_page, tags_of
from tests.product_run import run_product
from tools.base import QuestionLeft
from tools.plan_mode import PlanReview
from tools.workspace import plan_digest
from ui.modes import select
from ui.page import content_policy, page_html, source_hash
from ui.slash import run_slash_command


PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "h4", "p", "code",
             "nav", "a", "button", "main", "section", "svg", "g", "title", "rect", "text", "line", "ol", "ul",
             "li", "details", "summary", "table", "tr", "th", "td", "article", "em", "strong", "pre", "span",
             "div", "dl", "dt", "dd", "script"}
PAGE_ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "href", "type", "id", "class",
                   "viewbox", "role", "aria-label", "x", "y", "width", "height", "x1", "y1", "x2", "y2",
                   "text-anchor", "open"}


def calls_in(page: str) -> list[str]:
    return re.findall(r'<details class="call[^"]*" id="call-\d+">', page)


def test_the_lesson_page_shows_each_call_collapsed_with_the_decision_its_hook_rule_and_token(workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    session = lesson_session(workspace, store)
    page = page_of(session, store)
    text = read_page(page)
    sent = [c for m in session.agent.messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert len(calls_in(page)) == len(sent) == 14, "every call is one collapsed line, none open"
    lines = text.splitlines()
    assert "Write stepagent_lesson.txt ✗ DENIED by plan-mode-guard" in lines
    assert "Write stepagent_lesson.txt ? ASKED → ✓ allowed by you" in lines
    assert "ExitPlanMode ## Plan: add a greeting file ✓ allowed" in lines, "a plan's call names its title"
    denial = text.split("Bash echo sneaky > stepagent_lesson.txt ✗ DENIED by plan-mode-guard\n", 1)[1]
    assert denial.startswith("\nDecision\ndecision | ✗ DENIED by plan-mode-guard\nhook | plan-mode-guard\n"
                             "rule | plan-mode-allowlist · output redirection writes a file\n"
                             "token | > stepagent_lesson.txt\nreason | Denied by plan-mode-guard")
    assert "hook decisions: 11 allowed, 1 asked and allowed, 2 denied" in text


def test_plan_mode_is_a_span_of_turns_with_its_reviews_and_how_it_ended(workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    text = read_page(page_of(lesson_session(workspace, store), store))
    assert ("PLAN turns 1–2, entered by EnterPlanMode; reviews: ✎ not approved: your feedback goes to "
            "the model (turn 1), ✗ plan rejected (turn 1), ✓ plan approved (build mode) (turn 2); "
            "ended: approved into build mode") in text
    assert "Turn 1 PLAN plan rejected: the user speaks next" in text.splitlines()
    assert "Turn 2 PLAN answered" in text.splitlines()


def test_each_revision_has_its_diff_and_the_feedback_that_led_to_it(workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    text = read_page(page_of(lesson_session(workspace, store), store))
    second = text.split("Revision 2", 1)[1].split("Revision 3", 1)[0]
    assert ("Led to it: revision 1 was answered not approved: your feedback goes to the model, with "
            "feedback: “please also greet in French”") in second
    assert ("\n 2. Read it back to check the content.\n+3. As you asked: “please also greet in French” "
            "(written into the file as a note line).\n \n No other file changes.") in second
    third = text.split("Revision 3", 1)[1]
    assert "revision 2 was answered plan rejected, with feedback: “keep it to two lines”" in third
    assert "✓ Answer: plan approved (build mode)" in third


def test_a_revision_is_the_text_the_user_saw_with_their_own_edits_and_its_digest(workspace, tmp_path,
                                                                                  monkeypatch):
    store = SessionStore(tmp_path / "db")
    shown = "## Plan\n\n1. Edit app.py.\n2. Run the tests.\n"
    edits = "--- plan\n+++ plan (edited)\n@@ -1,3 +1,4 @@\n ## Plan\n \n 1. Edit app.py.\n+2. Run the tests.\n"
    monkeypatch.setattr(harness, "plan_review", lambda review: review)  # the answers are whole reviews
    session, _ = journaled(workspace, store, [turn("", call("ExitPlanMode", plan="## Plan\n\n1. Edit app.py.")),
                                              turn("", call("ExitPlanMode", plan=shown)), turn("ok")],
                           mode="plan", plan_answers=[PlanReview("feedback", "and run the tests", plan=shown,
                                                                 edits=edits), PlanReview("save")])
    session.run("plan it")
    text = read_page(page_of(session, store))
    first = text.split("Revision 1", 1)[1].split("Revision 2", 1)[0]
    assert f"sha256 {plan_digest(shown)[:12]}" in first, "the revision names the exact text shown"
    assert "The user's own edits to it, before answering\n" + edits in first
    assert "2. Run the tests." in first.split("The plan as shown", 1)[1], "the text they saw, edits included"
    assert "feedback: “and run the tests”" in text.split("Revision 2", 1)[1]
    assert "⏸ Answer: plan saved for later: /plan show prints it, /plan approve reviews it again" in text


def test_a_span_left_by_mode_and_one_still_open_say_so(workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    session, live = journaled(workspace, store, [turn("looking"), turn("again")], mode="plan")
    session.run("first")
    run_slash_command("/mode build", live)
    run_slash_command("/plan", live)
    session.run("second")
    text = read_page(page_of(session, store))
    assert "ended: left by /mode build" in text
    assert "ended: still planning when the session was exported" in text


def test_write_and_edit_show_the_diff_they_made_and_a_refused_one_what_it_asked_for(workspace, tmp_path):
    (workspace / "app.py").write_text("one\ntwo\nthree\nfour\n")
    store = SessionStore(tmp_path / "db")
    session, _ = journaled(workspace, store, [
        turn("", call("Write", file_path="new.txt", content="fresh\n")),
        turn("", call("Edit", file_path="app.py", old_string="three", new_string="THREE")),
        turn("", call("Write", file_path="app.py", content="gone\n")), turn("done")], mode="plan")
    session.state.leave_plan_mode("test")
    select(session.state, "yolo", "test")
    session.run("change things")
    session.state.enter_plan_mode("/plan")
    session.agent.model.turns += [turn("", call("Write", file_path="app.py", content="denied\n")), turn("ok")]
    session.run("try again")
    stored = [e.payload for e in store.entries(session.state.session_id) if e.kind == "change"]
    assert [c["tool"] for c in stored] == ["Write", "Edit", "Write"], "the journal keeps each diff"
    text = read_page(page_of(session, store))
    edit = text.split("\nEdit app.py", 1)[1]
    assert "Diff it made\n--- a/app.py\n+++ b/app.py\n@@ -1,4 +1,4 @@\n one\n two\n-three\n+THREE\n four" in edit
    assert "-one\n-two\n-THREE\n-four\n+gone" in text, "an overwrite diffs against what was there"
    refused = text.rsplit("\nWrite app.py ✗ DENIED by plan-mode-guard\n", 1)[1]
    assert "Diff: not run, so nothing changed; what it asked for" in refused and "+denied" in refused


def test_the_todo_lists_are_shown_as_they_changed(workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    first = [{"content": "Read the code", "status": "in_progress"}, {"content": "Fix it", "status": "pending"}]
    second = [{"content": "Read the code", "status": "completed"}, {"content": "Fix it", "status": "in_progress"}]
    session, _ = journaled(workspace, store, [turn("", call("TodoWrite", todos=first)),
                                              turn("", call("TodoWrite", todos=second)), turn("ok")])
    session.run("plan it")
    todos = read_page(page_of(session, store)).split("Todos as they changed", 1)[1].split("Changes by", 1)[0]
    assert todos.count("In turn 1") == 2
    assert "[~] Read the code\n[ ] Fix it\n" in todos and "[x] Read the code\n[~] Fix it\n" in todos


def test_tokens_per_turn_are_what_the_server_reported_else_estimated(workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    session, _ = journaled(workspace, store, [turn("a"), turn("b")])
    session.run("first")
    estimated = read_page(page_of(session, store))
    assert "estimated tokens per turn: in (lower), out (upper)" in estimated
    session.state.events.emit(TokensUsed(1200, 34))
    session.run("second")
    session.state.events.emit(TokensUsed(1500, 66, cached_tokens=1000))
    assert [e.payload for e in store.entries(session.state.session_id) if e.kind == "usage"][-1] == {
        "input_tokens": 1500, "output_tokens": 66, "cached_tokens": 1000}
    page = page_of(session, store)
    text = read_page(page)
    assert "estimated tokens" not in text and "tokens per turn: in (lower), out (upper)" in text
    assert " | 1 | first | answered | 1,200 | 34" in text.splitlines()
    assert " | 2 | second | answered | 1,500 | 66" in text.splitlines()
    assert "turn 2: 1,500 tokens in, 66 out" in page, "each bar says its numbers"


def test_nothing_from_the_session_is_markup_and_only_the_pages_own_style_and_script_may_run(
        workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    page = page_of(hostile_session(workspace, store, "http://127.0.0.1:9"), store)
    elements = tags_of(page)
    assert {tag for tag, _ in elements} <= PAGE_TAGS, "no element the page does not make itself"
    assert [tag for tag, _ in elements].count("script") == 1
    attributes = {name: value for _, attrs in elements for name, value in attrs}
    assert set(attributes) <= PAGE_ATTRIBUTES
    assert all(value.startswith("#") for _, attrs in elements for name, value in attrs if name == "href")
    text = read_page(page)
    for attack in attacks("http://127.0.0.1:9")[:-1]:
        assert attack in text, "shown as the characters it is made of"
    assert "␛]0;terminal title␇ \\u202egnp.exe" in text, "controls and bidi overrides are made visible"
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert policy == content_policy(style, script)
    assert policy.startswith("default-src 'none'; ") and source_hash(script) in policy


def test_slash_export_html_writes_the_page_and_never_over_another_file(workspace, tmp_path):
    session, live = journaled(workspace, SessionStore(tmp_path / "db"), [turn("hello")])
    session.run("hi")
    default = workspace / ".stepagent" / "exports" / f"{session.state.session_id}.html"
    assert run_slash_command("/export --html", live).message == f"Exported this session to {default}."
    assert read_page(default.read_text()).count("hello") == 1
    assert run_slash_command("/export --html", live).message.endswith("It replaced the earlier export there.")
    (workspace / "notes.html").write_text("<p>mine</p>")
    refused = run_slash_command("/export --html notes.html", live)
    assert refused.is_error and "/export --html alone" in refused.message
    assert (workspace / "notes.html").read_text() == "<p>mine</p>"
    run_slash_command("/export session.md", live)
    assert run_slash_command("/export --html session.md", live).is_error, "a markdown export is not a page"
    (workspace / "pages").mkdir()
    assert not run_slash_command("/export --html pages/one.html", live).is_error


HOSTILE_WORDS = st.sampled_from(attacks("http://127.0.0.1:9") + ["plan approved (build mode)", "not approved",
                                                                 "plan rejected", "ExitPlanMode", "call_1", ""])
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | HOSTILE_WORDS | st.text(max_size=20),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                          st.sampled_from(["role", "content", "tool_calls", "id", "function", "name",
                                           "arguments", "tool_call_id", "tool", "decision", "plan_mode",
                                           "permission_mode", "cause", "todos", "outcome", "diff", "phase"]),
                          inner, max_size=5), max_leaves=12)
ENTRIES = st.lists(st.tuples(st.sampled_from(["message", "hook", "started", "change", "review", "mode", "todos",
                                              "usage", "compaction", "memory", "subagent", "add", "?"]),
                             st.dictionaries(st.text(max_size=12), VALUES, max_size=4) | VALUES), max_size=25)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(ENTRIES)
def test_any_entries_make_a_page_and_nothing_in_them_becomes_markup(entries):
    stored = [Entry(seq, kind, payload) for seq, (kind, payload) in enumerate(entries, 1)]
    elements = tags_of(page_html(read_story("sess_any", stored), "/work"))
    assert {tag for tag, _ in elements} <= PAGE_TAGS
    assert {name for _, attrs in elements for name, _ in attrs} <= PAGE_ATTRIBUTES


def stepagent(workspace: Path, *args: str, server=None) -> subprocess.CompletedProcess:
    env = {**os.environ, **({"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.url,
                             "OPENAI_MODEL": "fake-model"} if server else {})}
    return run_product(*args, cwd=workspace, env=env)


def test_export_html_writes_a_stored_sessions_page_from_the_command_line(server, workspace):
    (workspace / "app.py").write_text("one\ntwo\n")
    server.reply_tool_calls(("Edit", {"file_path": "app.py", "old_string": "two", "new_string": "TWO"}))
    server.reply_text("Done.")
    assert stepagent(workspace, "--mode", "yolo", "-p", "shout two", server=server).returncode == 0
    done = stepagent(workspace, "--continue", "--export-html", "page.html")
    assert done.returncode == 0, done.stderr
    assert "Exported session sess_" in done.stdout and server.requests, "no model was asked to export"
    text = read_page((workspace / "page.html").read_text())
    assert "Diff it made\n--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO" in text
    assert " | 1 | shout two | answered | 240 | 60" in text.splitlines(), "the server's usage, two replies"
    refused = stepagent(workspace, "--resume", done.stdout.split("Exported session ")[1].split()[0],
                        "--export-html", "app.py")
    assert refused.returncode == 2 and "not an earlier export" in refused.stdout + refused.stderr
    assert (workspace / "app.py").read_text() == "one\nTWO\n"
    assert stepagent(workspace, "--export-html", "page.html").returncode == 2, "it needs the session"


def test_a_question_the_user_left_by_a_command_reads_not_run_in_the_trace_and_the_page(workspace, tmp_path):
    store = SessionStore(tmp_path / "db")
    session, live = journaled(workspace, store, [turn("", call("Write", file_path="x", content="x")),
                                                 turn("never asked for")],
                              permission_answers=[QuestionLeft("/exit")])
    session.run("write x")
    assert not (workspace / "x").exists()
    _, resumed = journaled(workspace, store, [])
    resumed.resume(session.state.session_id)
    for trace in (live.trace(), resumed.trace()):
        line = next(line for line in trace if line.startswith("  ✗ Write"))
        assert line.endswith("not run: you left the question with /exit · x"), line
    text = read_page(page_of(session, store))
    assert "Write x ? ASKED → ✗ NOT RUN you left the question with /exit" in text.splitlines()
    assert "by you" not in text
