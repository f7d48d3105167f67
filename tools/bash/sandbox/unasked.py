"""What runs without a question runs as it would while planning: the rule for build mode's reads.

Not a sandbox of its own, but the line of defence under the classifier
outside plan mode. In build and edit mode a command the classifier judges
read-only runs at once, with no one looking, so whatever the classifier gets
wrong, or a cloned repository arranges, must change nothing: `git diff`,
`git log -p`, `git show`, `git blame` and `git status` start the programs a
repository's own config names (diff.external, a textconv or diff driver that
.gitattributes selects, a clean filter, an fsmonitor), and a `.git` file's
`gitdir:` can lead to any config. So such a command is judged and run exactly
as a plan-mode command is: where the sandbox contains arbitrary code
(bubblewrap, seccomp, Landlock inside), it runs there, read-only, with no
network and nothing outliving it; where a layer is missing, git commands
that could start a configured program are narrowed away (narrowing.py), so
build mode asks the user before running them instead. A command the user
approved (asked, allowed by the user's own rule, or run in yolo mode) is the
user's: it runs as the user's own, unsandboxed.
bench/bash_safety.py measures what the sandbox adds to an unasked call.
"""

from __future__ import annotations

from state import PermissionMode


def contained(plan_mode: bool, permission: PermissionMode, read_only: bool) -> bool:
    """Whether a call runs in plan mode's sandbox: every call while planning, and a read-only one.

    Outside plan mode a read-only call runs with no question, in every mode but yolo."""
    return plan_mode or (read_only and permission is not PermissionMode.YOLO)
