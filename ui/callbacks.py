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

from functools import partial
from typing import TYPE_CHECKING, Callable, NamedTuple

from agent.approval import Approve, PermissionAnswer, PermissionRequest
from state import AppState, PermissionMode
from tools.ask_user import Answers, Questionnaire
from tools.plan_mode import PlanReview
from ui.ask import headless_ask, interactive_ask
from ui.console import ConsoleView
from ui.plan_review import PlanReviewScreen
from ui.preview import hidden_lines
from ui.question_commands import NO, YES, QuestionCommands, answering_commands
from ui.safe_text import safe
from ui.turn_keys import TurnKeys
from ui.type_ahead import asking_fresh

if TYPE_CHECKING:
    from session.live import Session

ALWAYS = {"a", "always"}
VIEW = {"v", "view"}
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


def interactive_approve(view: ConsoleView, ask: Callable[[str], str]) -> Callable[[PermissionRequest], PermissionAnswer]:
    """Show what the call will do, then ask: yes, yes for this session, no, or feedback.

    The question lists the keys that work: a, p and u only where a rule can be kept, v only
    where the preview was shortened (it shows the whole, then asks again).
    """
    def approve(request: PermissionRequest) -> PermissionAnswer:
        view.show_request(request)
        viewable = request.preview is not None and hidden_lines(request.preview) > 0
        always = (f"a = yes, and don't ask again for {safe(request.rule)} this session "
                  "(p: in this project, u: in every project) · " if request.rule else "")
        whole = "v = view all · " if viewable else ""
        view.notice(f"y = yes · {whole}{always}n = no · or type what to do instead", style="dim")
        keys = ("y/a/p/u" if request.rule else "y") + ("/v" if viewable else "") + "/N"
        text = _answer(ask, f"Allow? [{keys}] ")
        while viewable and text.strip().lower() in VIEW:
            view.show_request(request, whole=True)
            text = _answer(ask, f"Allow? [{keys}] ")
        answer = permission_answer(text)
        return answer if request.rule or not answer.remember else PermissionAnswer(True)
    return approve


def interactive_confirm(ask: Callable[[str], str]) -> Callable[[str], bool]:
    """A yes/no question outside a tool call (such as forking a busy session); only y or yes is yes."""
    def confirm(question: str) -> bool:
        return _answer(ask, f"{question} [y/N] ").strip().lower() in YES
    return confirm


def headless_present(view: ConsoleView, approve_plan: str | None = None) -> Callable[[str], PlanReview]:
    """Nobody can review in -p: the plan stays pending, so nothing changes, unless --approve-plan.

    `approve_plan` is the mode --approve-plan=MODE names ('' for a bare --approve-plan: the
    mode in force), None without the flag. A pending plan ends the turn; run_headless says
    how to approve it (exit code 4).
    """
    def present(plan: str) -> PlanReview:
        if approve_plan is None:
            return PlanReview("pending")
        mode = PermissionMode(approve_plan) if approve_plan else None
        view.notice(f"Plan approved by --approve-plan{'=' + approve_plan if approve_plan else ''}.",
                    style="yellow")
        return PlanReview("approve", mode=mode)
    return present


def headless_approve(view: ConsoleView) -> Callable[[PermissionRequest], PermissionAnswer]:
    """Nobody can answer in -p: every permission question is answered no, and shown."""
    def approve(request: PermissionRequest) -> PermissionAnswer:
        return PermissionAnswer(False, unanswered=f"Not run: {request.tool} needs the user's "
                                "permission here, and nobody can answer in a -p run (--mode edit or "
                                "yolo allows it).")
    return approve


class UICallbacks(NamedTuple):
    """The UI one run injects into the core; `confirm` asks yes/no (start-up, /rewind; None in -p).

    In the REPL, `review` is the plan review (whose last answer the REPL reads) and
    `commands` runs the slash commands typed at questions; both act on the session
    once `bind` gives it to them. `keys` reads the keys typed while a turn runs.
    """

    present: Callable[[str], PlanReview]
    approve: Approve
    ask: Callable[[Questionnaire], Answers]
    confirm: Callable[[str], bool] | None
    review: PlanReviewScreen | None = None
    commands: QuestionCommands | None = None
    keys: TurnKeys | None = None

    def bind(self, session: Session) -> None:
        """The running session: the commands act on it, the review reads its plan revisions."""
        if self.commands is not None and self.review is not None:
            self.commands.bind(session)
            self.review.revisions = lambda: session.journal.revisions


def callbacks_for(view: ConsoleView, state: AppState, headless: bool,
                  approve_plan: str | None = None) -> UICallbacks:
    """The REPL's callbacks, which ask through prompt-toolkit, or -p's, which cannot ask anyone.

    Every question reads only what is typed once it is on the screen (ui/type_ahead.py),
    and a slash command typed at it runs as a command (ui/question_commands.py). Keys
    typed during a turn are read as it runs (ui/turn_keys.py); the spinner shows them.
    """
    if headless:
        return UICallbacks(headless_present(view, approve_plan), headless_approve(view),
                           headless_ask(view), None)
    from prompt_toolkit import prompt as any_prompt

    prompt = partial(any_prompt, enable_suspend=True)  # Ctrl-Z: back to the shell, `fg` returns

    commands, keys = QuestionCommands(view), TurnKeys(state, lambda text: view.notice(text, style="yellow"))
    view.draft = keys.draft
    status_ask = asking_fresh(view, asking_with_status(view), keys)
    review = PlanReviewScreen(view, status_ask, state, commands)
    return UICallbacks(review, interactive_approve(view, answering_commands(status_ask, commands, state)),
                       interactive_ask(view, answering_commands(asking_fresh(view, prompt, keys), commands,
                                                                state)),
                       interactive_confirm(asking_fresh(view, prompt, keys)), review, commands, keys)


def asking_with_status(view: ConsoleView) -> Callable[..., str]:
    """prompt-toolkit's prompt with the REPL's status line (mode, context use) under the question."""
    from prompt_toolkit import prompt

    return lambda question, **options: prompt(question, bottom_toolbar=lambda: view.status() or None,
                                              enable_suspend=True, **options)
