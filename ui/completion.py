"""Tab completion at the prompt: slash commands, then their arguments (modes, session ids, models).

Argument sources are callables, asked only when the user presses Tab after a
command that takes them; one that fails (no catalog, no store) offers nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document


@dataclass
class SlashCompleter(Completer):
    """Completes `/co` to `/compact`, and `/mode e` to `/mode edit`."""

    commands: Callable[[], list[str]]
    arguments: dict[str, Callable[[], list[str]]] = field(default_factory=dict)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        """Commands while the first word is typed; that command's arguments after a space."""
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        name, space, typed = text.partition(" ")
        if not space:
            for command in self.commands():
                if command.startswith(name):
                    yield Completion(command, start_position=-len(name))
            return
        source = self.arguments.get(name)
        if source is None or " " in typed:
            return
        try:
            choices = source()
        except Exception:  # a completion source must never break typing
            return
        for choice in choices:
            if choice.startswith(typed):
                yield Completion(choice, start_position=-len(typed))
