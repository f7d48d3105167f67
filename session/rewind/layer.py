"""The rewind layer: a checkpoint before every prompt, found again by /rewind.

One function attaches it: `rewind_layer` puts the session's Rewind
(checkpoints.py) on the loop's `admit` seam, which every prompt passes before it
joins the history, and on the executor's `after_call` seam, where it notes the files
Write and Edit change. `rewind_of` finds it again for the REPL's /rewind.
"""

from __future__ import annotations

from pathlib import Path

from agent.loop import Agent
from session.rewind.checkpoints import Rewind
from session.rewind.shadow_repo import ShadowRepo
from session.store import SessionStore


def rewind_layer(agent: Agent, home: Path, store: SessionStore | None = None) -> None:
    """The layer: checkpoints in a shadow repository under `home`, recorded in `store`."""
    rewind = Rewind(agent, ShadowRepo(home, agent.workspace), store)
    agent.admit.append(rewind)
    agent.executor.after_call.append(rewind.noticed)


def rewind_of(agent: Agent) -> Rewind | None:
    """The agent's Rewind, None when the rewind layer is not attached."""
    return next((admit for admit in agent.admit if isinstance(admit, Rewind)), None)
