"""`--script FILE --check`: replay a recorded session and report what came out differently.

The user's recorded messages are sent again, questions are answered as they
were (session/recording.py), and each tool result is compared with the one kept
in the recording. Exit code 0 when all match, 1 when any differs.
"""

from __future__ import annotations

from typing import Any

from agent.loop import Agent
from session.recording import differences, user_messages
from ui.console import ConsoleView
from ui.modes import select


def run_check(agent: Agent, recording: dict[str, Any], view: ConsoleView) -> int:
    """Replay every recorded user message, then print each differing tool result."""
    select(agent.state, recording.get("mode", "build"), "--check")
    for text in user_messages(recording):
        agent.run_turn(text)
    reports = differences(recording, agent.messages, agent.workspace, agent.state.session_id)
    for report in reports:
        print(report)
    print(f"{len(reports)} tool result(s) differ from the recording." if reports
          else "Every tool result matches the recording.")
    return 1 if reports else 0
