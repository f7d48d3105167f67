"""Reminders: short notes put into the conversation just before a request.

A reminder is a user message wrapped in a <system-reminder kind="…"> tag, kept
in the history (and so in the session store) like any message, so the model
sees when it was said. `add_due_reminders` is one of the agent's preparers.
The rules, each read off the state and the history:

  plan-mode   on entering plan mode, then after every 5 real user messages;
              the full text the 1st, 6th, 11th… time, a short one otherwise;
              the first one after re-entering also points at the saved plan
  plan-ended  once, on the next request after plan mode ends
  todo        when TodoWrite is a tool and 10 assistant messages have passed
              since both the last TodoWrite call and the last todo reminder
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from events import Todo
from plan_file import plan_path
from state import AppState

if TYPE_CHECKING:
    from agent import Agent

PLAN_INTERVAL = 5
FULL_EVERY = 5
TODO_INTERVAL = 10
TAG = re.compile(r'^<system-reminder kind="([a-z-]+)">')

PLAN_FULL = """Plan mode is active. The user wants no changes yet: do not edit files, run commands that change anything, commit, or change configuration.
Work in four phases:
1. Understand: read the code that matters with Read, Glob, Grep and read-only Bash.
2. Design: choose an approach; note the files to change and how to verify the result.
3. Review: if a decision is genuinely the user's, ask it plainly and wait.
4. Present: call ExitPlanMode with the plan.
End your turn either with a question for the user or with ExitPlanMode. Asking whether the plan is acceptable is ExitPlanMode's job, never a line of prose."""
PLAN_SHORT = "Plan mode is still active: research only, then present the plan with ExitPlanMode."
PLAN_REENTRY = ("A plan from earlier in this session is saved at {path}. Read it first; then "
                "refine it or, if the task has changed, start a new one.")
PLAN_ENDED = ("Plan mode has ended. You may now edit files and run commands, within the "
              "permission mode the user has chosen.")
TODO_NUDGE = ("TodoWrite has not been used for a while. If the task has several steps, updating "
              "the list helps you and the user keep track; ignore this if it does not apply.")


def wrap(kind: str, text: str) -> dict[str, str]:
    return {"role": "user", "content": f'<system-reminder kind="{kind}">\n{text}\n</system-reminder>'}


def reminder_kind(message: dict[str, Any]) -> str:
    """The kind of a reminder message, '' for any other message."""
    content = message.get("content")
    match = TAG.match(content) if message.get("role") == "user" and isinstance(content, str) else None
    return match.group(1) if match else ""


def todo_lines(todos: tuple[Todo, ...]) -> str:
    return "\n".join(f"{n}. [{t.status}] {t.content}" for n, t in enumerate(todos, 1)) or "(empty)"


def due_reminders(state: AppState, messages: list[dict[str, Any]], tool_names: tuple[str, ...],
                  workspace: Path) -> list[dict[str, str]]:
    due: list[dict[str, str]] = []
    if state.plan_exit_unannounced and not state.plan_mode:
        state.plan_exit_unannounced = False
        due.append(wrap("plan-ended", PLAN_ENDED))
    if state.plan_mode and (state.plan_reminders == 0 or
                            _user_messages_since(messages, "plan-mode") >= PLAN_INTERVAL):
        state.plan_reminders += 1
        text = PLAN_FULL if (state.plan_reminders - 1) % FULL_EVERY == 0 else PLAN_SHORT
        saved = plan_path(workspace, state.session_id)
        if state.plan_reminders == 1 and saved.exists():
            text += "\n" + PLAN_REENTRY.format(path=saved)
        due.append(wrap("plan-mode", text))
    if "TodoWrite" in tool_names and _assistant_messages_since_todo(messages) >= TODO_INTERVAL:
        due.append(wrap("todo", f"{TODO_NUDGE}\nCurrent list:\n{todo_lines(state.todos)}"))
    return due


def add_due_reminders(agent: "Agent") -> None:
    for reminder in due_reminders(agent.state, agent.messages, tuple(agent.executor.tools),
                                  agent.workspace):
        agent.add(reminder)


def _user_messages_since(messages: list[dict[str, Any]], kind: str) -> int:
    count = 0
    for message in reversed(messages):
        if reminder_kind(message) == kind:
            break
        if message["role"] == "user" and not reminder_kind(message):
            count += 1
    return count


def _assistant_messages_since_todo(messages: list[dict[str, Any]]) -> int:
    count = 0
    for message in reversed(messages):
        if reminder_kind(message) == "todo":
            break
        if message["role"] == "assistant":
            calls = message.get("tool_calls") or []
            if any(c["function"]["name"] == "TodoWrite" for c in calls):
                break
            count += 1
    return count
