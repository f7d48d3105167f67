"""The callbacks the core takes from the UI: present a plan, approve a call, answer questions.

Interactive ones show what is at stake, then ask through `ask` (prompt-toolkit
in the REPL, a fake in tests); Ctrl-D at a question counts as "no". The last
line of every question keeps `Allow` (permissions) or `Approve` (plans), and
`y` answers yes.

Headless ones (-p) cannot ask anyone: a permission question is answered no; a
plan is left pending, neither approved nor rejected (so the turn ends with no plan
file), unless the user passed --approve-plan.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from agent.approval import Approve, PermissionAnswer, PermissionRequest
from state import AppState, PermissionMode
from tools.ask_user import Answers, Questionnaire
from tools.plan_mode import PlanReview
from ui.ask import headless_ask, interactive_ask
from ui.console import ConsoleView
from ui.safe_text import safe
from ui.type_ahead import asking_fresh

YES, ALWAYS, NO, EDITS = {"y", "yes"}, {"a", "always"}, {"", "n", "no"}, {"e", "edit"}
KEEPERS = {"p": "project", "project": "project", "u": "user", "user": "user"}  # "always", for longer


def _answer(ask: Callable[[str], str], question: str) -> str:
    try:
        return ask(question)
    except EOFError:
        return "n"


def permission_answer(text: str) -> PermissionAnswer:
    """y allows, n (or nothing) declines, other text declines with feedback.

    a allows and remembers the rule for the session, p for this project, u for every project.
    """
    word = text.strip()
    if word.lower() in YES:
        return PermissionAnswer(True)
    if word.lower() in ALWAYS:
        return PermissionAnswer(True, remember=True)
    if word.lower() in KEEPERS:
        return PermissionAnswer(True, remember=True, kept=KEEPERS[word.lower()])
    if word.lower() in NO:
        return PermissionAnswer(False)
    return PermissionAnswer(False, feedback=word)


def plan_review(text: str) -> PlanReview:
    """y approves, e approves in edit mode, n (or nothing) rejects, any other text is feedback."""
    word = text.strip()
    if word.lower() in YES:
        return PlanReview("approve")
    if word.lower() in EDITS:
        return PlanReview("approve", mode=PermissionMode.EDIT)
    if word.lower() in NO:
        return PlanReview("reject")
    return PlanReview("feedback", word)


def interactive_approve(view: ConsoleView, ask: Callable[[str], str]) -> Callable[[PermissionRequest], PermissionAnswer]:
    """Show what the call will do, then ask: yes, yes for this session, no, or feedback."""
    def approve(request: PermissionRequest) -> PermissionAnswer:
        view.show_request(request)
        always = (f"a = yes, and don't ask again for {safe(request.rule.label)} this session "
                  "(p: in this project, u: in every project) · " if request.rule else "")
        view.notice(f"y = yes · {always}n = no · or type what to do instead", style="dim")
        answer = permission_answer(_answer(ask, "Allow? [y/n] "))
        return answer if request.rule or not answer.remember else PermissionAnswer(True)
    return approve


def interactive_confirm(ask: Callable[[str], str]) -> Callable[[str], bool]:
    """A yes/no question outside a tool call (such as forking a busy session); only y or yes is yes."""
    def confirm(question: str) -> bool:
        return _answer(ask, f"{question} [y/N] ").strip().lower() in YES
    return confirm


def interactive_present(view: ConsoleView, ask: Callable[[str], str],
                        mode_after: Callable[[], str] = lambda: "build") -> Callable[[str], PlanReview]:
    """Show the plan panel and read the review: y, e (accept edits), n, or feedback."""
    def present(plan: str) -> PlanReview:
        view.show_plan(plan)
        mode = mode_after()
        asks = ", which asks before each edit" if mode == "build" else ""
        view.notice(f"y = approve and go on in {mode} mode{asks} · e = approve and accept edits "
                    "(edit mode) · n = reject · or type feedback to keep planning", style="dim")
        return plan_review(_answer(ask, "Approve this plan? [y/e/n] "))
    return present


def headless_present(view: ConsoleView, approve_plans: bool = False) -> Callable[[str], PlanReview]:
    """Nobody can review in -p: the plan stays pending, so nothing changes, unless --approve-plan.

    The turn then ends; run_headless says how to approve it (exit code 4).
    """
    def present(plan: str) -> PlanReview:
        if approve_plans:
            view.notice("Plan approved by --approve-plan.", style="yellow")
            return PlanReview("approve")
        return PlanReview("pending")
    return present


def headless_approve(view: ConsoleView) -> Callable[[PermissionRequest], PermissionAnswer]:
    """Nobody can answer in -p: every permission question is answered no, and shown."""
    def approve(request: PermissionRequest) -> PermissionAnswer:
        return PermissionAnswer(False, unanswered=f"Not run: {request.tool} needs the user's "
                                "permission here, and nobody can answer in a -p run (--mode edit or "
                                "yolo allows it).")
    return approve


class UICallbacks(NamedTuple):
    """The UI one run injects into the core; `confirm` asks yes/no at start-up (None in -p)."""

    present: Callable[[str], PlanReview]
    approve: Approve
    ask: Callable[[Questionnaire], Answers]
    confirm: Callable[[str], bool] | None


def callbacks_for(view: ConsoleView, state: AppState, headless: bool,
                  approve_plans: bool = False) -> UICallbacks:
    """The REPL's callbacks, which ask through prompt-toolkit, or -p's, which cannot ask anyone."""
    if headless:
        return UICallbacks(headless_present(view, approve_plans), headless_approve(view),
                           headless_ask(view), None)
    from prompt_toolkit import prompt

    ask, status_ask = asking_fresh(view, prompt), asking_fresh(view, asking_with_status(view))
    return UICallbacks(interactive_present(view, status_ask, lambda: state.permission_mode.value),
                       interactive_approve(view, status_ask), interactive_ask(view, ask),
                       interactive_confirm(ask))


def asking_with_status(view: ConsoleView) -> Callable[[str], str]:
    """prompt-toolkit's prompt with the REPL's status line (mode, context use) under the question."""
    from prompt_toolkit import prompt

    return lambda question: prompt(question, bottom_toolbar=lambda: view.status() or None)
