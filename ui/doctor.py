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

ENDPOINT = "model endpoint"
PROBE = [{"role": "user", "content": "Reply with the single word OK."}]
PROBE_TOOL = {"type": "function", "function": {"name": "Ping", "description": "Does nothing.",
                                               "parameters": {"type": "object", "properties": {}}}}


def endpoint_row(choose_model: Callable[[], Any]) -> tuple[LayerRow, bool]:
    """The model endpoint: its family (from the base URL) and what one small request taught it.

    Also whether it failed: a configured endpoint that cannot be used is something to fix,
    while none configured (the offline lesson runs) is a choice, shown as not active.
    The request carries one tool, so a server that cannot call tools says so here;
    it is tried twice at most, without waiting.
    """
    try:
        model = choose_model()
    except ModelError as failure:
        return LayerRow(ENDPOINT, False, "the configured model", str(failure)), True
    describe = getattr(model, "describe_endpoint", None)
    if describe is None:
        return LayerRow(ENDPOINT, False, f"{model.name}: no endpoint configured",
                        "to use one, set OPENAI_BASE_URL (with OPENAI_API_KEY if it needs a "
                        "key), or OPENAI_API_KEY alone for OpenAI"), False
    model.max_retries, model.retry_delay = 1, 0.0
    try:
        model.complete(PROBE, [PROBE_TOOL], lambda piece: None)
    except ModelError as failure:
        return LayerRow(ENDPOINT, False, model.endpoint, str(failure)), True
    return LayerRow(ENDPOINT, True, describe()), False


def show_doctor(console: Console, rows: list[LayerRow]) -> None:
    """Print the table: each layer, whether it is active, and what it does or leaves open."""
    table = Table(title="stepagent doctor")
    table.add_column("layer", style="bold", no_wrap=True)
    table.add_column("active", no_wrap=True)
    table.add_column("what it does, or what its absence leaves open")
    for row in rows:
        notes = safe_line(row.detail)
        if row.leaves_open:
            notes.append_text(safe_line(f"\n{row.leaves_open}", style="yellow"))
        table.add_row(row.layer, "[green]yes[/green]" if row.active else "[red]no[/red]", notes)
    console.print(table)


def run_doctor(choose_model: Callable[[], Any]) -> int:
    """`--doctor`: this machine's sandbox layers and the model endpoint, in one table.

    Exit code 1 when the configured endpoint cannot be used: a missing sandbox layer (or no
    endpoint at all) is a fact about this machine, shown with what it leaves open; a dead
    endpoint is something to fix.
    """
    endpoint, failed = endpoint_row(choose_model)
    show_doctor(Console(), [*layer_rows(detect_layers()), endpoint])
    return 1 if failed else 0
