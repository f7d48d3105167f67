"""Take plan mode's sandbox layers away through their probes, as a machine without them would.

The product asks `detect_layers()` (cached once per process) what this machine
offers; `hide_layers` makes the named probes answer "missing" and clears the
cache, so the whole product (the executor, `-p`, the doctor) runs as it would
there. Whoever hides a layer clears the cache again when the test ends.
`hide_linux_only` goes further, as on macOS: tools/linux_only.py answers no,
os.pidfd_open is gone and the C library has no prctl.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator

import pytest

from tools import linux_only
from tools.bash.sandbox import landlock, status
from tools.bash.sandbox.bwrap import bwrap_path
from tools.bash.sandbox.status import detect_layers

def hide_layers(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make each named probe of status.py (bwrap_path, perl_path …) find nothing."""
    for name in names:
        monkeypatch.setattr(status, name, lambda: None)
    detect_layers.cache_clear()


@pytest.fixture(params=["bwrap", "no-bwrap"])
def configuration(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test twice: with the layers this machine has, and with bubblewrap hidden."""
    if request.param == "bwrap" and not detect_layers().bwrap:
        pytest.skip("bubblewrap is not available here")
    if request.param == "no-bwrap":
        hide_layers(monkeypatch, "bwrap_path")
    yield request.param
    detect_layers.cache_clear()


class _WithoutPrctl(ctypes.CDLL):
    """A C library as macOS's: no prctl."""

    def __getattr__(self, name: str):
        if name == "prctl":
            raise AttributeError(f"{self._name}: undefined symbol: prctl")
        return super().__getattr__(name)


def hide_linux_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on this system is not Linux: no Linux-only layer, no pidfd_open, no prctl."""
    monkeypatch.setattr(linux_only, "available", lambda: False)
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    monkeypatch.setattr(ctypes, "CDLL", _WithoutPrctl)
    for cached in (detect_layers, bwrap_path, landlock.abi_version, landlock._libc):
        cached.cache_clear()


def clear_probes() -> None:
    """Forget what the probes found (after a test that hid them)."""
    for cached in (detect_layers, bwrap_path, landlock.abi_version, landlock._libc):
        cached.cache_clear()
