"""The screen, read from a recording console: what is shown before a question, and how results look."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings, strategies as st
from rich.console import Console

from agent.approval import PermissionRequest
from agent.events import ToolDecision, ToolFinished, ToolRequested
from agent.subagents import SubAgentDecision
from tools.base import Preview
from tools.preview import command_preview, diff_preview
from state import AppState
from tests.screen_replay import replayed
from ui.callbacks import interactive_approve
from ui.plan_review import PlanReviewScreen
from ui.question_commands import QuestionCommands
from ui.console import ConsoleView
from ui.markdown_stream import MarkdownStream
from ui.safe_text import safe_markdown

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def screen(width: int = 100) -> tuple[ConsoleView, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system="standard")
    return ConsoleView(console), out


def plain(out: io.StringIO) -> str:
    return ANSI.sub("", out.getvalue())


def test_the_diff_and_the_reason_are_on_screen_when_the_question_is_asked():
    view, out = screen()
    on_screen_at_question: list[str] = []

    def ask(question: str) -> str:
        on_screen_at_question.append(plain(out))
        return "y"

    request = PermissionRequest("Edit", {"file_path": "app.py"}, "Edit can change the system. Allow?",
                                diff_preview("a\nold\nc\n", "a\nnew\nc\n", "app.py"), "Edit")
    answer = interactive_approve(view, ask)(request)
    shown = on_screen_at_question[0]
    assert answer.allow and not answer.remember
    assert "app.py" in shown and "-old" in shown and "+new" in shown
    assert shown.index("-old") < shown.index("Edit can change the system")
    assert "don't ask again for Edit" in shown


def test_the_command_is_on_screen_with_hidden_characters_revealed():
    view, out = screen()
    seen: list[str] = []
    request = PermissionRequest("Bash", {"command": "rm -rf x\u200b"}, "Allow it?",
                                command_preview({"command": "rm -rf x\u200b"}), None)
    answer = interactive_approve(view, lambda q: seen.append(plain(out)) or "a")(request)
    assert "rm -rf x\\u200b" in seen[0] and "invisible characters" in seen[0]
    assert answer.allow and not answer.remember, "no rule is offered, so nothing is remembered"


@pytest.mark.parametrize("name, coloured", [("app.py", True), ("notes.txt", False)])
def test_a_new_file_is_highlighted_by_its_name_with_only_the_lexers_that_name_matches(
        monkeypatch, name, coloured):
    """Choosing is cheap: pygments' modules of lexers are loaded for the name's match, not all 250."""
    from pygments.lexers import find_lexer_class_for_filename

    lexers = find_lexer_class_for_filename.__globals__  # pygments.lexers replaces its module with another
    load, loaded = lexers["_load_lexers"], []
    monkeypatch.setitem(lexers, "_lexer_cache", {})
    monkeypatch.setitem(lexers, "_load_lexers", lambda module: loaded.append(module) or load(module))
    view, out = screen()
    request = PermissionRequest("Write", {"file_path": name}, "Allow?",
                                Preview("content", "import os\n", name, added=1), "Write")
    interactive_approve(view, lambda question: "n")(request)
    assert "new file, 1 line" in plain(out) and "import os" in plain(out)
    assert bool(re.search(r"\x1b\[[0-9;]*9[0-9];49mimport\x1b", out.getvalue())) == coloured
    assert len(loaded) == 1, loaded


def test_feedback_at_the_permission_question_is_a_no_with_the_text():
    view, _ = screen()
    request = PermissionRequest("Bash", {"command": "make"}, "Allow?", None, "Bash(make:*)")
    answer = interactive_approve(view, lambda q: "run the tests first")(request)
    assert not answer.allow and answer.feedback == "run the tests first"


def test_the_question_lines_keep_allow_and_approve():
    view, _ = screen()
    asked: list[str] = []
    interactive_approve(view, lambda q: asked.append(q) or "n")(
        PermissionRequest("Write", {}, "r", None, None))
    PlanReviewScreen(view, lambda q, **options: asked.append(q) or "n", AppState(),
                     QuestionCommands(view))("the plan")
    assert "Allow" in asked[0] and "Approve" in asked[1]


def test_the_permission_question_lists_the_keys_its_hint_offers():
    view, out = screen()
    asked: list[str] = []
    for rule in ("Bash(make:*)", ""):
        interactive_approve(view, lambda q: asked.append(q) or "n")(
            PermissionRequest("Bash", {"command": "make"}, "Allow?", None, rule))
    hints = [line for line in plain(out).splitlines() if line.startswith("y = yes")]
    assert asked == ["Allow? [y/a/p/u/N] ", "Allow? [y/N] "]
    assert "a = yes" in hints[0] and "p:" in hints[0] and "u:" in hints[0]
    assert "a = " not in hints[1]


def test_a_failure_is_red_with_its_text_and_a_denial_shows_its_reason():
    view, out = screen()
    view.on_event(ToolRequested("Read", {"file_path": "missing.txt"}))
    view.on_event(ToolDecision("Read", {}, "allow"))
    view.on_event(ToolFinished("Read", {}, "", "Cannot read missing.txt: No such file.", True))
    view.on_event(ToolRequested("Write", {"file_path": "a.txt"}))
    view.on_event(ToolDecision("Write", {}, "deny", "plan-mode-guard",
                               "Denied by plan-mode-guard (rule: writes files)."))
    raw = out.getvalue()
    assert re.search(r"\x1b\[31m[^\x1b]*Cannot read missing.txt", raw)
    assert "denied by plan-mode-guard" in plain(out) and "rule: writes files" in plain(out)
    assert "allowed" not in plain(out)


def test_a_command_shows_its_last_lines_and_its_exit_code():
    view, out = screen()
    output = "\n".join(str(n) for n in range(1, 21)) + "\n[exit code 3]"
    view.on_event(ToolFinished("Bash", {"command": "x"}, "exit code 3", output, True))
    text = plain(out)
    assert "15 earlier lines" in text and "16\n" in text and "20\n" in text and "\n    15\n" not in text
    assert re.search(r"\x1b\[31m[^\x1b]*exit code 3", out.getvalue())


def test_a_dont_ask_again_answer_shows_the_rule_it_added():
    view, out = screen()
    view.show_decision(ToolDecision("Write", {}, "allow", "session-rule",
                                    "your new rule Write (this session)", asked=True))
    assert "allowed by you, and by your new rule Write (this session) from now on" in plain(out)


def test_exit_plan_mode_waits_for_review_and_is_never_shown_allowed():
    view, out = screen()
    view.on_event(ToolRequested("ExitPlanMode", {"plan": "p"}))
    view.on_event(ToolDecision("ExitPlanMode", {"plan": "p"}, "allow"))
    assert "waiting for your review" in plain(out) and "allowed" not in plain(out)


def rendered_at_once(text: str) -> str:
    console = Console(file=io.StringIO(), width=70, color_system=None)
    console.print(safe_markdown(text))
    return console.file.getvalue()


def rendered_streamed(text: str, pieces: list[str], print_every: float) -> str:
    console = Console(file=io.StringIO(), width=70, color_system=None)
    stream = MarkdownStream(console, print_every=print_every)
    for piece in pieces:
        stream.feed(piece)
    stream.finish()
    return console.file.getvalue()


BLOCKS = ["# Title", "## Section", "A paragraph with **bold** and `code`.\nSecond line.",
          "- one\n- two\n  - nested", "1. first\n2. second", "```python\ndef f():\n\n    return 1\n```",
          "> quoted\n> text", "| a | b |\n|---|---|\n| 1 | 2 |", "---", "Closing words.",
          "    indented code", "Setext heading\n---"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=8), st.integers(1, 12),
       st.sampled_from([0.0, 3600.0]))
def test_streamed_markdown_prints_what_the_whole_answer_renders(blocks, size, print_every):
    """Whether each finished block is printed at once or they wait and go out together."""
    text = "\n\n".join(blocks) + "\n"
    pieces = [text[i:i + size] for i in range(0, len(text), size)]
    assert rendered_streamed(text, pieces, print_every) == rendered_at_once(text)


def terminal_console() -> Console:
    return Console(file=io.StringIO(), width=70, height=12, force_terminal=True, color_system=None)


@pytest.mark.parametrize("print_every", [0.0, 3600.0])
def test_a_streamed_answer_leaves_the_terminal_as_printing_it_once_would(print_every):
    """The live area (its tail, the blocks waiting) is erased at the end, not left on the screen."""
    text = "\n\n".join(BLOCKS * 3) + "\n"
    console = terminal_console()
    stream = MarkdownStream(console, print_every=print_every)
    for index in range(0, len(text), 7):
        stream.feed(text[index:index + 7])
    assert console.file.getvalue().count("\x1b[1A") > 0, "the live area was drawn"
    stream.finish()
    at_once = terminal_console()
    at_once.print(safe_markdown(text))
    assert replayed(console.file.getvalue()) == replayed(at_once.file.getvalue())


def test_a_question_left_by_a_command_is_not_run_not_denied_also_in_a_sub_agent():
    view, out = screen()
    left = ToolDecision("Write", {"file_path": "x"}, "deny", "permission-ask", "Not run: …", asked=True,
                        left_with="/exit")
    view.on_event(left)
    view.on_event(SubAgentDecision("explore-1", left))
    lines = [line for line in plain(out).splitlines() if "/exit" in line]
    assert len(lines) == 2 and all("not run: you left the question with /exit" in line for line in lines)
    assert "denied" not in plain(out)
