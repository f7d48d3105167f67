"""Whether a history is a valid next request: the check behind "the conversation is intact".

Part of the session layer. The loop keeps the history valid (agent/history.py
repairs what a turn cut short leaves); this says, of any history (in memory or
read back from the store), what keeps it from being one, so the REPL states
what holds after a turn stopped early instead of assuming it.
"""

from __future__ import annotations

from typing import Any


def history_problem(messages: list[dict[str, Any]]) -> str:
    """Why the history is not a valid next request ('' when it is).

    Every tool call is answered by exactly one tool message before the next
    assistant or user message, and no tool message answers a call not open.
    """
    waiting: list[str] = []
    for message in messages:
        role = message.get("role")
        if role in ("assistant", "user") and waiting:
            return f"tool calls without results: {', '.join(waiting)}"
        if role == "assistant":
            waiting = [call["id"] for call in message.get("tool_calls") or []]
        elif role == "tool":
            if message.get("tool_call_id") not in waiting:
                return f"an orphan tool result, for call {message.get('tool_call_id')}"
            waiting.remove(message["tool_call_id"])
    return f"tool calls without results: {', '.join(waiting)}" if waiting else ""
