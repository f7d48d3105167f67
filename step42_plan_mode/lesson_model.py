"""The offline lesson's model: it reads each request as a real model would, and picks the next step.

No key, no network: this is what `./bin/stepagent` talks to when no endpoint is
set. It does not replay a fixed list of turns; it follows the user. Each request
is read for what a real model could see in it (the plan-mode section at the top
of its instructions, its own earlier calls and their results, what the user
said), and `next_step` chooses the step that fits: after an approval it writes,
after feedback it revises the plan, after a rejection it waits (the rejection
ends the turn) and then revises with what the user says next, after Ctrl-C it
picks up where it stopped; an approval handed over as a message (/plan approve,
or c's fresh conversation) too. The words live in lesson_scenario.json, by step name,
with {placeholders} filled from the conversation, so the narration is chosen from
what happened and never contradicts the screen.

Each call's id carries the name of its step (`lesson-try_early-…`), which is how
the lesson finds its own place again, even in a resumed session.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from agent.executor import DECLINED, NOT_RUN
from agent.history import reminder_kind
from models.base import Reply, ToolCall, stream_words
from tools.plan_mode import APPROVED, EXIT_PLAN_MODE, NOT_APPROVED, REJECTED, RULES

SCENARIO = Path(__file__).resolve().parent / "lesson_scenario.json"
NAME = "offline lesson model (scripted)"
TODO_WRITE = "TodoWrite"
APPROVED_PLAN = "## Approved Plan:\n"
WRITE_STEPS = {"write_build", "write_edit", "write_yolo", "write_again", "write_without_plan"}


@dataclass
class Progress:
    """How far the lesson has got, as read from one request."""

    planning: bool = False
    started: bool = False
    explored: bool = False
    tried_early: bool = False
    plan_answers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    mode: str = "build"
    write_answers: list[str] = field(default_factory=list)
    written: bool = False
    declined_with: str = ""
    checked: bool = False
    todos: list[dict[str, str]] = field(default_factory=list)
    new_turn: bool = False
    said: str = ""
    approved_plan: str = ""

    @property
    def approved(self) -> bool:
        """Whether a plan was approved."""
        return "approved" in self.plan_answers


def _answer(content: str) -> str:
    """What a result says happened to the call: approved, feedback, rejected, declined, cut, done."""
    if content.startswith(APPROVED):
        return "approved"
    if content.startswith(NOT_APPROVED):
        return "feedback"
    if content.startswith(REJECTED):
        return "rejected"
    if content.startswith(DECLINED):
        return "declined"
    if content.startswith(NOT_RUN):
        return "interrupted" if "Ctrl-C" in content else "cut"
    return "done"


def _spoken(message: dict[str, Any]) -> str:
    """What the user typed, in one line; '' for anything else (reminders, an approval handed over)."""
    if message.get("role") != "user" or reminder_kind(message) or _approval(message):
        return ""
    return " ".join(str(message.get("content") or "").split())


def _approval(message: dict[str, Any]) -> str:
    """The approval ExitPlanMode handed over as a user message (/plan approve, c), else ''."""
    text = str(message.get("content") or "") if message.get("role") == "user" else ""
    return text if text.startswith(APPROVED) else ""


def read_progress(messages: list[dict[str, Any]]) -> Progress:
    """Read the lesson's place from a request: the system prompt, the calls and their results."""
    system = messages[0].get("content") or "" if messages and messages[0]["role"] == "system" else ""
    progress = Progress(planning=RULES in system)
    steps: dict[str, tuple[str, str]] = {}
    for index, message in enumerate(messages):
        for call in message.get("tool_calls") or [] if message["role"] == "assistant" else []:
            step = call["id"].split("-")[1] if call["id"].startswith("lesson-") else ""
            steps[call["id"]] = (step, call["function"]["name"])
        if message["role"] == "tool" and message.get("tool_call_id") in steps:
            step, tool = steps[message["tool_call_id"]]
            _note_result(progress, step, tool, message.get("content") or "", messages[index + 1:])
        if approval := _approval(message):
            _note_approval(progress, approval)
    said = [text for message in messages if (text := _spoken(message))]
    last = next((m for m in reversed(messages) if m["role"] != "user" or not reminder_kind(m)), {})
    progress.started = bool(steps) or progress.approved
    progress.new_turn = bool(_spoken(last))
    progress.said = said[-1] if said else ""
    return progress


def _note_result(progress: Progress, step: str, tool: str, content: str,
                 after: list[dict[str, Any]]) -> None:
    answer = _answer(content)
    retried = answer == "interrupted" or (answer == "cut" and step not in WRITE_STEPS)
    if retried and tool != EXIT_PLAN_MODE:  # a write nobody could allow (-p) is not retried
        return
    if tool == EXIT_PLAN_MODE:
        heard = next((text for m in after if (text := _spoken(m))), "")
        if answer in {"feedback", "rejected"} and heard:
            progress.notes.append(heard)
        if answer == "approved":
            _note_approval(progress, content)
        else:
            progress.plan_answers.append(answer)
    elif tool == TODO_WRITE:
        if content.startswith("{"):  # the list was written (a refusal is a sentence)
            progress.todos = json.loads(content)["todos"]
    elif step in {"start", "start_planning"} and tool == "Glob":
        progress.explored = True
    elif step == "try_early":
        progress.tried_early = True
    elif step in WRITE_STEPS:
        progress.write_answers.append(answer)
        progress.written = progress.written or answer == "done"
        said = content.partition("The user said: ")[2] if answer == "declined" else ""
        progress.declined_with = " ".join(said.split())
    elif step == "check":
        progress.checked = True


def _note_approval(progress: Progress, approval: str) -> None:
    """An approval, as a tool result or handed over as a message: the mode, and the plan approved."""
    progress.plan_answers.append("approved")
    if mode := re.search(r"You are in (\w+) mode", approval):
        progress.mode = mode.group(1)
    progress.approved_plan = approval.partition(APPROVED_PLAN)[2]


def next_step(progress: Progress) -> str:
    """The step that fits where the lesson is; one rule per situation, in the lesson's order."""
    if progress.checked:
        if progress.new_turn:
            return "over"
        if any(todo["status"] != "completed" for todo in progress.todos):
            return "tick_off"
        return "done" if progress.approved else "done_without_plan"
    if progress.written:
        return "check"
    if progress.planning:
        if progress.approved:
            return "replan"
        if not progress.explored:
            return "start_planning"
        if not progress.tried_early:
            return "try_early"
        last = progress.plan_answers[-1] if progress.plan_answers else ""
        return {"": "present", "feedback": "revise", "rejected": "after_reject",
                "interrupted": "after_interrupt"}.get(last, "present_again")
    if not progress.started:
        return "start"
    if progress.write_answers and progress.new_turn:
        return "write_again"
    if progress.write_answers and progress.write_answers[-1] in {"declined", "cut"}:
        return "write_declined"
    if progress.approved:
        return "write_again" if progress.new_turn else f"write_{progress.mode}"
    return "write_without_plan"


@dataclass
class LessonModel:
    """The offline lesson: each request read for where the lesson is, answered with that step."""

    scenario: dict[str, Any]
    name: str = NAME
    runs_in: str = "repl"  # or "headless" (-p), or "minimal": how the words say to answer, run again
    steps_taken: list[str] = field(default_factory=list)

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 on_text: Callable[[str], None]) -> Reply:
        """The step that fits this request, its text streamed word by word."""
        progress = read_progress(messages)
        progress.notes = progress.notes or self._notes_in(progress.approved_plan)
        step = next_step(progress)
        self.steps_taken.append(step)
        turn = self.scenario["steps"][step]
        offered = {tool["function"]["name"] for tool in tools}
        wanted = [call for call in turn.get("tool_calls", []) if self._wanted(call, progress, offered)]
        values = self._values(progress, handing_over=any("in_progress" in call for call in wanted))
        text = turn["text"].format_map(values)
        stream_words(text, on_text)
        calls = [ToolCall(f"lesson-{step}-{secrets.token_hex(4)}", call["name"],
                          json.dumps(self._arguments(call, progress, values))) for call in wanted]
        return Reply(text, calls)

    def _notes_in(self, plan: str) -> list[str]:
        """The user's notes a plan of the lesson carries (a fresh conversation has only the plan)."""
        line = re.escape(self.scenario["plan_note"].rstrip("\n"))
        pattern = line.replace(re.escape("{number}"), r"\d+").replace(re.escape("{note}"), "(.*)")
        return re.findall(f"^{pattern}$", plan, flags=re.MULTILINE)

    def _wanted(self, call: dict[str, Any], progress: Progress, offered: set[str]) -> bool:
        """A todo update only where TodoWrite is offered and the plan's steps are (to be) its list."""
        todo_update_fits = TODO_WRITE in offered and (bool(progress.todos) or call.get("in_progress") == 0)
        return "in_progress" not in call or todo_update_fits

    def _arguments(self, call: dict[str, Any], progress: Progress, values: dict[str, str]) -> dict[str, Any]:
        """A call's arguments; a todo update's are the plan's steps (create, check, each note)."""
        if "in_progress" not in call:
            return _filled(call["arguments"], values)
        words = self.scenario["todos"]
        steps = [words["create"], words["check"], *({key: text.format(note=note) for key, text in
                                                     words["note"].items()} for note in progress.notes)]
        current = call["in_progress"]
        return {"todos": [{**step, "status": "in_progress" if index == current else
                           "pending" if current == 0 else "completed"} for index, step in enumerate(steps)]}

    def _values(self, progress: Progress, handing_over: bool = False) -> dict[str, str]:
        scenario = self.scenario
        plan_notes = "".join(scenario["plan_note"].format(number=number, note=note)
                             for number, note in enumerate(progress.notes, 3))
        file_notes = "".join(scenario["content_note"].format(note=note) for note in progress.notes)
        return {"said": progress.said, "again": scenario["again"][self.runs_in],
                "choices": scenario["choices"][self.runs_in],
                "because": f" (“{progress.declined_with}”)" if progress.declined_with else "",
                "plan": scenario["plan"].format(notes=plan_notes),
                "handover": scenario["handover"] if handing_over else "",
                "time_scales": scenario["time_scales"] if progress.todos else "",
                "content": scenario["content"].format(notes=file_notes)}


def _filled(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format_map(values)
    if isinstance(value, dict):
        return {key: _filled(item, values) for key, item in value.items()}
    return value


def load_lesson(path: Path = SCENARIO, runs_in: str = "repl") -> LessonModel:
    """The lesson model with its words read from the scenario file, for where it `runs_in`."""
    return LessonModel(json.loads(path.read_text(encoding="utf-8")), runs_in=runs_in)
