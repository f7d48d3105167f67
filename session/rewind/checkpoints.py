"""Rewind's checkpoints: before each prompt, the files and the session's state; and the way back.

Part of rewind (a layer: layer.py attaches it). When a turn starts, before the
user's prompt joins the history (the loop's `admit` seam, after the user's own
UserPromptSubmit hooks), a checkpoint is taken: a snapshot of the
workspace's files kept as a commit in the shadow repository (shadow_repo.py),
the permission mode, the plan flag, the plan model, the todos and the saved plan. It is
emitted as CheckpointTaken, which the journal stores with the conversation's
place (how far the session's entries go), so checkpoints survive a resume; this
process keeps each checkpoint's history too. Checkpoints are numbered from 1 in
the session; a rewind takes one of the present first, so it can be undone.

A rewind restores the files (restore.py), the conversation, or both. Before a
file is removed or written back, the caller's `approve` sees which ones (the
restore's own list, restore.planned) and may say no: then nothing changes, not
even a checkpoint is taken. Should the files change while it is asked so that the
rewind would touch a path it did not show, the rewind stops before touching any. The
conversation comes back with its modes, plan model, todos and plan: the history is
replaced (Rewound, journaled, so a resume finds it), the modes go back through the
state's own functions (only leave_plan_mode turns planning off), the plan model
is chosen again (journaled as any choice of it), the todo list
is replaced, and the saved plan is written back or removed. While planning,
taking a checkpoint writes only under $STEPAGENT_HOME, and acts on nothing it
reads (shadow_repo.py: leased files are left out, git's reads are confined).

Checkpoints hold the files git would list, so a file the user's .gitignore lists is
not in them: Rewind notes each file Write and Edit change (the executor's `after_call`
seam), and a rewind names those it could not bring back for that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from agent.history import open_calls
from agent.plan_model import plan_model_of
from agent.loop import Agent
from hooks.registry import ToolCallEvent
from session.journal import read_session
from session.live import put_modes_back
from session.plan_revisions import saved_plan
from session.rewind.git_plumbing import GitFailed
from session.rewind.events import CheckpointTaken, Rewound
from session.rewind.restore import Restoration, planned, restore
from session.rewind.shadow_repo import Change, ShadowRepo
from session.store import SessionStore, StoreUnavailable
from tools.base import ToolResult
from tools.safe_read import read_capped
from tools.todos import replace_todos, todos_of
from tools.workspace import outside_workspace, resolve, save_plan

PARTS = ("code", "conversation")
REF_PREFIX = "refs/stepagent/"
WRITERS = ("Write", "Edit")


class RewindRefused(Exception):
    """A rewind that cannot be done as asked; nothing was changed. The message says why."""


@dataclass(frozen=True)
class Listed:
    """One checkpoint as /rewind lists it, with the files changed after it.

    `changes` runs from it to the next checkpoint (or to now, for the last); None when
    either has no snapshot of the files.
    """

    checkpoint: CheckpointTaken
    changes: list[Change] | None


@dataclass(frozen=True)
class Rewinding:
    """What a rewind did: the checkpoint that undoes it, the files, the conversation's length."""

    undo: CheckpointTaken
    files: Restoration | None
    messages: int | None
    not_kept: tuple[str, ...] = ()


@dataclass
class Rewind:
    """The session's checkpoints and the rewinds to them; a listener on the event stream."""

    agent: Agent
    repo: ShadowRepo
    store: SessionStore | None
    taken: list[CheckpointTaken] = field(default_factory=list)
    session_id: str = ""
    written: set[str] = field(default_factory=set)
    _histories: dict[int, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    _positions: dict[int, int] = field(default_factory=dict)

    def __call__(self, prompt: str) -> str:
        """Take a checkpoint before the prompt joins the history (the loop's `admit` seam)."""
        self.take("prompt", prompt)
        return prompt

    def noticed(self, event: ToolCallEvent, result: ToolResult) -> ToolResult:
        """Note the file a Write or Edit changed (the executor's `after_call` seam)."""
        if event.tool.name in WRITERS and not result.is_error:
            path = resolve(self.agent.workspace, str(event.args.get("file_path", "")))
            if not outside_workspace(self.agent.workspace, path):
                self.written.add(path.relative_to(self.agent.workspace.resolve()).as_posix())
        return result

    def checkpoints(self) -> list[CheckpointTaken]:
        """This session's checkpoints, from 1; a session resumed or begun anew brings its own."""
        session_id = self.agent.state.session_id
        if session_id != self.session_id:
            self.session_id, self._histories = session_id, {}
            stored = self._stored(session_id)
            self.taken = [checkpoint for _, checkpoint in stored]
            self._positions = {checkpoint.number: position for position, checkpoint in stored}
        return self.taken

    def take(self, kind: str, label: str) -> CheckpointTaken:
        """Checkpoint the present: the files (if git can), the modes, the todos, the plan."""
        number = len(self.checkpoints()) + 1
        state = self.agent.state
        commit, problem = "", ""
        try:
            tree = self.repo.snapshot()
            commit = self.repo.commit(tree, f"checkpoint {number}: {label}",
                                      REF_PREFIX + self.session_id)
        except (GitFailed, OSError) as failure:
            problem = str(failure)
        per_phase = plan_model_of(state)
        checkpoint = CheckpointTaken(number, kind, label, commit, state.plan_mode,
                                     state.permission_mode.value, todos_of(state), self._plan(), problem,
                                     per_phase.plan_model if per_phase else None)
        self.taken.append(checkpoint)
        self._histories[number] = tuple(self.agent.messages)
        state.events.emit(checkpoint)
        return checkpoint

    def listing(self) -> list[Listed]:
        """Every checkpoint, each with the files changed from it to the next one (or to now)."""
        checkpoints = self.checkpoints()
        try:
            now = self.repo.snapshot() if checkpoints else ""
        except (GitFailed, OSError):
            now = ""
        following = [checkpoint.commit for checkpoint in checkpoints[1:]] + [now]
        return [Listed(checkpoint, self.repo.changes(checkpoint.commit, after)
                       if checkpoint.commit and after else None)
                for checkpoint, after in zip(checkpoints, following)]

    def rewind(self, number: int, part: str = "",
               approve: Callable[[Restoration], bool] | None = None) -> Rewinding | None:
        """Restore the files and the conversation (or the `part` named) to checkpoint `number`.

        The present is checkpointed first. RewindRefused, with nothing changed, for a
        checkpoint that does not exist or lacks what is asked. `approve` is shown the
        paths the files' restore would remove and write back, when there are any; if it
        says no, nothing changes and None is returned.
        """
        checkpoints = self.checkpoints()
        if not 1 <= number <= len(checkpoints):
            raise RewindRefused(f"There is no checkpoint {number}: this session has "
                                f"{len(checkpoints) or 'none yet'}" + (f" (1 to {len(checkpoints)})"
                                                                       if checkpoints else "") + ".")
        target = checkpoints[number - 1]
        code, conversation = part in ("", "code"), part in ("", "conversation")
        if code and not target.commit:
            raise RewindRefused(f"Checkpoint {number} holds no snapshot of the files "
                                f"({target.problem}).")
        history = self._history(target) if conversation else ()
        shown = self._preview(target) if code and approve is not None else None
        if shown is not None and (shown.removed or shown.written) and not approve(shown):
            return None
        undo = self.take("rewind", f"/rewind {number}" + f" {part}" * bool(part))
        if code and not undo.commit:
            raise RewindRefused(f"Nothing was changed: the files as they are now could not be "
                                f"checkpointed, so the rewind could not be undone ({undo.problem}).")
        if shown is not None and not _within(planned(self.repo, undo.commit, target.commit), shown):
            raise RewindRefused(f"Nothing was rewound: the files changed while you were asked, so "
                                f"the rewind would now touch files it did not show. /rewind {number} "
                                f"again shows what it would do now.")
        files = restore(self.repo, undo.commit, target.commit) if code else None
        if conversation:
            self._put_conversation_back(target, history)
        not_kept = tuple(sorted(self.repo.ignored(self.written))) if code else ()
        return Rewinding(undo, files, len(history) if conversation else None, not_kept)

    def _preview(self, target: CheckpointTaken) -> Restoration:
        """What restoring the target's files would remove and write back now; nothing is changed."""
        try:
            return planned(self.repo, self.repo.snapshot(), target.commit)
        except (GitFailed, OSError) as failure:
            raise RewindRefused(f"Nothing was changed: the files as they are now could not be "
                                f"checkpointed, so the rewind cannot show what it would do "
                                f"({failure}).") from None

    def _put_conversation_back(self, target: CheckpointTaken, history: tuple) -> None:
        agent, state = self.agent, self.agent.state
        cause = f"/rewind {target.number}"
        agent.messages[:] = history
        state.events.emit(Rewound(history, target.number))
        put_modes_back(state, target.plan_mode, target.permission_mode, cause)
        if target.plan_model is not None and (per_phase := plan_model_of(state)) is not None:
            per_phase.choose(target.plan_model, cause)
        if target.todos != todos_of(state):
            replace_todos(state, target.todos)
        if target.plan != self._plan():
            if target.plan is None:
                saved = saved_plan(agent.workspace, self.session_id)
                if saved is not None:
                    saved.unlink()
            else:
                save_plan(agent.workspace, self.session_id, target.plan)

    def _history(self, target: CheckpointTaken) -> tuple[dict[str, Any], ...]:
        """The conversation as it was at the checkpoint: kept by this process, or replayed."""
        if target.number in self._histories:
            return self._histories[target.number]
        if self.store is None or target.number not in self._positions:
            raise RewindRefused(f"The conversation at checkpoint {target.number} is not stored.")
        try:
            restored = read_session(self.store, self.session_id, upto=self._positions[target.number])
        except StoreUnavailable as failure:
            raise RewindRefused(f"The conversation at checkpoint {target.number} cannot be read: "
                                f"{failure}") from None
        messages = list(restored.messages)
        messages += [{"role": "tool", "tool_call_id": call_id,
                      "content": restored.closing_result(call_id)} for call_id in open_calls(messages)]
        return tuple(messages)

    def _stored(self, session_id: str) -> list[tuple[int, CheckpointTaken]]:
        if self.store is None:
            return []
        try:
            return self.store.checkpoints(session_id)
        except StoreUnavailable:
            return []

    def _plan(self) -> str | None:
        """The saved plan's text, None when this session has none."""
        path = saved_plan(self.agent.workspace, self.agent.state.session_id)
        try:
            return read_capped(path)[0] if path else None
        except OSError:
            return None


def _within(plan: Restoration, shown: Restoration) -> bool:
    """Whether `plan` removes and writes back only paths `shown` named."""
    return set(plan.removed) <= set(shown.removed) and set(plan.written) <= set(shown.written)
