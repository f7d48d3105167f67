"""What keeps the history a valid next request: every tool call answered once, under its own id.

Two repairs the loop and resume share. `with_distinct_ids` gives a reply's tool
calls ids no other call in the reply or the history has (some servers reuse ids,
some models repeat them), before any call runs, so each result answers one call
and a journaled "started" mark names one call. `open_calls` finds the calls of
the last reply still without a result: what a turn cut short leaves behind.

A reminder (session/reminders.py) is a user message in a tag; `reminder_kind`
tells it from what the user typed, for everyone who reads the history.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from models.base import Reply

TAG = re.compile(r'^<system-reminder kind="([a-z-]+)">')


def ids_in(messages: list[dict[str, Any]]) -> set[str]:
    """Every tool-call id the history's assistant messages hold."""
    return {call["id"] for message in messages if message["role"] == "assistant"
            for call in message.get("tool_calls") or []}


def with_distinct_ids(reply: Reply, taken: set[str]) -> Reply:
    """The reply with each empty or already used call id replaced by a fresh one."""
    used = set(taken)
    calls = []
    for call in reply.tool_calls:
        new_id = call.id
        suffix = 1
        while not new_id or new_id in used:
            suffix += 1
            new_id = f"{call.id or 'call'}_{suffix}"
        used.add(new_id)
        calls.append(call if new_id == call.id else replace(call, id=new_id))
    return replace(reply, tool_calls=calls) if calls != reply.tool_calls else reply


def open_calls(messages: list[dict[str, Any]]) -> list[str]:
    """Ids of the last assistant message's calls that no tool message answers yet."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] == "assistant":
            answered = {m.get("tool_call_id") for m in messages[index + 1:] if m["role"] == "tool"}
            return [call["id"] for call in messages[index].get("tool_calls") or []
                    if call["id"] not in answered]
    return []


def wrap(kind: str, text: str) -> dict[str, str]:
    """A reminder message of this kind."""
    return {"role": "user", "content": f'<system-reminder kind="{kind}">\n{text}\n</system-reminder>'}


def reminder_kind(message: dict[str, Any]) -> str:
    """The kind of a reminder message, '' for any other message."""
    content = message.get("content")
    match = TAG.match(content) if message.get("role") == "user" and isinstance(content, str) else None
    return match.group(1) if match else ""
