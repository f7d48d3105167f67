"""The REPL's slash commands.

/plan and /mode change the state directly (the user may always enter or leave
plan mode); /lesson starts the offline lesson again; /compact, /resume, /fork,
/trace and /todos act on the Session; /rewind on the rewind layer's checkpoints; /model
switches models (ui/model_command.py).
Each command answers with a SlashOutcome: text to show, and whether there is a
message to send to the model or the REPL should end.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable

from models.base import ModelError
from session.live import Session, SessionBusy
from session.rewind.layer import rewind_of
from session.store import StoreUnavailable
from hooks.session_rules import KEPT_WHERE, rules_of
from settings.listing import hook_lines, rule_lines
from settings.schema import Settings
from session.plan_revisions import pending_plan, saved_plan
from step42_plan_mode.lesson_model import LessonModel
from tools.base import counted
from tools.plan_mode import EXIT_PLAN_MODE
from tools.todos import todos_of
from ui.console import todo_line
from ui.export_command import run_export
from ui.model_choice import REAL_MODEL
from ui.model_command import run_model
from ui.memory_command import edit_memory, list_memories, memory_folder
from ui.modes import MODE_CYCLE, select
from ui.review_endings import ENDED_BY_REVIEW
from ui.rewind_command import run_rewind
from ui.safe_text import safe
from ui.slash_help import HELP, command_names
from ui.startup import session_lines


@dataclass(frozen=True)
class SlashOutcome:
    """What a command did: text to show, a message to send the model, whether to leave.

    `resumed` says a session was resumed: the REPL reprints its last exchange. `markdown`
    is the model's text, drawn after the message as an answer is drawn live; `plan` is a
    plan, drawn exactly as written in the review's panel, titled by the message. `fresh_start`
    is the approval of a plan approved with c: a fresh conversation starts with it.
    """

    message: str = ""
    markdown: str = ""
    plan: str = ""
    send: str = ""
    exit: bool = False
    is_error: bool = False
    resumed: bool = False
    fresh_start: str = ""


def run_slash_command(line: str, session: Session,
                      confirm: Callable[[str], bool] | None = None) -> SlashOutcome:
    """Carry out one /command on the session; the outcome says what the REPL does next.

    `confirm` asks the user yes or no (/rewind asks before it changes files); None: nobody can.
    """
    name, _, rest = line.strip().partition(" ")
    name, rest = name.lower(), rest.strip()  # /HELP is /help, as /mode BUILD is /mode build
    state = session.agent.state
    if name == "/plan" and rest in {"show", "approve"}:
        return _show_plan(session) if rest == "show" else _approve_plan(session)
    if name == "/plan":
        if state.enter_plan_mode("/plan") or rest:
            return SlashOutcome(send=rest)
        return SlashOutcome("Already planning. Type the task, or leave with /mode or Shift+Tab.")
    if name == "/mode":
        if not rest:
            return SlashOutcome(f"Mode: {state.mode_label}. Choose one of: {', '.join(MODE_CYCLE)}.")
        rest = rest.lower()
        if rest not in MODE_CYCLE:
            return SlashOutcome(f"Unknown mode {rest!r}; choose one of: {', '.join(MODE_CYCLE)}.",
                                is_error=True)
        if rest == state.mode_label:
            return SlashOutcome(f"Already in {rest} mode.")
        select(state, rest, f"/mode {rest}")
        return SlashOutcome()
    if name == "/todos":
        lines = [todo_line(todo) for todo in todos_of(state)]
        return SlashOutcome("\n".join(lines) or "The todo list is empty.")
    if name == "/trace":
        return SlashOutcome("\n".join(session.trace()) or "No mode changes or tool calls yet.")
    if name in ("/hooks", "/permissions"):
        return SlashOutcome(safe("\n".join(_settings_lines(name, session))))
    if name == "/usage":
        usage = session.usage.session
        if not usage.reported:
            return SlashOutcome(f"This session: {session.agent.model.name} reports no token usage, so "
                                f"none is counted; {session.context_line()}, estimated from the text.")
        replies = "1 reply" if usage.replies == 1 else f"{usage.replies} replies"
        return SlashOutcome(f"This session: {usage.line()} over {replies}; "
                            f"{session.context_line()}.")
    if name == "/diff":
        return SlashOutcome(safe(session.changes.diff()) or "No file changed by Write or Edit yet "
                            "(changes made by Bash commands are not tracked; try git diff).")
    if name == "/clear":
        old = session.clear()
        kept = rules_of(session.agent.executor).rules
        rules = (f" Your \"don't ask again\" answers still hold ({', '.join(r.label for r in kept)})."
                 if kept else "")
        return SlashOutcome(f"A fresh conversation. The previous one is kept as {old}.{rules}")
    if name == "/model":
        return _model(session, rest)
    if name == "/lesson":
        return _lesson(session)
    if name == "/last":
        return SlashOutcome(safe(session.last_command_output()) or "No command has run yet.")
    if name == "/compact":
        return _compact(session)
    if name == "/resume":
        return _resume(session, rest)
    if name == "/fork":
        return _fork(session, rest)
    if name == "/export":
        message, failed = run_export(session, rest)
        return SlashOutcome(message, is_error=failed)
    if name == "/memory":
        return _memory(session, rest)
    if name == "/rewind":
        return _rewind(session, rest, confirm)
    if name == "/help":
        return SlashOutcome(HELP)
    if name in {"/exit", "/quit"}:
        return SlashOutcome(exit=True)
    return SlashOutcome(unknown_command(name), is_error=True)


def _settings_lines(name: str, session: Session) -> list[str]:
    hooks = session.user_hooks
    in_effect, waiting = (hooks.settings, hooks.waiting) if hooks else (Settings(), Settings())
    if name == "/hooks":
        return hook_lines(in_effect, waiting)
    answered = [(rule.label, f"your answer, for {KEPT_WHERE[rule.kept]}")
                for rule in rules_of(session.agent.executor).rules]
    return rule_lines(in_effect, waiting, answered)


def unknown_command(name: str) -> str:
    """What to say for a command that does not exist: the nearest one, if any is close."""
    close = difflib.get_close_matches(name, [*command_names(), "/quit"], n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]}?" if close else ""
    return f"Unknown command {safe(name)}.{hint} /help lists them; to send text starting with /, put a space before it."


def _model(session: Session, name: str) -> SlashOutcome:
    message, failed = run_model(session, name)
    return SlashOutcome(message, is_error=failed)


REVIEWED = {"approve": "approved", "cleared": "approved, built in a fresh conversation",
            "reject": "rejected", "feedback": "not approved: feedback given", "save": "saved for later",
            "left": "not approved: left", "interrupted": "not answered: interrupted",
            "error": "not answered: the review failed"}


def _show_plan(session: Session) -> SlashOutcome:
    """The pending plan if there is one, else the latest reviewed or saved plan, exactly as written."""
    revisions = session.journal.revisions
    pending = pending_plan(revisions)
    if pending is not None:
        return SlashOutcome(f"Plan revision {pending.number}, awaiting approval (/plan approve "
                            "reviews it)", plan=pending.plan)
    if revisions:
        last = revisions[-1]
        return SlashOutcome(f"Plan revision {last.number} ({REVIEWED.get(last.outcome, last.outcome)})",
                            plan=last.plan)
    saved = saved_plan(session.agent.workspace, session.agent.state.session_id)
    if saved is not None:
        return SlashOutcome(f"The plan saved at {saved}", plan=saved.read_text(errors="replace"))
    return SlashOutcome("No plan yet in this session: /plan TASK starts one.")


def _approve_plan(session: Session) -> SlashOutcome:
    """Review the pending plan again (saved with s, or left by -p) through ExitPlanMode itself."""
    pending = pending_plan(session.journal.revisions)
    if pending is None:
        return SlashOutcome("No plan is waiting for approval (s at a plan review saves one; a -p "
                            "run leaves one when nobody could review it).", is_error=True)
    if not session.agent.state.plan_mode:
        session.agent.state.enter_plan_mode("/plan approve")
    result = session.agent.executor.tools[EXIT_PLAN_MODE].handler({"plan": pending.plan})
    reviewed = session.journal.revisions[-1]
    if reviewed.outcome == "cleared":
        return SlashOutcome(result.summary, fresh_start=result.content)
    if reviewed.outcome == "approve":
        return SlashOutcome(result.summary, send=result.content)
    said = ENDED_BY_REVIEW[reviewed.outcome] if reviewed.outcome in {"reject", "save"} else result.summary
    return SlashOutcome(said, send=result.follow_up or "")


def _lesson(session: Session) -> SlashOutcome:
    if not isinstance(session.agent.model, LessonModel):
        return SlashOutcome("/lesson restarts the offline lesson, which runs when no model endpoint "
                            "is set: start stepagent without OPENAI_API_KEY (and without a local "
                            "OPENAI_BASE_URL) to take it.", is_error=True)
    old = session.clear()
    select(session.agent.state, "build", "/lesson")
    forgotten = [rule.label for rule in rules_of(session.agent.executor).forget()]
    rules = f" Build mode asks again for {', '.join(forgotten)}." if forgotten else ""
    return SlashOutcome(f"The lesson starts again in a fresh conversation (the previous one is kept "
                        f"as {old}).{rules} Try: /plan add a greeting file")


def _compact(session: Session) -> SlashOutcome:
    if isinstance(session.agent.model, LessonModel):
        return SlashOutcome("Nothing was compacted: /compact asks the model to summarise the "
                            "conversation, and the offline lesson model only plays the lesson's "
                            f"steps; it cannot write a summary. {REAL_MODEL} What compaction keeps "
                            "(plan mode, the plan, the todos) is in step42_plan_mode/README.md.",
                            is_error=True)
    if not session.agent.messages:
        return SlashOutcome("Nothing to compact yet.")
    try:
        summary = session.compact()
    except ModelError as failure:
        return SlashOutcome(f"Compaction failed, the history is unchanged: {failure}", is_error=True)
    return SlashOutcome("Compacted. Summary:", markdown=summary)


def _resume(session: Session, session_id: str) -> SlashOutcome:
    try:
        if not session_id:
            return SlashOutcome(_session_list(session))
        session_id = session.resume(session_id)
    except SessionBusy as busy:
        return SlashOutcome(f"{busy.args[0].capitalize()}; /fork {session_id} continues it in a new "
                            "session with a copy of its history.", is_error=True)
    except StoreUnavailable as failure:
        return SlashOutcome(f"{failure}. This session goes on unchanged.", is_error=True)
    return SlashOutcome(f"Resumed {session_id}: {len(session.agent.messages)} messages.",
                        resumed=True)


def _session_list(session: Session) -> str:
    """This workspace's sessions; the ● is promised only when this session is stored and listed."""
    sessions, current = session.recent(), session.agent.state.session_id
    if not sessions:
        return "No stored sessions here."
    marked = ", ● this one" if any(info.id == current for info in sessions) else ""
    return (f"Sessions in this workspace (newest first{marked}):\n" +
            "\n".join(session_lines(sessions, current, session.stored())) +
            "\nResume one with /resume ID (a unique start of the id will do).")


def _fork(session: Session, session_id: str) -> SlashOutcome:
    if not session_id:
        return SlashOutcome("Name the session to fork: /fork ID (/resume lists them).", is_error=True)
    try:
        session_id = session.find(session_id)
        fork_id = session.fork(session_id)
    except StoreUnavailable as failure:
        return SlashOutcome(f"{failure}. This session goes on unchanged.", is_error=True)
    return SlashOutcome(f"Forked {session_id} into {fork_id}: {len(session.agent.messages)} messages.")


def _memory(session: Session, name: str) -> SlashOutcome:
    folder = memory_folder(session)
    if folder is None:
        return SlashOutcome("This session has no memory (stepagent has no home folder).",
                            is_error=True)
    if not name:
        return SlashOutcome(list_memories(folder))
    message, failed = edit_memory(folder, name)
    return SlashOutcome(message, is_error=failed)


def _rewind(session: Session, arguments: str, confirm: Callable[[str], bool] | None) -> SlashOutcome:
    rewind = rewind_of(session.agent)
    if rewind is None:
        return SlashOutcome("Rewind is not attached to this session.", is_error=True)
    message, failed = run_rewind(rewind, arguments, confirm)
    return SlashOutcome(message, is_error=failed)

