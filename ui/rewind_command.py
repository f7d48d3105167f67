"""/rewind: list this session's checkpoints, or go back to one (files, conversation, or both).

The list shows, for each prompt numbered from 1 (and each rewind, which is a
checkpoint too), its first line and the files changed after it; the approval
c hands a fresh conversation reads as the plan's title (session_list.as_spoken),
not as words you typed. `/rewind N` restores both, `/rewind N code` the files
alone, `/rewind N conversation` the conversation with its modes, todos and
plan. Before any file is removed or written back, the rewind shows which (a
few names, then how many more) and asks `Rewind the files? [y/N]` through the
REPL's yes/no question; no changes nothing, and where nobody can be asked it
refuses. Nothing is asked when the files part changes nothing, or for the
conversation alone. The answer names what came back and says how to undo it.
"""

from __future__ import annotations

from typing import Callable

from session.rewind.checkpoints import PARTS, Listed, Rewind, Rewinding, RewindRefused
from session.rewind.git_plumbing import GitFailed
from session.rewind.restore import Restoration
from session.session_list import as_spoken
from tools.todos import todos_of
from ui.safe_text import safe

USAGE = "Usage: /rewind (list), /rewind N, /rewind N code, /rewind N conversation."
LABEL_WIDTH = 40
NAMES_SHOWN = 4
MARKS = {"A": "+", "M": "~", "D": "-", "T": "~"}
QUESTION = "Rewind the files?"


def rewind_listing(rewind: Rewind) -> str:
    """The session's checkpoints, one line each, or how to get one."""
    listed = rewind.listing()
    if not listed:
        return "No checkpoints yet: one is taken before each prompt you send."
    lines = [_line(item) for item in listed]
    return ("Checkpoints of this session (the files changed after each):\n" + "\n".join(lines) +
            "\n/rewind N restores the files and the conversation to just before N; add code or "
            "conversation for one of them.")


def _line(item: Listed) -> str:
    checkpoint = item.checkpoint
    label = as_spoken(checkpoint.label).strip()
    first = label.splitlines()[0] if label else ""
    if checkpoint.kind == "rewind":
        first = f"before {first}"
    if len(first) > LABEL_WIDTH:
        first = first[:LABEL_WIDTH - 1] + "…"
    mark = "↺" if checkpoint.kind == "rewind" else "›"
    return f"  {checkpoint.number:>3} {mark} {safe(first):{LABEL_WIDTH}}  {_changes(item)}"


def _changes(item: Listed) -> str:
    if item.changes is None:
        problem = item.checkpoint.problem
        return f"(no snapshot of the files{': ' + safe(problem) if problem else ''})"
    if not item.changes:
        return "(no file changed)"
    return capped([f"{MARKS.get(change.status, '~')}{safe(change.path)}" for change in item.changes])


def capped(names: list[str]) -> str:
    """The first NAMES_SHOWN names, then how many more."""
    more = len(names) - NAMES_SHOWN
    return "  ".join(names[:NAMES_SHOWN]) + (f"  and {more} more" if more > 0 else "")


def _paths(label: str, paths: list[str]) -> list[str]:
    return [f"  {label} ({len(paths)}): {capped([safe(path) for path in paths])}"] if paths else []


def _asking(number: int, confirm: Callable[[str], bool] | None) -> Callable[[Restoration], bool]:
    """The rewind's question: the files it would remove and write back, then yes or no."""
    def approve(plan: Restoration) -> bool:
        shown = "\n".join(_paths("remove", plan.removed) + _paths("write back", plan.written))
        if confirm is None:
            raise RewindRefused(f"Not rewound: going back to checkpoint {number} would change "
                                f"these files, and nobody here can be asked:\n{shown}")
        return confirm(f"Going back to checkpoint {number} will change these files:\n{shown}\n{QUESTION}")
    return approve


def run_rewind(rewind: Rewind, arguments: str,
               confirm: Callable[[str], bool] | None = None) -> tuple[str, bool]:
    """Carry out `/rewind ARGUMENTS`; returns what to show and whether it is an error.

    `confirm` asks the user yes or no; None (nobody to ask) refuses a rewind that would
    change files.
    """
    words = arguments.split()
    if not words:
        return rewind_listing(rewind), False
    if not words[0].isdigit() or len(words) > 2 or (len(words) == 2 and words[1] not in PARTS):
        return f"Not understood: /rewind {safe(arguments)}. {USAGE}", True
    number, part = int(words[0]), words[1] if len(words) == 2 else ""
    try:
        done = rewind.rewind(number, part, _asking(number, confirm))
    except RewindRefused as refused:
        return str(refused), True
    except (GitFailed, OSError) as failure:
        return (f"The rewind stopped part-way: {failure}. What was there before it is checkpoint "
                f"{len(rewind.checkpoints())}; /rewind {len(rewind.checkpoints())} puts it back."), True
    if done is None:
        return "Not rewound: the files and the conversation are as they were.", False
    return _done(number, done, rewind), False


def _done(number: int, done: Rewinding, rewind: Rewind) -> str:
    lines = [f"Rewound to checkpoint {number}."]
    if done.files is not None:
        files = done.files
        lines.append(f"  files: {len(files.written)} written back, {len(files.removed)} removed")
        lines += _paths("removed", files.removed) + _paths("written back", files.written)
        if files.left:
            lines.append(f"  left alone, as something stands in the way: "
                         f"{', '.join(map(safe, files.left))}")
        if done.not_kept:
            lines.append(f"  not brought back, as your .gitignore keeps them out of checkpoints: "
                         f"{', '.join(map(safe, done.not_kept))} (written by the agent)")
    if done.messages is not None:
        state = rewind.agent.state
        lines.append(f"  conversation: {done.messages} messages, mode {state.mode_label}, "
                     f"{len(todos_of(state))} todos")
    lines.append(f"Undo with /rewind {done.undo.number}.")
    return "\n".join(lines)
