"""Drawing the model's answer is bounded and linear, however it is shaped.

A list nested thousands of levels deep and a flat answer of 2 MB are drawn in
the REPL (a pseudo-terminal) and the prompt comes back; streamed, the text rich
parses as markdown adds up to no more than the answer once, plus the live area.
"""

from __future__ import annotations

import io
import json

from rich.console import Console
from rich.markdown import Markdown

from tests.terminal import Terminal
from ui.console import ConsoleView


def nested_list(depth: int) -> str:
    return "".join("  " * level + f"- item {level}\n" for level in range(depth))


def test_a_deep_list_and_a_flat_2_mb_answer_are_drawn_and_the_prompt_returns(workspace):
    deep = nested_list(3000) + "\nEND-OF-LIST\n"
    flat = "x" * 2_000_000 + " END-OF-FLAT"
    (workspace / "s.json").write_text(json.dumps([{"text": deep}, {"text": flat}]))
    terminal = Terminal.start(workspace, "--script", "s.json", "--context-window", "100000000")
    terminal.child.maxread, terminal.child.searchwindowsize = 1 << 16, 1 << 12  # pexpect's own search stays linear
    try:
        for message, end in (("draw a list", "END-OF-LIST"), ("draw a line", "END-OF-FLAT")):
            terminal.expect("›")
            terminal.sendline(message)
            terminal.expect_text(end)
        terminal.expect("›")
    finally:
        terminal.close()


def test_streamed_drawing_parses_each_character_at_most_once(monkeypatch):
    parsed: list[int] = []
    made = Markdown.__init__

    def counted(self, markup: str, *args, **kwargs) -> None:
        parsed.append(len(markup))
        made(self, markup, *args, **kwargs)

    monkeypatch.setattr(Markdown, "__init__", counted)
    for answer, last in ((nested_list(1600), "item 1599"), ("word " * 100_000 + "END", "END")):
        parsed.clear()
        console = Console(file=io.StringIO(), width=100, height=40, force_terminal=True)
        view = ConsoleView(console)
        for start in range(0, len(answer), 40):
            view.on_text(answer[start:start + 40])
        view.on_reply_end()
        assert sum(parsed) <= len(answer)
        assert last in console.file.getvalue()
