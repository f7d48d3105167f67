"""What the user sees: streamed markdown, each tool call and its outcome, the plan panel.

A tool call is drawn in the order things happen: `● Tool(args)` the moment it
arrives (with a spinner naming the hook or the tool running, until the result),
then (if the user must answer) what it will run or change and the question, then
who allowed or denied it and why, then one line saying what it did: lines read,
+a −b, matches, the exit code and the last lines of a command's output, or the
error in red; a Write or Edit nobody was asked about (edit mode, yolo, a session
rule) shows the diff it made under that line. Everything here writes to one rich
Console (stderr in headless mode, so stdout carries only the final answer).
Whatever the model, a file or a command wrote is drawn through ui/safe_text.py,
so it cannot redraw the screen. A sub-agent's calls are drawn one line each,
indented under the Agent call that started it and marked with the sub-agent's
label (several may run at once), and a summary line when it ends.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

from rich.console import Console
from rich.padding import Padding
from rich.panel import Panel
from rich.text import Text

from agent.approval import PermissionRequest
from agent.events import Event, ModeChanged, ToolDecision, ToolFinished, ToolRequested, ToolStarted
from agent.executor import LEFT_QUESTION, NOBODY_TO_ASK, UNANSWERED
from agent.plan_model import PlanModelChosen
from agent.subagents import SubAgentDecision, SubAgentFinished, SubAgentStarted
from hooks.session_rules import SESSION_RULE
from session.rewind.events import CheckpointTaken
from tools.base import counted
from tools.bash.left_running import LeftProcess, describe
from tools.bash.stop_left_running import BackgroundProcess, LeftRunningStopped
from tools.memory import MemoryChanged
from tools.plan_mode import EXIT_PLAN_MODE
from tools.todos import Todo, TodosChanged
from ui.markdown_stream import MarkdownStream
from ui.preview import change_lines, render_preview
from ui.safe_text import invisible_warning, reveal, safe, safe_line, verbatim_markdown
from ui.ticker import Ticker

if TYPE_CHECKING:
    from models.openai_chat import Notice  # the client is loaded with the first request

ARGUMENT_WIDTH = 60
REASONING_PREVIEW = 100
TAIL_LINES = 5
ERROR_LINES = 3
TODO_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
TODO_STYLES = {"completed": "dim", "in_progress": "bold yellow"}
MAIN_ARGUMENT = {"Read": "file_path", "Write": "file_path", "Edit": "file_path", "Bash": "command",
                 "Glob": "pattern", "Grep": "pattern"}
RESULT = "  ⎿ "
MORE = "    "


def todo_line(todo: Todo) -> str:
    """One checklist line; an item in progress is shown in its active form."""
    return f"{TODO_MARKS[todo.status]} {todo.shown}"


def call_line(tool: str, args: dict[str, Any], reviewed_here: bool = True) -> Text:
    """`● Tool(args)`: the call as it arrived, its main argument in full for Bash.

    A plan waits for the user's review only where someone can review it (not in -p).
    """
    line = Text("● ", style="bold cyan")
    line.append(safe(tool), style="bold")
    key = MAIN_ARGUMENT.get(tool)
    if key and isinstance(args.get(key), str):
        shown = reveal(args[key])
    else:
        shown = _summarise(args)
    line.append(f"({shown})", style="dim" if tool != "Bash" else "")
    if tool == EXIT_PLAN_MODE and reviewed_here:
        line.append("  waiting for your review", style="magenta")
    return line


def output_tail(content: str, lines: int = TAIL_LINES) -> tuple[list[str], int]:
    """A command's last output lines (without the exit-code line), and how many came before."""
    body = content.splitlines()
    if body and body[-1].startswith("[") and body[-1].endswith("]"):
        body = body[:-1]
    if body == ["(no output)"]:
        body = []
    return body[-lines:], max(len(body) - lines, 0)


@dataclass
class ConsoleView:
    """The screen: one console, the streamed answer and the spinner."""

    console: Console
    stream_markdown: bool = True
    repl: bool = True
    sandbox_status: Callable[[], str] = lambda: ""
    status: Callable[[], str] = lambda: ""
    draft: Callable[[], str] = lambda: ""
    ticker: Ticker = field(init=False)
    _stream: MarkdownStream = field(init=False)
    _reasoning: list[str] = field(default_factory=list)
    _previewed: bool = False
    _checkpoint_problem_shown: bool = False

    def __post_init__(self) -> None:
        self.ticker = Ticker(self.console, lambda: self.status(), lambda: self.draft())
        self._stream = MarkdownStream(self.console, lambda: self.status(), lambda: self.draft())

    def working(self) -> None:
        """The model was asked: a spinner with the seconds until its first words."""
        self.ticker.start("Working…")

    @contextmanager
    def running_hook(self, name: str) -> Iterator[None]:
        """A hook runs: the spinner names it, then says again what it said before."""
        before = self.ticker.label
        self.ticker.start(f"Running {safe(name)}…")
        try:
            yield
        finally:
            if before:
                self.ticker.start(before)
            else:
                self.ticker.stop()

    def on_text(self, piece: str) -> None:
        """Show the model's text as it arrives, rendered as markdown, each block drawn once.

        The reasoning before it is shown first, collapsed.
        """
        self.ticker.stop()
        self._show_reasoning()
        if self.stream_markdown:
            self._stream.feed(piece)

    def on_reply_end(self) -> None:
        """The reply is complete: what was still live is printed for good."""
        self.ticker.stop()
        self._show_reasoning()
        self._stream.finish()

    def on_event(self, event: Event) -> None:
        """Mode changes and the plan model (with who caused them), todo lists, tool calls and memories, as they happen."""
        if isinstance(event, ModeChanged):
            self.notice(f"mode → {event.label} (by {event.cause})",
                        style="magenta" if event.plan_mode else "cyan")
            status = self.sandbox_status() if event.plan_mode else ""
            if status:
                self.notice(status, style="dim")
            self.ticker.restatus()
            self._stream.restatus()
        elif isinstance(event, PlanModelChosen):
            self.notice(f"plan model → {safe(event.name) or 'off'} (by {safe(event.cause)})",
                        style="magenta")
        elif isinstance(event, TodosChanged):
            self.show_todos(event.new)
        elif isinstance(event, ToolRequested):
            self.ticker.stop()
            self._previewed = False
            self.console.print(call_line(event.tool, event.args, reviewed_here=self.repl))
            self.ticker.start(f"Running {safe(event.tool)}…")
        elif isinstance(event, ToolStarted):
            self.ticker.start(f"Running {safe(event.tool)}…")
        elif isinstance(event, ToolDecision):
            self.show_decision(event)
        elif isinstance(event, ToolFinished):
            self.show_result(event)
        elif isinstance(event, MemoryChanged):
            self.notice(f"memory {event.action}: {event.name} ({event.type}) — {event.description}",
                        style="blue")
        elif isinstance(event, (SubAgentStarted, SubAgentDecision, SubAgentFinished)):
            self.show_subagent(event)
        elif isinstance(event, LeftRunningStopped):
            self.show_left_running_stopped(event)
        elif isinstance(event, CheckpointTaken) and event.problem and not self._checkpoint_problem_shown:
            self._checkpoint_problem_shown = True
            still = " /rewind can still restore the conversation." if self.repl else ""
            self.notice(f"The checkpoint before this prompt holds no snapshot of the files: "
                        f"{safe(event.problem)}.{still}", style="yellow")

    def show_left_running_stopped(self, event: LeftRunningStopped) -> None:
        """Plan mode began: one line for what earlier commands left running and was stopped."""
        if event.stopped:
            self.notice(f"stopped {_processes(event.stopped)} that earlier commands left running",
                        style="yellow")
        if event.still_running:
            self.notice(f"could not stop {_processes(event.still_running)} that earlier commands "
                        "left running: they may still change things", style="bold red")

    def show_left_running_at_exit(self, left: list[LeftProcess]) -> None:
        """stepagent ends: one line for what its commands left running, if anything."""
        if left:
            self.notice(f"Left running by this session's commands: {describe(left)}. Exiting does not "
                        "stop what is left running; plan mode in this workspace does.", style="yellow")

    def show_subagent(self, event: SubAgentStarted | SubAgentDecision | SubAgentFinished) -> None:
        """A sub-agent's progress, one indented line each, under the Agent call."""
        line = Text(f"{RESULT}[{safe(event.agent)}] ", style="dim")
        if isinstance(event, SubAgentStarted):
            line.append(f"started{' in plan mode' if event.plan_mode else ''} · {safe(event.model)}",
                        style="dim")
        elif isinstance(event, SubAgentFinished):
            line.append(f"{event.ending} · {counted(event.tool_calls, 'tool call')} · "
                        f"{counted(event.requests, 'request')} · {event.seconds:.1f} s", style="bold" if event.ending ==
                        "answered" else "bold red")
        else:
            decision = event.decision
            line.append_text(call_line(decision.tool, decision.args))
            denied = decision.decision == "deny"
            who = "you" if decision.asked else decision.hook or "the hooks"
            line.append(f"  {'denied' if denied else 'allowed'}" + (f" by {who}" if denied or
                        decision.asked else ""), style="red" if denied else "green")
        self.console.print(line, overflow="ellipsis", no_wrap=True)

    def show_decision(self, decision: ToolDecision) -> None:
        """Who allowed or denied the call, and for a denial the reason the model is told."""
        if decision.decision == "deny":
            self.ticker.stop()  # nothing runs
            who = "you" if decision.asked else decision.hook
            said = NOBODY_TO_ASK if decision.hook == UNANSWERED else f"denied by {safe(who)}"
            if decision.left_with:  # not a no: the user left the question
                said = LEFT_QUESTION.format(safe(decision.left_with))
            self.console.print(Text(f"{RESULT}{said}", style="bold red"))
            reason = Text(safe(decision.reason), style="red")
            # -p's console does not wrap (a log line per line); Padding would pad each line with spaces
            self.console.print(Text(MORE) + reason if self.console.soft_wrap else
                               Padding(reason, (0, 0, 0, len(MORE))))
            return
        if decision.asked:
            remembered = (f", and by {safe(decision.reason)} from now on"
                          if decision.hook == SESSION_RULE else "")
            self.console.print(Text(f"{RESULT}allowed by you{remembered}", style="green"))
        elif decision.hook == SESSION_RULE:
            self.console.print(Text(f"{RESULT}allowed by {safe(decision.reason)}", style="green"))

    def show_result(self, finished: ToolFinished) -> None:
        """One line for what the call did; a command's last lines; an error in red."""
        self.ticker.stop()
        style = "red" if finished.is_error else "dim"
        if finished.tool == "Bash":
            tail, before = output_tail(finished.content)
            if before:
                more = " (/last shows all)" if self.repl else ""
                self.console.print(Text(f"{MORE}… {counted(before, 'earlier line')}{more}", style="dim"))
            for line in tail:
                self.console.print(Text(MORE + safe(line), style="dim"), overflow="ellipsis",
                                   no_wrap=True)
        if finished.is_error and finished.tool != "Bash":
            lines = safe(finished.content).splitlines() or [""]
            text = "\n".join(lines[:ERROR_LINES]) + ("\n…" if len(lines) > ERROR_LINES else "")
            self.console.print(Text(RESULT + text.replace("\n", "\n" + MORE), style="red"))
        elif finished.summary:
            self.console.print(Text(RESULT + safe(finished.summary), style=style))
        if finished.change and not finished.is_error and not self._previewed:
            self.show_change(finished.change)

    def show_change(self, diff: str) -> None:
        """The diff a Write or Edit made without a question (which would have shown it), cut short."""
        lines, cut = change_lines(diff)
        for line in lines:
            indented = Text(MORE) + line
            indented.rstrip()  # a blank context line would end in spaces
            self.console.print(indented, overflow="ellipsis", no_wrap=True)
        if cut:
            more = " (/diff shows all)" if self.repl else ""
            self.console.print(Text(f"{MORE}… {counted(cut, 'more line')}{more}", style="dim"))

    def show_request(self, request: PermissionRequest, whole: bool = False) -> None:
        """What a call will run or change (shortened unless `whole`), and why the user is asked."""
        self.ticker.stop()
        if request.preview is not None:
            self._previewed = True
            self.console.print(Panel(render_preview(request.preview, whole), border_style="yellow",
                                     expand=False, padding=(0, 1)))
        self.console.print(Text(safe(request.reason), style="yellow"))

    def show_todos(self, todos: tuple[Todo, ...]) -> None:
        """The todo list, one line per item."""
        if not todos:
            self.notice("The todo list is empty.", style="dim")
        for todo in todos:
            self.console.print(safe_line(f"  {todo_line(todo)}", style=TODO_STYLES.get(todo.status, "")))

    def show_markdown(self, text: str) -> None:
        """Markdown that came from the model, drawn whole and safely (a reprinted answer).

        It is drawn block by block, as a streamed reply is, so its time is bounded too.
        """
        MarkdownStream(self.console).show(text)

    def show_plan(self, plan: str, title: str = "Plan for approval") -> None:
        """The plan for review, in a panel, exactly as written: what is approved is what was shown."""
        self.ticker.stop()
        self.console.print(Panel(verbatim_markdown(plan), title=title, border_style="magenta"))
        warning = invisible_warning(plan, "plan", "What is approved holds them as shown.")
        if warning:
            self.notice(warning, style="bold yellow")

    def model_notice(self, notice: Notice) -> None:
        """A retry or an adaptation the model client made on its own, as one dim line."""
        self.notice(notice.text, style="dim")

    def on_reasoning(self, piece: str) -> None:
        """Collect the model's reasoning; it is shown collapsed, in one dim line, before the answer."""
        self._reasoning.append(piece)

    def _show_reasoning(self) -> None:
        thought = " ".join("".join(self._reasoning).split())
        self._reasoning.clear()
        if thought:
            words = len(thought.split())
            self.notice(f"∴ reasoning, {words} words: {thought[:REASONING_PREVIEW]}"
                        f"{'…' if len(thought) > REASONING_PREVIEW else ''}", style="dim italic")

    def notice(self, text: str, style: str = "cyan") -> None:
        """A line for the user; any part of it may be untrusted (titles, paths, summaries)."""
        self.console.print(safe_line(text, style=style))

    def command(self, label: str, command: str) -> None:
        """`label`, then a command on a line of its own that is never broken, so it can be copied."""
        if label:
            self.notice(label, style="dim")
        self.console.print(safe_line(command, style="bold"), soft_wrap=True)

    def error(self, text: str) -> None:
        """An error in red; its text may quote untrusted input."""
        self.console.print(safe_line(f"error: {text}", style="bold red"))


def _processes(processes: tuple[BackgroundProcess, ...]) -> str:
    """`1 process (1234 sh)`."""
    names = ", ".join(f"{process.pid} {process.name}" for process in processes)
    return f"{counted(len(processes), 'process')} ({names})"


def _summarise(args: dict[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        shown = reveal(value if isinstance(value, str) else json.dumps(value)).replace("\n", "⏎")
        parts.append(f"{key}={shown[:ARGUMENT_WIDTH]}{'…' if len(shown) > ARGUMENT_WIDTH else ''}")
    return ", ".join(parts)
