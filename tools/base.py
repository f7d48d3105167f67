"""The Tool record, the Judgement its judge gives, and the ToolResult every call ends in.

A tool is data: a name, a description and a JSON schema for the model, a handler
for the executor, and three flags the hooks read: `read_only` (can never change
anything), `allowed_in_plan_mode` (changes only session state, like TodoWrite)
and `requires_user` (always reaches the user, in every permission mode). A tool
whose safety depends on its arguments, like Bash, carries a `judge` instead: the
executor asks it once per call (hooks/registry.py: `ToolCallEvent.judgement`),
and a tool that acts on that decision takes it in `run_decided` (the hardened
Bash picks its sandbox by it), so one call is never judged twice. A Judgement
teaches when it denies: the rule that refused the call, the token that made it
unsafe, and a read-only alternative where one exists.
`plan_mode_hint` is a sentence the plan-mode guard adds to its denial of this
tool, to say what the model can do instead (the guard itself names no tool).
A tool that changes things may carry a `preview`: what the user sees before
being asked (a Preview; the preview layer, tools/preview.py, gives Write and Edit theirs).
`concurrent` lets the executor run the tool's calls of one reply side by side
(the Agent tool: several sub-agents at once).
A handler stopped by Ctrl-C may raise CallInterrupted with what it had produced
so far; the executor gives the call its "interrupted while running" result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Literal


@dataclass(frozen=True)
class Judgement:
    """Whether a call can change anything, and if so the rule, token and alternative.

    A read-only judgement may carry in `rule` why it passed (the Bash quiz explains with it).
    """

    read_only: bool
    rule: str = ""
    token: str = ""
    alternative: str = ""

    def explain(self) -> str:
        """One paragraph for a denial: rule, token, alternative."""
        parts = [f"rule: {self.rule}"]
        if self.token:
            parts.append(f"unsafe token: {self.token!r}")
        text = "; ".join(parts) + "."
        if self.alternative:
            text += f" Read-only alternative: {self.alternative}"
        return text


@dataclass(frozen=True)
class Preview:
    """What a call will run or change, shown before the user is asked (failure mode 12).

    A command, a unified diff, or a new file's content; UI-free data the console draws.
    """

    kind: Literal["command", "diff", "content"]
    text: str
    path: str = ""
    added: int = 0
    removed: int = 0
    note: str = ""


MAX_RESULT_CHARS = 100_000  # about 25,000 tokens: what one tool result may put into the history


@dataclass
class ToolResult:
    """What goes back to the model as the call's result.

    `end_turn` stops the turn after this result (a rejected plan); `follow_up`
    is a real user message added after the results (plan feedback). `summary` is
    the one line the user sees for it (lines read, +a −b, exit code…); `change`,
    the unified diff a Write or Edit made, for the screen (the model is not sent it).
    """

    content: str
    is_error: bool = False
    end_turn: bool = False
    follow_up: str | None = None
    summary: str = ""
    change: str = ""


@dataclass(frozen=True)
class Tool:
    """A tool as data: what the model sees, the handler, and the flags the hooks read."""

    name: str
    description: str
    parameters: dict[str, Any]
    handler: Callable[[dict[str, Any]], ToolResult]
    read_only: bool = False
    allowed_in_plan_mode: bool = False
    requires_user: bool = False
    judge: Callable[[dict[str, Any]], Judgement] | None = None
    plan_mode_hint: str = ""
    preview: Callable[[dict[str, Any]], Preview] | None = None
    concurrent: bool = False
    run_decided: Callable[[dict[str, Any], "CallDecision"], ToolResult] | None = None

    def schema(self) -> dict[str, Any]:
        """The Chat Completions `tools` entry for this tool."""
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}

    def judge_call(self, args: dict[str, Any]) -> Judgement:
        """Can this call change anything? Flags first, then the tool's own judge; no judge: yes."""
        if self.read_only:
            return Judgement(True)
        if self.judge is not None:
            return self.judge(args)
        return Judgement(False, rule="writes files")


@dataclass(frozen=True)
class CallDecision:
    """What the executor decided for one call before its handler runs: the judgement and the mode."""

    judgement: Judgement
    plan_mode: bool


class CallInterrupted(KeyboardInterrupt):
    """Ctrl-C while a call ran, with what it produced so far and the result it gets.

    The tool sets `output`; the executor sets `result` (for `call_id`), which the loop records.
    """

    def __init__(self, output: str = ""):
        super().__init__()
        self.output = output
        self.call_id = ""
        self.result: ToolResult | None = None


class QuestionLeft(Exception):
    """The user left a question with `args[0]` (/exit, /mode NAME, Shift+Tab): no answer; the turn ends."""
    TOLD = "left with {} without {}. You are now in {} mode. Stop here; the user speaks next."


def counted(count: int, noun: str) -> str:
    """`1 line`, `2 lines`, `3 matches`: a count with its noun in the right number."""
    plural = noun + ("es" if noun.endswith(("ch", "sh", "s", "x")) else "s")
    return f"{count} {noun if count == 1 else plural}"


def capped(result: ToolResult) -> ToolResult:
    """The result cut to MAX_RESULT_CHARS, with a note saying what was cut and how to see the rest.

    The executor applies it to every result, so no tool can flood the history, the
    journal or memory, whatever its own limits.
    """
    if len(result.content) <= MAX_RESULT_CHARS:
        return result
    note = (f"\n[… cut: this result had {len(result.content):,} characters and only the first "
            f"{MAX_RESULT_CHARS:,} are kept. Ask for less at a time: Read with offset and limit, "
            "a narrower Grep, Bash output through head, tail or grep.]")
    return replace(result, content=result.content[:MAX_RESULT_CHARS] + note)


def error(message: str) -> ToolResult:
    """A result that tells the model the call failed, and why, so it can try otherwise."""
    return ToolResult(message, is_error=True)


def object_schema(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON schema for an object with these required and optional properties."""
    properties = {**required, **(optional or {})}
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}
