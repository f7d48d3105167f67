"""What the plan-mode sandbox on this machine can do, in one line for the user."""

from __future__ import annotations

from tools.bash.sandbox.landlock import abi_version


def sandbox_status() -> str:
    """One line: which OS sandbox contains plan-mode Bash here, or that none does."""
    abi = abi_version()
    if abi:
        return f"Bash runs inside a read-only Landlock sandbox (ABI {abi}) while planning."
    return "No Landlock sandbox on this system: the Bash classifier alone decides while planning."
