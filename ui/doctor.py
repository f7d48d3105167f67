"""`stepagent --doctor`: a table of what guards this machine, and what is missing.

Each row comes from a UI-free check (the sandbox layers from
tools/bash/sandbox/status.py, the model endpoint from models/); adding a check
is adding rows to the list.
"""

from __future__ import annotations

from typing import Any, Callable

from rich.console import Console
from rich.table import Table

from models.base import ModelError
from tools.bash.sandbox.status import LayerRow, detect_layers, layer_rows
from ui.safe_text import safe_line

PROBE = [{"role": "user", "content": "Reply with the single word OK."}]
PROBE_TOOL = {"type": "function", "function": {"name": "Ping", "description": "Does nothing.",
                                               "parameters": {"type": "object", "properties": {}}}}


def endpoint_row(choose_model: Callable[[], Any]) -> LayerRow:
    """The model endpoint: its family (from the base URL) and what one small request taught it.

    The request carries one tool, so a server that cannot call tools says so here;
    it is tried twice at most, without waiting.
    """
    try:
        model = choose_model()
    except ModelError as failure:
        return LayerRow("model endpoint", False, "the configured model", str(failure))
    describe = getattr(model, "describe_endpoint", None)
    if describe is None:
        return LayerRow("model endpoint", False, f"{model.name}: no endpoint configured",
                        "set OPENAI_BASE_URL (and OPENAI_API_KEY unless the server is local)")
    model.max_retries, model.retry_delay = 1, 0.0
    try:
        model.complete(PROBE, [PROBE_TOOL], lambda piece: None)
    except ModelError as failure:
        return LayerRow("model endpoint", False, describe(), str(failure))
    return LayerRow("model endpoint", True, describe())


def show_doctor(console: Console, rows: list[LayerRow]) -> int:
    """Print the table; the exit code is 0 (a missing layer is news, not a failure)."""
    table = Table(title="stepagent doctor", show_lines=False)
    table.add_column("layer", style="bold")
    table.add_column("active")
    table.add_column("what it does")
    table.add_column("what its absence leaves open", style="yellow")
    for row in rows:
        table.add_row(row.layer, "[green]yes[/green]" if row.active else "[red]no[/red]",
                      safe_line(row.detail), safe_line(row.leaves_open))
    console.print(table)
    return 0


def run_doctor(choose_model: Callable[[], Any]) -> int:
    """`--doctor`: this machine's sandbox layers and the model endpoint, in one table."""
    return show_doctor(Console(), [*layer_rows(detect_layers()), endpoint_row(choose_model)])
