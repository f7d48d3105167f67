"""`stepagent --doctor`: a table of what guards this machine, and what is missing.

Each row comes from a UI-free check (the sandbox layers from
tools/bash/sandbox/status.py); adding a check is adding rows to the list.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tools.bash.sandbox.status import LayerRow


def show_doctor(console: Console, rows: list[LayerRow]) -> int:
    """Print the table; the exit code is 0 (a missing layer is news, not a failure)."""
    table = Table(title="stepagent doctor", show_lines=False)
    table.add_column("layer", style="bold")
    table.add_column("active")
    table.add_column("what it does")
    table.add_column("what its absence leaves open", style="yellow")
    for row in rows:
        table.add_row(row.layer, "[green]yes[/green]" if row.active else "[red]no[/red]",
                      row.detail, row.leaves_open)
    console.print(table)
    return 0
