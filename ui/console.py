"""What the user sees: streamed markdown, one line per tool call, the plan panel.

Everything here writes to one rich Console (stderr in headless mode, so stdout
carries only the final answer). Whatever the model, a file or a command wrote
is drawn through ui/safe_text.py, so it cannot redraw the screen.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from rich.console import Console
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from agent.events import Event, MemoryChanged, ModeChanged, Todo, TodosChanged, ToolDecision
from models.base import Notice
from ui.safe_text import safe, safe_line, safe_markdown

ARGUMENT_WIDTH = 60
REASONING_PREVIEW = 100
TODO_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
TODO_STYLES = {"completed": "dim", "in_progress": "bold yellow"}


def todo_line(todo: Todo) -> str:
    """One checklist line; an item in progress is shown in its active form."""
    return f"{TODO_MARKS[todo.status]} {todo.shown}"


@dataclass
class ConsoleView:
    console: Console
    stream_markdown: bool = True
    sandbox_status: Callable[[], str] = lambda: ""
    _live: Live | None = None
    _text: list[str] = field(default_factory=list)
    _reasoning: list[str] = field(default_factory=list)

    def on_text(self, piece: str) -> None:
        """Show the model's text as it arrives, rendered as markdown (after its reasoning, collapsed)."""
        self._show_reasoning()
        self._text.append(piece)
        if not self.stream_markdown:
            return
        if self._live is None:
            self._live = Live(console=self.console, refresh_per_second=12,
                              vertical_overflow="visible")
            self._live.start()
        self._live.update(safe_markdown("".join(self._text)))

    def on_reply_end(self) -> None:
        self._show_reasoning()
        if self._live is not None:
            self._live.stop()
            self._live = None
        self._text.clear()

    def show_decision(self, decision: ToolDecision) -> None:
        """One line per tool call: the call, and who allowed or denied it."""
        denied = decision.decision == "deny"
        line = Text("✗ " if denied else "● ", style="bold red" if denied else "bold green")
        line.append(safe(decision.tool), style="bold")
        line.append(safe(f"({_summarise(decision.args)})"), style="dim")
        if denied:
            line.append(f"  denied by {'you' if decision.asked else decision.hook}", style="red")
        else:
            line.append("  allowed by you" if decision.asked else "  allowed", style="green")
        self.console.print(line)

    def on_event(self, event: Event) -> None:
        """Mode changes (with who caused them), todo lists, tool calls and memories, as they happen."""
        if isinstance(event, ModeChanged):
            self.notice(f"mode → {event.label} (by {event.cause})",
                        style="magenta" if event.plan_mode else "cyan")
            status = self.sandbox_status() if event.plan_mode else ""
            if status:
                self.notice(status, style="dim")
        elif isinstance(event, TodosChanged):
            self.show_todos(event.new)
        elif isinstance(event, ToolDecision):
            self.show_decision(event)
        elif isinstance(event, MemoryChanged):
            self.notice(f"memory {event.action}: {event.name} ({event.type}) — {event.description}",
                        style="blue")

    def show_todos(self, todos: tuple[Todo, ...]) -> None:
        if not todos:
            self.notice("Todo list is empty.", style="dim")
        for todo in todos:
            self.console.print(safe_line(f"  {todo_line(todo)}", style=TODO_STYLES.get(todo.status, "")))

    def show_plan(self, plan: str) -> None:
        self.console.print(Panel(safe_markdown(plan), title="Plan for approval", border_style="magenta",
                                 subtitle="y = approve · n = reject · anything else = feedback"))

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

    def error(self, text: str) -> None:
        """An error in red; its text may quote untrusted input."""
        self.console.print(safe_line(f"error: {text}", style="bold red"))


def _summarise(args: dict[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else json.dumps(value)
        shown = shown.replace("\n", "⏎")
        parts.append(f"{key}={shown[:ARGUMENT_WIDTH]}{'…' if len(shown) > ARGUMENT_WIDTH else ''}")
    return ", ".join(parts)
