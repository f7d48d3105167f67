"""What a hook's run means, read as Claude Code reads it.

  exit 2         block; standard error is the reason (PreToolUse: the call is denied;
                 PostToolUse: the model gets it as feedback; UserPromptSubmit: the prompt
                 is not sent; Stop: the model goes on with it as its next instruction)
  exit 0         fine; standard output may be one JSON object:
                   hookSpecificOutput.permissionDecision  allow | deny | ask   (PreToolUse)
                   hookSpecificOutput.permissionDecisionReason
                   decision: "block" with reason          (PostToolUse, UserPromptSubmit, Stop;
                                                           PreToolUse too, as a deny)
                   hookSpecificOutput.additionalContext   (UserPromptSubmit, SessionStart,
                                                           PostToolUse)
                   systemMessage                          shown to the user
                 other output on exit 0 is context for UserPromptSubmit and SessionStart,
                 and ignored elsewhere
  anything else  the hook failed: another exit code, a timeout, a hook that could not start,
                 or output that starts like JSON and is not the JSON it claims

What a failure does is the caller's (settings/user_layer.py): while planning it denies.
Text the model will read (a reason, context) is cut to MAX_REASON characters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from settings.command_hook import HookRun

MAX_REASON = 2000
Decision = Literal["", "allow", "deny", "ask", "block"]
PERMISSION_DECISIONS = {"allow", "deny", "ask"}


@dataclass(frozen=True)
class HookAnswer:
    """A hook's answer: its decision ('' for none), the reason, context, or why it failed."""

    decision: Decision = ""
    reason: str = ""
    context: str = ""
    message: str = ""
    failure: str = ""


def capped(text: str, limit: int = MAX_REASON) -> str:
    """`text` cut to `limit` characters, saying how much was cut."""
    text = text.strip()
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more characters cut]"


def read_answer(event: str, run: HookRun) -> HookAnswer:
    """What this run of a hook on `event` means; for PreToolUse a block is a deny."""
    answer = _read(event, run)
    if answer.decision == "block" and event == "PreToolUse":
        return HookAnswer("deny", answer.reason, answer.context, answer.message)
    return answer


def _read(event: str, run: HookRun) -> HookAnswer:
    if run.error:
        return HookAnswer(failure=run.error)
    if run.timed_out:
        return HookAnswer(failure="timed out, and was stopped")
    if run.exit_code == 2:
        return HookAnswer("block", capped(run.stderr) or "(the hook gave no reason)")
    if run.exit_code != 0:
        said = f": {capped(run.stderr, 300)}" if run.stderr.strip() else ""
        return HookAnswer(failure=f"exited with {run.exit_code}{said}")
    output = run.stdout.strip()
    if not output.startswith("{"):
        plain = event in ("UserPromptSubmit", "SessionStart")
        return HookAnswer(context=capped(output) if plain else "")
    try:
        data = json.loads(output)
    except json.JSONDecodeError as exc:
        return HookAnswer(failure=f"printed output that is not valid JSON ({exc.msg} at line {exc.lineno})")
    if not isinstance(data, dict):
        return HookAnswer(failure="printed JSON that is not an object")
    return _from_json(event, data)


def _from_json(event: str, data: dict[str, Any]) -> HookAnswer:
    specific = data.get("hookSpecificOutput") or {}
    message = data.get("systemMessage", "")
    if not isinstance(specific, dict) or not isinstance(message, str):
        return HookAnswer(failure="printed JSON whose hookSpecificOutput or systemMessage has the wrong type")
    context = specific.get("additionalContext", "")
    if not isinstance(context, str):
        return HookAnswer(failure="printed an additionalContext that is not text")
    decision, reason = "", ""
    if event == "PreToolUse" and "permissionDecision" in specific:
        decision = specific["permissionDecision"]
        reason = specific.get("permissionDecisionReason", "")
        if decision not in PERMISSION_DECISIONS:
            return HookAnswer(failure=f"printed permissionDecision {decision!r}; it must be allow, deny or ask")
    elif data.get("decision") is not None:
        decision, reason = data["decision"], data.get("reason", "")
        if decision == "approve" and event == "PreToolUse":
            decision = "allow"
        elif decision != "block":
            return HookAnswer(failure=f"printed decision {decision!r}; it must be \"block\"")
    if not isinstance(reason, str):
        return HookAnswer(failure="printed a reason that is not text")
    if data.get("continue") is False and not decision:
        decision, reason = "block", str(data.get("stopReason", "") or reason)
    return HookAnswer(decision, capped(reason), capped(context), capped(message, 500))
