"""The offline lesson's model: it reads each request as a real model would, and picks the next step.

No key, no network: `./bin/stepagent` talks to it when no endpoint is set. It follows the user
rather than replaying turns: `read_progress` reads what a real model could see (the plan-mode
section leading its instructions, its earlier calls and their results, what the user said) and
`next_step` picks the step that fits (after an approval it writes, after feedback it revises, after
a rejection it waits, after Ctrl-C it picks up; an approval handed over as a message too). The words
live in lesson_scenario.json by step, their {placeholders} filled from the conversation, so they
never contradict the screen. Each call's id names its step (`lesson-try_early-…`): that is how the
lesson finds its place again, even in a resumed session.
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
ANSWERS = {APPROVED: "approved", NOT_APPROVED: "feedback", REJECTED: "rejected", DECLINED: "declined", "Denied ": "declined"}
CARRY_ON = {"go on", "continue", "go ahead", "ok", "okay", "proceed", "try again", "yes"}


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
    existing: str = ""  # the file's text, when research found it there,
    first: str = "create"  # and then the plan's first step is "append"
    undone: bool = False  # a declined (or denied) Write's todo is back to pending
    approved: bool = False  # a plan was approved


def _answer(content: str) -> str:
    """What a result says happened to the call: approved, feedback, rejected, declined, cut, done."""
    if content.startswith(NOT_RUN):
        return "interrupted" if "Ctrl-C" in content else "cut"
    return next((word for start, word in ANSWERS.items() if content.startswith(start)), "done")


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
        carry_on = heard.lower().strip(" .!") in CARRY_ON  # not a note on the plan
        if answer in {"feedback", "rejected"} and heard and not carry_on:
            progress.notes.append(heard)
        answer = "carried_on" if carry_on and answer == "rejected" else answer
        if answer == "approved":
            _note_approval(progress, content)
        else:
            progress.plan_answers.append(answer)
    elif tool == TODO_WRITE:
        progress.undone = step == "undo_todo"
        if content.startswith("{"):  # the list was written (a refusal is a sentence)
            progress.todos = json.loads(content)["todos"]
    elif step in {"start", "start_planning", "reread"} and tool == "Read":
        progress.explored = True
        lines = re.findall(r"^ *\d+\t(.*)$", content, flags=re.MULTILINE)  # Read numbers each line
        if lines or content == "(empty file)":
            progress.existing, progress.first = "".join(f"{line}\n" for line in lines), "append"
    elif step == "try_early":
        progress.tried_early = True
    elif step in WRITE_STEPS:
        progress.write_answers.append(answer)
        progress.written = progress.written or answer == "done"
        denied = re.match(r"Denied by (.+?)(?:\. Nothing was run|: )", content)  # a deny rule, a user's hook
        progress.declined_with = denied[1] if denied else " ".join(content.partition("The user said: ")[2].split())
    elif step == "check":
        progress.checked = True


def _note_approval(progress: Progress, approval: str) -> None:
    """An approval, as a tool result or handed over as a message: the mode, and the plan approved."""
    progress.approved = True
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
        in_progress = any(todo["status"] == "in_progress" for todo in progress.todos)
        return "undo_todo" if in_progress and not progress.undone else "write_declined"
    if progress.approved and not progress.explored and "stepagent_lesson.txt` already" in progress.approved_plan:
        return "reread"  # c's fresh conversation has only the plan: what it appends to is read again
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
        progress.notes = self._notes_in(progress.approved_plan) if progress.approved_plan else progress.notes
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
        """The steps an approved plan adds to the lesson's own: the user's notes, and steps they wrote in."""
        line = re.escape(self.scenario["plan_note"].rstrip("\n").partition(" ")[2])
        note = line.replace(re.escape("{note}"), "(.*)")
        steps = re.findall(r"^\d+\. (.+)$", plan, flags=re.MULTILINE)
        return [found[1] if (found := re.fullmatch(note, step)) else step for step in steps
                if step not in self.scenario["plan_steps"].values()]

    def _wanted(self, call: dict[str, Any], progress: Progress, offered: set[str]) -> bool:
        """Tools offered only; a todo update only where the plan's steps are (to be) the todo list."""
        todo_update_fits = bool(progress.todos) or call.get("in_progress") == 0
        return call["name"] in offered and ("in_progress" not in call or todo_update_fits)

    def _arguments(self, call: dict[str, Any], progress: Progress, values: dict[str, str]) -> dict[str, Any]:
        """A call's arguments; a todo update's are the plan's steps (create, check, each note)."""
        if "in_progress" not in call:
            return _filled(call["arguments"], values)
        words = self.scenario["todos"]
        steps = [words[progress.first], words["check"], *({key: text.format(note=note) for key, text in
                                                          words["note"].items()} for note in progress.notes)]
        current = call["in_progress"]
        return {"todos": [{**step, "status": "in_progress" if index == current else  # -1: none yet
                           "pending" if current in {0, -1} else "completed"} for index, step in enumerate(steps)]}

    def _values(self, progress: Progress, handing_over: bool = False) -> dict[str, str]:
        scenario = self.scenario
        plan_notes = "".join(scenario["plan_note"].format(number=number, note=note)
                             for number, note in enumerate(progress.notes, 3))
        file_notes = "".join(scenario["content_note"].format(note=note) for note in progress.notes)
        return {"said": progress.said, "again": scenario["again"][self.runs_in],
                "choices": scenario["choices"][self.runs_in],
                "because": f" (“{progress.declined_with}”)" if progress.declined_with else "",
                "plan": scenario["plan"].format(notes=plan_notes, first=scenario["plan_steps"][progress.first],
                                                check=scenario["plan_steps"]["check"]), "kept": progress.existing,
                "handover": scenario["handover"] if handing_over else "",
                "time_scales": scenario["time_scales"] if progress.todos else "",
                "content": scenario["content"].format(notes=file_notes, kept=progress.existing)}


def _filled(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format_map(values)
    if isinstance(value, dict):
        return {key: _filled(item, values) for key, item in value.items()}
    return value


def load_lesson(path: Path = SCENARIO, runs_in: str = "repl") -> LessonModel:
    """The lesson model with its words read from the scenario file, for where it `runs_in`."""
    return LessonModel(json.loads(path.read_text(encoding="utf-8")), runs_in=runs_in)
