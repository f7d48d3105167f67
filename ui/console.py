"""What the user sees: streamed markdown, each tool call and its outcome, the plan panel.

A tool call is drawn in the order things happen (its lines: ui/call_view.py):
`● Tool(args)` the moment it arrives (with a spinner naming the hook or the tool
running, until the result), then (if the user must answer) what it will run or
change and the question, then who allowed or denied it and why, then one line
saying what it did; a Write or Edit nobody was asked about (edit mode, yolo, a
session rule) shows the diff it made under that line. Everything here writes to one rich
Console (stderr in headless mode, so stdout carries only the final answer).
Whatever the model, a file or a command wrote is drawn through ui/safe_text.py,
so it cannot redraw the screen. A sub-agent's calls are drawn one line each,
indented under the Agent call that started it and marked with the sub-agent's
label (several may run at once), and a summary line when it ends.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from agent.approval import PermissionRequest
from agent.events import Event, ModeChanged, ToolDecision, ToolFinished, ToolRequested, ToolStarted
from agent.plan_model import PlanModelChosen
from agent.subagents import SubAgentDecision, SubAgentFinished, SubAgentStarted
from session.rewind.events import CheckpointTaken
from tools.base import counted
from tools.bash.left_running import LeftProcess, describe
from tools.bash.stop_left_running import BackgroundProcess, LeftRunningStopped
from tools.memory import MemoryChanged
from tools.todos import Todo, TodosChanged
from ui.markdown_stream import MarkdownStream
from ui.call_view import call_line, draw_change, draw_decision, draw_result, subagent_line
from ui.preview import render_preview
from ui.safe_text import invisible_warning, safe, safe_line, verbatim_markdown
from ui.ticker import Ticker

QUESTION_ROWS = 4  # what a question draws under its panel: the reason or key line (wrapped), the question

if TYPE_CHECKING:
    from models.openai_chat import Notice  # the client is loaded with the first request

REASONING_PREVIEW = 100
TODO_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
TODO_STYLES = {"completed": "dim", "in_progress": "bold yellow"}


def todo_line(todo: Todo) -> str:
    """One checklist line; an item in progress is shown in its active form."""
    return f"{TODO_MARKS[todo.status]} {todo.shown}"


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
        self.console.print(subagent_line(event), overflow="ellipsis", no_wrap=True)

    def show_decision(self, decision: ToolDecision) -> None:
        """Who allowed or denied the call; after a denial nothing runs, so the spinner stops."""
        if decision.decision == "deny":
            self.ticker.stop()
        draw_decision(self.console, decision)

    def show_result(self, finished: ToolFinished) -> None:
        """What the call did, and the diff it made unless its question showed it."""
        self.ticker.stop()
        draw_result(self.console, finished, self.repl)
        if finished.change and not finished.is_error and not self._previewed:
            draw_change(self.console, finished.change, self.repl)

    def show_request(self, request: PermissionRequest, whole: bool = False) -> None:
        """What a call will run or change (shortened unless `whole`), and why the user is asked.

        A preview taller than the screen says so: its top, what runs first, has scrolled away."""
        self.ticker.stop()
        if request.preview is not None:
            self._previewed = True
            panel = Panel(render_preview(request.preview, whole), border_style="yellow", expand=False,
                          padding=(0, 1))
            self.console.print(panel)
            if self._taller_than_screen(panel, len(request.preview.text.splitlines())):
                what = "command" if request.preview.kind == "command" else "change"
                self.notice(f"This {what} takes more lines than the screen shows: its top is above. "
                            "Scroll up to read all of it before you answer.", style="bold yellow")
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
        panel = Panel(verbatim_markdown(plan), title=title, border_style="magenta")
        self.console.print(panel)
        warning = invisible_warning(plan, "plan", "What is approved holds them as shown.")
        if warning:
            self.notice(warning, style="bold yellow")
        lines = len(plan.rstrip().splitlines())
        if self._taller_than_screen(panel, lines):
            self.notice(f"This plan is {counted(lines, 'line')}, more than the "
                        "screen shows: its top is above. Scroll up to read all of it, or press Ctrl+G to "
                        "read it in your editor.", style="bold yellow")

    def _taller_than_screen(self, panel: Panel, lines: int) -> bool:
        """Whether a panel of `lines` lines of text, drawn above a question, has its top scrolled away.

        The panel is measured only when its text alone would fit (long lines wrap)."""
        room = self.console.height - QUESTION_ROWS
        return lines + 2 > room or len(self.console.render_lines(panel, pad=False)) > room

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

