"""Reading and updating the settings files: the user's and the project's.

  $STEPAGENT_HOME/settings.json     the user's: hooks and rules for every workspace, which
                                    workspaces they trust, and rules they keep per workspace
  <workspace>/.stepagent/settings.json   the project's, committable: hooks and rules that
                                    arrive with a repository (they run only once it is trusted)

A file that cannot be read or is not a JSON object is one clear line naming the file and
the line, and the program goes on without it. The project's file comes with a repository,
so it is read the way the model's files are (tools/safe_read.py): a regular file only,
never a FIFO, a device or a kernel pseudo-file, at most MAX_SETTINGS_BYTES of it. Updates (a kept rule, a trusted workspace)
go to the user's file only, whole and atomically, under a lock, and never over a file that
does not parse: the user's own text is never lost.
"""

from __future__ import annotations

import fcntl
import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

from settings.paths import SETTINGS, user_settings_path
from tools.safe_read import read_bytes_capped
from tools.workspace import write_atomically

MAX_SETTINGS_BYTES = 1024 * 1024
Scope = Literal["user", "project"]


class SettingsUnwritable(OSError):
    """The user's settings file cannot be updated; the message says why."""


@dataclass(frozen=True)
class SettingsFile:
    """One settings file as read: its data, or the one-line problem that kept it out."""

    path: Path
    scope: Scope
    data: dict[str, Any] = field(default_factory=dict)
    problem: str = ""

    @property
    def label(self) -> str:
        """How decisions and listings name it: `project .stepagent/settings.json`."""
        return f"{self.scope} {self.path}"


def read_settings(path: Path, scope: Scope) -> SettingsFile:
    """The file's settings; a missing file is empty, a broken one is its problem and no data."""
    try:
        data, cut = read_bytes_capped(path, MAX_SETTINGS_BYTES)
        if cut:
            raise ValueError(f"larger than {MAX_SETTINGS_BYTES // 1024} KiB")
        text = data.decode("utf-8")
    except FileNotFoundError:
        return SettingsFile(path, scope)
    except (OSError, ValueError) as exc:
        reason = (exc.strerror or str(exc) if isinstance(exc, OSError) else
                  "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else str(exc))
        return SettingsFile(path, scope, problem=f"{path}: cannot be read ({reason}); going on "
                            "without it.")
    return parse_settings_text(path, scope, text)


def parse_settings_text(path: Path, scope: Scope, text: str) -> SettingsFile:
    """Settings from a file's text, or its problem naming the file and the line."""
    if not text.strip():
        return SettingsFile(path, scope)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return SettingsFile(path, scope, problem=f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at "
                            f"column {exc.colno}); going on without this file.")
    if not isinstance(data, dict):
        return SettingsFile(path, scope, problem=f"{path}:1: settings must be a JSON object "
                            "({...}); going on without this file.")
    return SettingsFile(path, scope, data)


@contextmanager
def _locked(home: Path) -> Iterator[None]:
    home.mkdir(parents=True, exist_ok=True)
    with open(home / f".{SETTINGS}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def update_user_settings(home: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Apply `change` to the user's settings and write them back; SettingsUnwritable if it cannot."""
    path = user_settings_path(home)
    try:
        with _locked(home):
            current = read_settings(path, "user")
            if current.problem:
                raise SettingsUnwritable(f"cannot update {path}, which was left as it is: "
                                         f"{current.problem}")
            data = json.loads(json.dumps(current.data))
            try:
                change(data)
            except (AttributeError, TypeError) as exc:
                raise SettingsUnwritable(f"cannot update {path}, which was left as it is: an entry "
                                         f"has an unexpected shape ({exc})") from exc
            write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        if isinstance(exc, SettingsUnwritable):
            raise
        raise SettingsUnwritable(f"{path}: cannot be written ({exc.strerror or exc})") from exc
