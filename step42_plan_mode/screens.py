"""The README's screenshots, drawn by the real console code: an edit approval and a plan review.

A scripted model makes the calls; the REPL's own callbacks show the preview or the
plan panel and ask; at the question the recorded screen is exported as SVG (rich).
After the screen changes, write them again:

    .venv/bin/python -m step42_plan_mode.screens

tests/test_screens.py checks that the committed pictures are what this draws today.
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from rich.text import Text

from agent.assemble import assemble
from ui.product import product_layers
from models.scripted import ScriptedModel
from state import AppState
from ui.callbacks import interactive_approve
from ui.console import ConsoleView
from ui.plan_review import PlanReviewScreen
from ui.question_commands import QuestionCommands

FOLDER = Path(__file__).resolve().parent / "screens"
WIDTH = 80
APP = 'def greet(name):\n    return "Hello " + name\n\n\nprint(greet("Ada"))\n'
PLAN = ("## Plan: greet with a comma and an exclamation mark\n\n"
        "1. In `app.py`, make `greet` return `f\"Hello, {name}!\"`.\n"
        "2. Run `python app.py` and check it prints `Hello, Ada!`.\n\nNo other file changes.")
EDIT = {"name": "Edit", "arguments": {"file_path": "app.py", "old_string": 'return "Hello " + name',
                                      "new_string": 'return f"Hello, {name}!"'}}


def screen_at_question(turns: list[dict], planning: bool, title: str) -> str:
    """Run one scripted turn with the REPL's callbacks; the SVG of the screen at the first question."""
    console = Console(record=True, width=WIDTH, force_terminal=True, color_system="truecolor",
                      no_color=False, file=io.StringIO())
    view = ConsoleView(console, stream_markdown=False)
    view.ticker.console = Console(file=io.StringIO())  # the spinner is erased: no picture shows it
    shots: list[str] = []

    def ask(question: str, **options: object) -> str:
        console.print(Text(question) + Text("y", style="bold"))
        if not shots:
            shots.append(console.export_svg(title=title, clear=False))
        return "n"

    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        (workspace / "app.py").write_text(APP, encoding="utf-8")
        state = AppState()
        state.events.subscribe(view.on_event)
        agent = assemble(workspace, state, ScriptedModel(turns),
                         PlanReviewScreen(view, ask, state, QuestionCommands(view)),
                         interactive_approve(view, ask), product_layers())
        if planning:
            state.enter_plan_mode("/plan")
        agent.run_turn("greet with a comma")
    return shots[0]


def screens() -> dict[str, str]:
    """Each screenshot's file name and its SVG."""
    return {
        "edit-approval.svg": screen_at_question(
            [{"tool_calls": [{"name": "Read", "arguments": {"file_path": "app.py"}}]},
             {"text": "The greeting lacks a comma; I fix it.", "tool_calls": [EDIT]}],
            planning=False, title="stepagent: an edit waiting for approval"),
        "plan-review.svg": screen_at_question(
            [{"tool_calls": [{"name": "Read", "arguments": {"file_path": "app.py"}}]},
             {"tool_calls": [EDIT]},
             {"tool_calls": [{"name": "ExitPlanMode", "arguments": {"plan": PLAN}}]}],
            planning=True, title="stepagent: a plan waiting for review"),
    }


def main(argv: list[str] | None = None) -> int:
    """Write the screenshots into the folder given, or step42_plan_mode/screens/."""
    folder = Path((argv or sys.argv[1:] or [str(FOLDER)])[0])
    folder.mkdir(parents=True, exist_ok=True)
    for name, svg in screens().items():
        (folder / name).write_text(svg, encoding="utf-8")
        print(folder / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
