"""Kernel files that act when read: a word naming one makes a command not read-only.

Part of the classifier. Reading most of /proc, /sys and /dev only looks
(`cat /proc/cpuinfo`, `ls /proc`, `2>/dev/null`), but some kernel interfaces
hand what they read out to one reader, or wait, or act on being opened:
/proc/kmsg gives each line of the kernel's log to one reader (dmesg never
sees it), tracefs's trace_pipe does the same with trace events, a watchdog
device reboots the machine when its reader lets go. A command that reads one is
not read-only, whatever the command.

The check is lexical: any word or redirection target that names such a file,
even inside an option (`--file=/proc/kmsg`), after a detour (`/proc/self/root`,
`..`, `//`), or as a glob that could match one (`/proc/km*`, `cat /proc/*`); a
path whose last name is unmistakable (kmsg, trace_pipe) is refused wherever it
leads (`../kmsg`), while the bare word stays a search term (`grep -rn kmsg .`).
What a word cannot show, it cannot refuse: a symbolic link (`cat k` with
`k -> /proc/kmsg`, which a clone can carry), a bare name after `cd /proc`, or a
path built while the command runs. Those are left to the sandbox, which runs
what runs without a question in every mode (sandbox/unasked.py): bubblewrap
shows the command a /dev of its own and no tracefs or debugfs; without it,
root runs such a command without capabilities, so /proc/kmsg (CAP_SYSLOG),
/dev/mem and /dev/port (CAP_SYS_RAWIO) refuse it; other users are refused by
the files' permissions; and where Landlock is available, the command cannot
open a device outside a few harmless ones, nor anything in tracefs or debugfs
(sandbox/kernel_reads.py).
"""

from __future__ import annotations

import os
import re
from fnmatch import fnmatchcase

from tools.base import Judgement
from tools.bash.judgements import unsafe

ACTING = {
    "proc/kmsg": "reading /proc/kmsg waits for the kernel's log and takes each line from dmesg",
    "dev/kmsg": "reading /dev/kmsg waits for new kernel messages without end",
    "sys/kernel/tracing": "tracefs hands each trace event to one reader (trace_pipe) and pauses "
                          "tracing while it is read",
    "sys/kernel/debug": "debugfs holds tracefs and driver files that act when read",
    "dev/watchdog*": "opening a watchdog device arms it: the machine reboots when it is let go",
    "dev/input": "input devices wait for keystrokes and hand them to the reader",
    "dev/tty?*": "reading a terminal device takes the input typed on it",
    "dev/mem": "reading physical memory can act on devices mapped there",
    "dev/kmem": "reading kernel memory can act on devices mapped there",
    "dev/port": "reading I/O ports acts on the hardware behind them",
}
NAMES = {"kmsg": ACTING["proc/kmsg"],
         "trace_pipe": ACTING["sys/kernel/tracing"], "trace_pipe_raw": ACTING["sys/kernel/tracing"]}
STEMS = frozenset([*(re.sub(r"[*?].*", "", path.rsplit("/", 1)[1]) for path in ACTING), *NAMES])
PATH_START = re.compile(r"(?:^|[=:,])(?=[^=:,]*/)|^-\w(?=/)")


def acting_kernel_file(word: str, glob: bool = False) -> Judgement | None:
    """A denial when `word` names a kernel file that acts when read, else None."""
    if "/" not in word or not (glob or any(stem in word for stem in STEMS)):
        return None  # the quick answer for almost every word: no path, or none of those names
    for path in _paths_in(word):
        why = _why(path, glob)
        if why:
            return unsafe(f"{why}, so the command is not read-only", word)
    return None


def _paths_in(word: str) -> list[str]:
    """The word itself and each path inside it: after `=`, `:` or `,`, or a short option."""
    return [word] + [word[match.end():] for match in PATH_START.finditer(word) if match.end()]


def _why(path: str, glob: bool) -> str:
    written = [part for part in path.split("/") if part not in ("", ".")]
    folded = [part for part in os.path.normpath("/" + path).split("/") if part]
    for parts in (written, folded):
        for acting, why in ACTING.items():
            if _contains(parts, acting.split("/"), glob):
                return why
    return NAMES.get(written[-1], "") if "/" in path and written else ""


def _contains(parts: list[str], run: list[str], glob: bool) -> bool:
    """Whether `run` (kernel names, maybe patterns) appears in `parts` as consecutive names."""
    return any(all(_same(part, name, glob) for part, name in zip(parts[start:], run))
               for start in range(len(parts) - len(run) + 1))


def _same(part: str, name: str, glob: bool) -> bool:
    return fnmatchcase(part, name) or (glob and fnmatchcase(name, part))
