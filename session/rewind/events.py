"""The records rewind puts on the event stream: a checkpoint taken, a history put back.

Part of rewind (a layer). The journal stores both (a checkpoint in its own
table, a rewound history as an entry that replaces the messages, as a
compaction's does); the console names a checkpoint that holds no files.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.events import Event
from session.compaction import Compacted
from tools.todos import Todo


@dataclass(frozen=True)
class CheckpointTaken(Event):
    """Rewind kept the files and the session's state: before prompt `label`, or before a rewind.

    `commit` is the files' snapshot in the shadow repository ('' when none could be taken,
    `problem` says why); `plan` the saved plan's text, None when there was none;
    `plan_model` the plan model chosen ('' for none), None when the checkpoint did not keep it
    (one stored by an older stepagent, or taken without the plan-model layer).
    """

    number: int
    kind: str
    label: str
    commit: str
    plan_mode: bool
    permission_mode: str
    todos: tuple[Todo, ...]
    plan: str | None
    problem: str = ""
    plan_model: str | None = None


@dataclass(frozen=True)
class Rewound(Compacted):
    """The history was put back as it was at checkpoint `number` (a replacement, as a compaction's)."""

    number: int = 0
