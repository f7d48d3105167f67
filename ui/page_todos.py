"""The session page's todo lists: each list as TodoWrite left it, with status marks that need no colour.

Part of the HTML export: ui/page.py shows every list in its own section, and
ui/page_conversation.py shows each where it was written.
"""

from __future__ import annotations

from typing import Any

from session.story_records import Story
from ui.page_text import text

TODO_MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


def todo_list(todos: list[dict[str, Any]]) -> str:
    """One todo list, each item with its status mark."""
    items = "".join(f'<li class="todo-{text(todo.get("status", ""))}">'
                    f'<span class="mono">{TODO_MARKS.get(todo.get("status", ""), "[?]")}</span> '
                    f'{text(todo.get("content", ""))}</li>' for todo in todos)
    return f'<ol class="todos">{items}</ol>' if items else "<p>(empty)</p>"


def todos_section(story: Story) -> str:
    """Each todo list as TodoWrite left it, with the turn it was written in."""
    lists = "".join(f"<h3>In turn {turn}</h3>{todo_list(todos)}" for turn, todos in story.todo_lists)
    return ('<section id="todos"><h2>Todos as they changed</h2>'
            '<p class="dim">[ ] pending · [~] in progress · [x] completed</p>' +
            (lists or "<p>No todo list was kept in this session.</p>") + "</section>")
