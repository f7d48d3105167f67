"""Reminders: short notes put into the conversation just before a request.

A reminder is a user message wrapped in a <system-reminder kind="…"> tag
(agent/history.py: `wrap`), kept in the history (and so in the session store) like any message, so the model
sees when it was said. `Reminders` is one of the agent's preparers; `due_reminders`
only answers what is due, and `ReminderLog.record` notes what was sent.
The rules, each read off the state and the history:

  plan-mode   on entering plan mode, then after every 5 real user messages: a short
              note of when it was said, since the instructions themselves lead the
              system prompt at every request (said twice, they would cost tokens and
              say nothing new); the first one after re-entering points at the saved plan
  plan-ended  once, on the next request after plan mode ends
  todo        when TodoWrite is a tool and 10 assistant messages have passed
              since both the last TodoWrite call and the last todo reminder
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.events import Event, ModeChanged
from agent.history import reminder_kind, wrap
from session.compaction import Compacted
from session.plan_revisions import saved_plan
from state import AppState
from tools.todos import todo_lines, todos_of

if TYPE_CHECKING:
    from agent.loop import Agent

PLAN_INTERVAL = 5
TODO_INTERVAL = 10

STILL_ACTIVE = ("Plan mode is active (the system prompt's first section): research only, then "
                "present the plan with ExitPlanMode.")
ENDED = ("Plan mode has ended. You may now edit files and run commands, within the permission "
         "mode the user has chosen.")
PLAN_REENTRY = ("A plan from earlier in this session is saved at {path}. Read it first; then "
                "refine it or, if the task has changed, start a new one.")
TODO_NUDGE = ("TodoWrite has not been used for a while. If the task has several steps, updating "
              "the list helps you and the user keep track; ignore this if it does not apply.")


@dataclass
class ReminderLog:
    """What the reminders remember between requests, kept out of AppState.

    It follows the event stream: entering plan mode (or compacting) starts the
    plan-mode count again, leaving it makes the plan-ended note due.
    """

    planning: bool = False
    plan_sent: int = 0
    plan_ended_due: bool = False

    def on_event(self, event: Event) -> None:
        """Track plan mode's transitions and compactions."""
        if isinstance(event, ModeChanged):
            if event.plan_mode and not self.planning:
                self.plan_sent, self.plan_ended_due = 0, False
            elif self.planning and not event.plan_mode:
                self.plan_ended_due = True
            self.planning = event.plan_mode
        elif isinstance(event, Compacted):
            self.plan_sent = 0

    def record(self, sent: list[dict[str, str]]) -> None:
        """Note the reminders that were just added to the history."""
        kinds = [reminder_kind(message) for message in sent]
        self.plan_sent += kinds.count("plan-mode")
        if "plan-ended" in kinds:
            self.plan_ended_due = False


def due_reminders(state: AppState, log: ReminderLog, messages: list[dict[str, Any]],
                  tool_names: tuple[str, ...], workspace: Path) -> list[dict[str, str]]:
    """The reminders the next request should carry; changes nothing."""
    due: list[dict[str, str]] = []
    if log.plan_ended_due and not state.plan_mode:
        due.append(wrap("plan-ended", ENDED))
    if state.plan_mode and (log.plan_sent == 0 or
                            _user_messages_since(messages, "plan-mode") >= PLAN_INTERVAL):
        text = STILL_ACTIVE
        saved = saved_plan(workspace, state.session_id)
        if log.plan_sent == 0 and saved:
            text += "\n" + PLAN_REENTRY.format(path=saved)
        due.append(wrap("plan-mode", text))
    if "TodoWrite" in tool_names and _assistant_messages_since_todo(messages) >= TODO_INTERVAL:
        due.append(wrap("todo", f"{TODO_NUDGE}\nCurrent list:\n{todo_lines(todos_of(state))}"))
    return due


@dataclass
class Reminders:
    """The preparer: add what is due to the history, then record it as sent."""

    log: ReminderLog = field(default_factory=ReminderLog)

    def __call__(self, agent: "Agent") -> None:
        due = due_reminders(agent.state, self.log, agent.messages, tuple(agent.executor.tools),
                            agent.workspace)
        for reminder in due:
            agent.add(reminder)
        self.log.record(due)


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


def reminders_layer(agent: "Agent") -> None:
    """The layer: due reminders are added before each of the agent's requests."""
    reminders = Reminders(ReminderLog(planning=agent.state.plan_mode))
    agent.state.events.subscribe(reminders.log.on_event)
    agent.preparers.append(reminders)
