"""The plan review's transition table, one test per row (step42_plan_mode/README.md, section 4b).

Each test runs the real ExitPlanMode behind the REPL's real review screen, with the
keys a person would press, and checks what a user would see: the plan file (byte
for byte the text shown, named by its digest in the trace), the mode, and what the
model was sent. Interrupt, end of input and errors are never an approval
(failure mode 14).
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console

from agent.assemble import assemble
from ui.product import product_layers
from models.scripted import ScriptedModel
from session.journal import Journal
from session.live import Session
from state import AppState
from tests.harness import call, turn
from tools.plan_mode import APPROVED, NOT_APPROVED, REJECTED
from ui.console import ConsoleView
from ui.modes import select
from ui.plan_review import CTRL_G, PlanReviewScreen
from ui.question_commands import SHIFT_TAB, QuestionCommands

PLAN = "## Plan\n\n1. Write made.txt"
SHOWN = PLAN + "\n"


@dataclass
class Door:
    """One review through the whole product: the screen, the state, what the model got."""

    workspace: Path
    state: AppState
    model: ScriptedModel
    session: Session
    screen: PlanReviewScreen
    commands: QuestionCommands
    out: io.StringIO

    @property
    def plan_file(self) -> Path | None:
        found = list((self.workspace / ".stepagent" / "plans").glob("plan-*.md"))
        return found[0] if found else None

    def result(self) -> str:
        """What the model was told for its ExitPlanMode call."""
        return [m for m in self.session.agent.messages if m["role"] == "tool"][0]["content"]

    def reviews(self) -> list[dict]:
        return [entry for entry in self.session.journal.audit if entry["kind"] == "review"]


def review(workspace: Path, *keys, edit=None, mode: str = "build") -> Door:
    """Present PLAN once and answer with `keys` (an exception class is raised at the question)."""
    out = io.StringIO()
    view = ConsoleView(Console(file=out, width=120))
    state = AppState()
    select(state, mode, "test")
    commands = QuestionCommands(view)
    pressed = iter(keys)

    def ask(question: str, **options) -> str:
        key = next(pressed)
        if isinstance(key, type) and issubclass(key, BaseException):
            raise key("at the question")
        return key

    screen = PlanReviewScreen(view, ask, state, commands, **({"edit": edit} if edit else {}))
    model = ScriptedModel([turn("", call("ExitPlanMode", plan=PLAN)), turn("after the review")])
    agent = assemble(workspace, state, model, screen, lambda request: False, product_layers())
    journal = Journal(None, state, workspace, warn=lambda text: None)
    state.events.subscribe(journal.on_event)
    session = Session(agent, journal)
    commands.bind(session)
    screen.revisions = lambda: journal.revisions
    state.enter_plan_mode("/plan")
    door = Door(workspace, state, model, session, screen, commands, out)
    door.outcome = agent.run_turn("plan it")
    return door


def approved_exactly(door: Door, text: str = SHOWN) -> None:
    """The file is byte for byte the text shown, and the trace names it by its SHA-256."""
    assert door.plan_file.read_bytes() == text.encode()
    assert door.reviews()[-1]["digest"] == hashlib.sha256(door.plan_file.read_bytes()).hexdigest()


def test_y_approves_the_text_shown_into_the_mode_before(workspace):
    door = review(workspace, "y")
    approved_exactly(door)
    assert not door.state.plan_mode and door.state.permission_mode.value == "build"
    assert door.result().startswith(APPROVED) and door.result().endswith(SHOWN)
    assert len(door.model.requests) == 2, "the turn goes on: the model builds"


def test_e_approves_into_edit_mode(workspace):
    door = review(workspace, "e")
    approved_exactly(door)
    assert not door.state.plan_mode and door.state.permission_mode.value == "edit"
    assert "You are in edit mode" in door.result()


def test_c_approves_and_ends_this_conversation_for_a_fresh_one(workspace):
    door = review(workspace, "c")
    approved_exactly(door)
    assert not door.state.plan_mode and door.screen.last.clear
    assert door.outcome.ending == "ended_by_tool" and len(door.model.requests) == 1
    assert door.result().startswith(APPROVED), "the fresh conversation starts with this approval"


def test_s_saves_for_later_and_keeps_planning(workspace):
    door = review(workspace, "s")
    assert door.plan_file.read_text() == SHOWN and door.state.plan_mode
    assert door.outcome.ending == "ended_by_tool" and "/plan approve" in door.result()
    assert door.session.journal.revisions[-1].outcome == "save"


def test_n_rejects_and_the_turn_ends(workspace):
    door = review(workspace, "n")
    assert door.plan_file is None and door.state.plan_mode
    assert door.result() == REJECTED and door.outcome.ending == "ended_by_tool"


def test_feedback_keeps_planning_and_follows_as_the_users_message(workspace):
    door = review(workspace, "also add a test")
    assert door.plan_file is None and door.state.plan_mode
    assert door.result() == NOT_APPROVED
    assert door.model.requests[-1][-1] == {"role": "user", "content": "also add a test"}


def test_edit_then_y_approves_the_edited_text_and_the_model_gets_the_diff(workspace):
    edited = PLAN + "\n2. Run the tests\n"
    door = review(workspace, CTRL_G, "y", edit=lambda shown: (edited, ""))
    approved_exactly(door, edited)
    assert "+2. Run the tests" in door.result() and "```diff" in door.result()
    assert door.result().endswith(edited), "the approved plan the model builds is the user's"
    assert "edited by you" in door.out.getvalue()


@pytest.mark.parametrize("key", [KeyboardInterrupt, EOFError, RuntimeError],
                         ids=["ctrl-c", "ctrl-d", "exception"])
def test_an_interrupt_end_of_input_or_error_is_never_an_approval(workspace, key):
    door = review(workspace, key)
    assert door.plan_file is None and door.state.plan_mode
    ending = {KeyboardInterrupt: "interrupted", EOFError: "reject", RuntimeError: "error"}[key]
    assert door.session.journal.revisions[-1].outcome == ending
    if key is RuntimeError:
        assert "could not be shown" in door.result() and door.outcome.ending == "ended_by_tool"
    if key is KeyboardInterrupt:
        assert door.outcome.ending == "interrupted" and "interrupted" in door.result()


def test_exit_at_the_review_leaves_without_approving(workspace):
    door = review(workspace, "/exit")
    assert door.commands.leaving and door.plan_file is None and door.state.plan_mode
    assert "left with /exit without approving" in door.result()


@pytest.mark.parametrize("keys", [("/mode build",), (SHIFT_TAB,)], ids=["/mode", "shift-tab"])
def test_a_mode_command_at_the_review_leaves_plan_mode_without_approving(workspace, keys):
    door = review(workspace, *keys)
    assert door.plan_file is None and not door.state.plan_mode
    assert door.state.permission_mode.value == "build"
    assert "without approving your plan; nothing was saved" in door.result()
    assert door.outcome.ending == "ended_by_tool"


def test_a_command_at_the_review_runs_and_is_never_feedback(workspace):
    door = review(workspace, "/todos", "/resume sess_x", "n")
    assert "The todo list is empty" in door.out.getvalue()
    assert "cannot run while a question waits" in door.out.getvalue()
    assert door.result() == REJECTED, "the question was asked again, and n answered it"
    assert all("/todos" not in str(m.get("content")) for m in door.model.requests[-1])


@pytest.mark.parametrize("command", ["/export", "/resume", "/rewind", "/hooks", "/permissions"])
def test_a_command_that_changes_no_conversation_runs_at_the_review(workspace, command):
    door = review(workspace, command, "n")
    assert "cannot run while a question waits" not in door.out.getvalue()
    assert door.result() == REJECTED
    if command == "/export":
        assert [path.name for path in (workspace / ".stepagent" / "exports").iterdir()]


def test_the_second_revision_shows_the_diff_and_the_feedback_that_led_to_it(workspace):
    out = io.StringIO()
    view = ConsoleView(Console(file=out, width=120))
    state = AppState()
    answers = iter(["add a test", "n"])
    screen = PlanReviewScreen(view, lambda question, **options: next(answers), state,
                              QuestionCommands(view))
    model = ScriptedModel([turn("", call("ExitPlanMode", plan=PLAN)),
                           turn("", call("ExitPlanMode", plan=PLAN + "\n2. Add a test"))])
    agent = assemble(workspace, state, model, screen, lambda request: False, product_layers())
    journal = Journal(None, state, workspace, warn=lambda text: None)
    state.events.subscribe(journal.on_event)
    screen.revisions = lambda: journal.revisions
    state.enter_plan_mode("/plan")
    agent.run_turn("plan it")
    shown = out.getvalue()
    first, second = shown.split("revision 2", 1)
    assert "Changed since" not in first
    assert "Changed since revision 1 after your feedback: add a test" in second
    assert "+2. Add a test" in second


def test_plan_show_at_the_review_prints_the_plan_under_review(workspace):
    door = review(workspace, "/plan show", "n")
    shown = door.out.getvalue()
    assert "No plan yet" not in shown
    assert "revision 1, under review now" in shown
    assert shown.count("1. Write made.txt") == 2, "the panel, then /plan show's own"
    assert door.result() == REJECTED, "the question was asked again"


def editor_script(tmp_path: Path, monkeypatch, body: str) -> Path:
    """$EDITOR becomes a shell script with `body` (the file to edit is $1)."""
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\n{body}\n")
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.setenv("VISUAL", "")
    return editor


def test_a_plan_emptied_in_the_editor_cancels_the_edit(workspace, tmp_path, monkeypatch):
    editor_script(tmp_path, monkeypatch, ': > "$1"')
    door = review(workspace, CTRL_G, "y")
    assert "the edit is cancelled" in door.out.getvalue()
    approved_exactly(door)  # the plan as it was before the editor
    assert "edited the plan" not in door.result()


def test_an_editor_that_fails_says_so_with_its_exit_code_and_its_edits_are_not_used(
        workspace, tmp_path, monkeypatch):
    editor = editor_script(tmp_path, monkeypatch, 'echo "3. Sneaked in" >> "$1"\nexit 3')
    door = review(workspace, CTRL_G, "y")
    said = " ".join(door.out.getvalue().split())
    assert f"The editor '{editor}' exited with code 3" in said and "The plan is unchanged" in said
    approved_exactly(door)
    assert "Sneaked in" not in door.result()


def test_plan_show_prints_the_plan_exactly_as_the_review_did(workspace):
    from ui.question_commands import show_outcome
    from ui.slash import run_slash_command

    door = review(workspace, "s")
    door.out.truncate(0), door.out.seek(0)
    show_outcome(run_slash_command("/plan show", door.session), door.commands.view)
    shown = door.out.getvalue()
    assert "## Plan" in shown, "the heading as written, not drawn as a heading"
    assert "awaiting approval" in shown


def test_plan_show_keeps_lines_apart_and_escapes_control_characters(workspace):
    from ui.question_commands import show_outcome
    from ui.slash import SlashOutcome

    plan = "first line\nsecond line\n# Title\n\x1b[31mred\n"
    out = io.StringIO()
    view = ConsoleView(Console(file=out, width=80))
    show_outcome(SlashOutcome("Plan revision 1 (save)", plan=plan), view)
    panel = out.getvalue()
    view.show_plan(plan, "Plan revision 1 (save)")
    assert out.getvalue() == panel * 2, "drawn as the review panel draws it"
    lines = panel.splitlines()
    assert any("first line" in line and "second" not in line for line in lines)
    assert "# Title" in panel and "\x1b[31m" not in panel
