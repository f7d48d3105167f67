"""The lesson's core on its own: plan mode with no layer, driven by `input()`.

    python -m step42_plan_mode.minimal [REQUEST]

Runs in the current directory with the offline lesson model. The model enters
plan mode, researches, has a write denied by the plan-mode guard (and its Bash,
which has no judge here), presents a plan, and you answer y or n on standard
input. Only after y is the file written (edit mode: the plan was the question);
after n nothing is. What runs is agent/assemble.py's core and nothing else: no
sandbox, classifier, store, memory, sub-agents or UI library
(tests/test_minimal.py counts the files it loads). Read this file, then the
core's, and you have read the lesson.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agent.approval import PermissionAnswer, PermissionRequest
from agent.assemble import assemble
from agent.events import Event, ModeChanged, ToolDecision, ToolFinished
from state import AppState, PermissionMode
from step42_plan_mode.lesson_model import load_lesson
from tools.plan_mode import PlanReview

REQUEST = "add a greeting file"


def ask(question: str) -> bool:
    """One yes/no question on standard input; end of input counts as no."""
    try:
        return input(question).strip().lower() in {"y", "yes"}
    except EOFError:
        return False


def present(plan: str) -> PlanReview:
    """ExitPlanMode's callback: show the plan, then approve it or reject it."""
    print(f"\n--- plan ---\n{plan}\n------------")
    return PlanReview("approve") if ask("Approve this plan? [y/N] ") else PlanReview("reject")


def approve(request: PermissionRequest) -> PermissionAnswer:
    """The permission question an ask hook raises: the tool, why, and yes or no."""
    print(f"\n{request.tool} {request.args}")
    return PermissionAnswer(ask(f"{request.reason} [y/N] "))


def show(event: Event) -> None:
    """What happened, one line each: mode changes, decisions that were not allow, results."""
    if isinstance(event, ModeChanged):
        print(f"[mode: {event.label}, by {event.cause}]")
    elif isinstance(event, ToolDecision) and event.decision != "allow":
        print(f"[{event.tool} {event.decision}: {event.reason}]")
    elif isinstance(event, ToolFinished):
        print(f"[{event.tool}: {event.summary or (event.content.splitlines() or [''])[0]}]")


def main(argv: list[str]) -> int:
    """Play one turn of the lesson in the current directory; 0 when the model answered."""
    state = AppState(permission_mode=PermissionMode.EDIT)
    state.events.subscribe(show)
    agent = assemble(Path.cwd(), state, load_lesson(runs_in="minimal"), present, approve)
    agent.on_text = lambda piece: print(piece.replace("**", ""), end="", flush=True)  # plain, not markdown
    agent.on_reply_end = print
    outcome = agent.run_turn(" ".join(argv) or REQUEST)
    print(f"[turn {outcome.ending}{': ' + outcome.error if outcome.error else ''}]")
    return 0 if outcome.ending in {"answered", "ended_by_tool"} else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
