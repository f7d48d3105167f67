"""The plan review on the screen: the plan, what changed since the last revision, the keys.

ExitPlanMode's `present` in the REPL (line 3's face). The plan is drawn in a
panel, and one taller than the screen says so under it (its top has scrolled
away, and the question must not read as if the tail were all of it); from the
second revision on, the diff since the last reviewed one and the feedback that
led to it are drawn under it. Then the question, read only once all that is on
the screen (ui/type_ahead.py):

  y        approve, and go on in the mode the user had (build asks before each edit)
  e        approve into edit mode
  c        approve, and build in a fresh conversation holding only the plan (and the todos)
  s        save the plan for later: it stays pending, plan mode stays on
  n        reject (so do an empty line and Ctrl-D): the turn ends, the user speaks next
  Ctrl+G   edit the plan in $VISUAL or $EDITOR; the edited text is shown, and is what a
           later answer answers (an emptied plan cancels the edit, as git does)
  Shift+Tab, /mode NAME   leave plan mode without approving (the user's own command)
  /exit    leave stepagent; the plan is not approved
  /cmd     any other command runs (or is refused) and the question is asked again;
           /plan show prints the plan under review, as it stands
  other    feedback: the model keeps planning

Ctrl-C is not an answer: it interrupts the turn. Every review answers with the
exact text the user saw last (`PlanReview.plan`) and the diff of their edits.
The plan saved for later, presented again, is its own revision reviewed again.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from session.plan_revisions import Revision, plan_diff, reviewed_again
from state import AppState, PermissionMode
from tools.plan_mode import PlanReview
from tools.workspace import plan_text
from ui.console import ConsoleView
from ui.editor import editor_command, run_editor
from ui.preview import diff_text
from ui.question_commands import NO, YES, QuestionCommands, command_at_question, mode_keys
from ui.safe_text import safe

QUESTION = "Approve this plan? [y/e/c/s/N] "
CTRL_G = "\x07"
EDITS, CLEARS, SAVES = {"e", "edit"}, {"c", "clear"}, {"s", "save"}


def plan_review(text: str) -> PlanReview:
    """The review an answer gives: y, e, c or s (see above), n or nothing rejects, else feedback."""
    word = text.strip()
    if word.lower() in YES:
        return PlanReview("approve")
    if word.lower() in EDITS:
        return PlanReview("approve", mode=PermissionMode.EDIT)
    if word.lower() in CLEARS:
        return PlanReview("approve", clear=True)
    if word.lower() in SAVES:
        return PlanReview("save")
    if word.lower() in NO:
        return PlanReview("reject")
    return PlanReview("feedback", word)


def key_line(mode: str) -> str:
    """The key map under the question; `mode` is the one y approves into."""
    asks = ", which asks before each edit" if mode == "build" else ""
    return (f"y = approve and go on in {mode} mode{asks} · e = approve into edit mode · c = approve "
            "and build in a fresh conversation with only the plan · s = save for later · n = reject · "
            f"Ctrl+G = edit the plan ({editor_command()}) · or type feedback to keep planning")


def question_keys():
    """Ctrl+G and Shift+Tab end the question with a marker the review reads."""
    keys = mode_keys()
    keys.add("c-g")(lambda event: event.app.exit(result=CTRL_G))
    return keys


def edit_in_editor(plan: str) -> tuple[str, str]:
    """The plan after the user's editor closed, and what went wrong ('' when nothing did)."""
    with tempfile.TemporaryDirectory(prefix="stepagent-plan-") as folder:
        path = Path(folder) / "plan.md"
        path.write_text(plan, encoding="utf-8")
        failed = run_editor(path)
        try:
            return plan_text(path.read_text(encoding="utf-8", errors="replace")), failed
        except OSError as failure:
            return plan, failed or f"The edited plan could not be read: {failure.strerror}."


@dataclass
class PlanReviewScreen:
    """ExitPlanMode's `present` in the REPL; `last` is the review it gave last (the REPL reads it)."""

    view: ConsoleView
    ask: Callable[..., str]
    state: AppState
    commands: QuestionCommands
    revisions: Callable[[], list[Revision]] = list
    edit: Callable[[str], tuple[str, str]] = edit_in_editor
    last: PlanReview | None = None

    def __call__(self, plan: str) -> PlanReview:
        self.last = None
        self.last = review = self._review(plan)
        return review

    def _review(self, plan: str) -> PlanReview:
        revisions = self.revisions()
        earlier, again = next(reversed(revisions), None), reviewed_again(revisions, plan)
        number = again.number if again else earlier.number + 1 if earlier else 1
        title = f"Plan for approval · revision {number}"
        self.view.show_plan(plan, title + (", awaiting approval" if again else ""))
        if earlier is not None and again is None:
            self._show_since(earlier, plan)
        shown = plan
        while True:
            self.view.notice(key_line(self.state.permission_mode.value), style="dim")
            try:
                answer = self.ask(QUESTION, key_bindings=question_keys())
            except EOFError:
                answer = "n"
            edits = plan_diff(plan, shown, "plan (as the model wrote it)", "plan (as you edited it)")
            if answer == CTRL_G:
                shown = self._edited(plan, shown, title)
                continue
            left = command_at_question(answer, self.commands, self.state, (shown, title))
            if left:
                return PlanReview("left", plan=shown, edits=edits, left_by=left)
            if left is None:
                return replace(plan_review(answer), plan=shown, edits=edits)

    def _show_since(self, earlier: Revision, plan: str) -> None:
        said = f" after your feedback: {safe(earlier.feedback)}" if earlier.feedback else ""
        diff = plan_diff(earlier.plan, plan, f"revision {earlier.number}", "this revision")
        if not diff:
            self.view.notice(f"Unchanged since revision {earlier.number}{said}.", style="yellow")
            return
        self.view.notice(f"Changed since revision {earlier.number}{said}:", style="yellow")
        self.view.console.print(diff_text(safe(diff)))

    def _edited(self, plan: str, shown: str, title: str) -> str:
        edited, failed = self.edit(shown)
        if failed:
            self.view.error(f"{failed} The plan is unchanged.")
            return shown
        if not edited.strip():
            self.view.notice("The edited plan was empty, so the edit is cancelled (as git cancels "
                             "a commit whose message is empty); the plan is as it was.",
                             style="yellow")
            return shown
        if edited == shown:
            self.view.notice("The plan is unchanged.", style="dim")
            return shown
        self.view.show_plan(edited, f"{title}, edited by you")
        self.view.notice("Your edits to the model's plan (the model is told, with this diff):",
                         style="yellow")
        self.view.console.print(diff_text(safe(plan_diff(plan, edited, "model", "you"))))
        return edited
