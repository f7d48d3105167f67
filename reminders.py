"""Reminders: short notes put into the conversation just before a request.

A reminder is a user message wrapped in <system-reminder> tags, kept in the
history like any message, so the model sees when it was said. Each rule here
reads the session state and says whether a reminder is due; the loop only asks
for the due ones. The rule for now: once plan mode has ended, by approval or by
the user's command, the model is told once that it may now make changes.
"""

from __future__ import annotations

from state import AppState

PLAN_ENDED = ("Plan mode has ended. You may now edit files and run commands, within the "
              "permission mode the user has chosen.")


def wrap(text: str) -> dict[str, str]:
    return {"role": "user", "content": f"<system-reminder>\n{text}\n</system-reminder>"}


def due_reminders(state: AppState) -> list[dict[str, str]]:
    due: list[dict[str, str]] = []
    if state.plan_exit_unannounced and not state.plan_mode:
        state.plan_exit_unannounced = False
        due.append(wrap(PLAN_ENDED))
    return due
