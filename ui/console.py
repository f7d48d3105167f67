"""What the user sees: streamed markdown, one line per tool call, the plan panel.

Everything here writes to one rich Console (stderr in headless mode, so stdout
carries only the final answer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from executor import CallReport

ARGUMENT_WIDTH = 60


@dataclass
class ConsoleView:
    console: Console
    stream_markdown: bool = True
    _live: Live | None = None
    _text: list[str] = field(default_factory=list)

    def on_text(self, piece: str) -> None:
        """Show the model's text as it arrives, rendered as markdown."""
        self._text.append(piece)
        if not self.stream_markdown:
            return
        if self._live is None:
            self._live = Live(console=self.console, refresh_per_second=12,
                              vertical_overflow="visible")
            self._live.start()
        self._live.update(Markdown("".join(self._text)))

    def on_reply_end(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        self._text.clear()

    def on_call(self, report: CallReport) -> None:
        verdict = report.verdict
        line = Text()
        if verdict.decision == "deny":
            line.append("✗ ", style="bold red")
        else:
            line.append("● ", style="bold green")
        line.append(report.call.name, style="bold")
        line.append(f"({_summarise(report.args)})", style="dim")
        if verdict.decision == "deny":
            line.append(f"  denied by {verdict.hook}", style="red")
        elif verdict.decision == "ask":
            line.append("  allowed by you", style="green")
        else:
            line.append("  allowed", style="green")
        self.console.print(line)

    def show_plan(self, plan: str) -> None:
        self.console.print(Panel(Markdown(plan), title="Plan for approval", border_style="magenta",
                                 subtitle="y = approve · n = reject · anything else = feedback"))

    def notice(self, text: str, style: str = "cyan") -> None:
        self.console.print(Text(text, style=style))

    def error(self, text: str) -> None:
        self.console.print(Text(f"error: {text}", style="bold red"))


def _summarise(args: dict[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else json.dumps(value)
        shown = shown.replace("\n", "⏎")
        parts.append(f"{key}={shown[:ARGUMENT_WIDTH]}{'…' if len(shown) > ARGUMENT_WIDTH else ''}")
    return ", ".join(parts)
