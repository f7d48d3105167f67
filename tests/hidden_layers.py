"""Take plan mode's sandbox layers away through their probes, as a machine without them would.

The product asks `detect_layers()` (cached once per process) what this machine
offers; `hide_layers` makes the named probes answer "missing" and clears the
cache, so the whole product (the executor, `-p`, the doctor) runs as it would
there. Whoever hides a layer clears the cache again when the test ends.
"""

from __future__ import annotations

import pytest

from tools.bash.sandbox import status
from tools.bash.sandbox.status import detect_layers


def hide_layers(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make each named probe of status.py (bwrap_path, perl_path …) find nothing."""
    for name in names:
        monkeypatch.setattr(status, name, lambda: None)
    detect_layers.cache_clear()

