"""The callbacks the core takes from the UI: present a plan, approve a call.

Interactive ones ask through `ask` (prompt-toolkit in the REPL, a fake in tests);
Ctrl-D at a question counts as "no".
Headless ones (-p) cannot ask anyone: a plan is shown but not approved, so the
turn ends with no plan file, and a permission question is answered no.
"""

from __future__ import annotations

from typing import Callable

from tools.plan_mode import PlanReview
from ui.console import ConsoleView
from ui.safe_text import safe


def _answer(ask: Callable[[str], str], question: str) -> str:
    try:
        return ask(question)
    except EOFError:
        return "n"


def interactive_present(view: ConsoleView, ask: Callable[[str], str]) -> Callable[[str], PlanReview]:
    """Show the plan panel and read the review: y, n, or feedback."""
    def present(plan: str) -> PlanReview:
        view.show_plan(plan)
        return PlanReview.from_answer(_answer(ask, "Approve this plan? y = approve, n = reject, "
                                                   "or type feedback: "))
    return present


def interactive_approve(ask: Callable[[str], str]) -> Callable[[str], bool]:
    """Put a permission question to the user; only y or yes allows."""
    def approve(question: str) -> bool:
        return _answer(ask, f"{safe(question)} [y/N] ").strip().lower() in {"y", "yes"}
    return approve


def headless_present(view: ConsoleView) -> Callable[[str], PlanReview]:
    """Nobody can approve in -p: the plan is rejected, so the turn ends and nothing changes."""
    def present(plan: str) -> PlanReview:
        view.notice("The plan cannot be approved in -p mode; the turn ends and nothing is changed.",
                    style="yellow")
        return PlanReview("reject")
    return present


def headless_approve(view: ConsoleView) -> Callable[[str], bool]:
    """Nobody can answer in -p: every permission question is answered no, and shown."""
    def approve(question: str) -> bool:
        view.notice(f"{question} → no (-p cannot ask; use --mode yolo to allow)", style="yellow")
        return False
    return approve
