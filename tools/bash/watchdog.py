"""The Bash tool's watchdog: when stepagent dies, even by kill -9, every call still running dies too.

Beside process.py, in every mode where a call does not die with stepagent by
itself (bubblewrap's --die-with-parent does that for the full sandbox). One
small `sh` per Bash tool, started with its first call, reads lines from a pipe
that only stepagent holds: `+ GROUP` when a call starts, `- GROUP` once it has
ended. The pipe closes when stepagent dies, and the watchdog then kills every
process group still listed, background jobs and all.

A call registers itself: its first process is given the pipe as its stdin,
writes its own group to it, and only then closes it and runs the command
(REGISTER). If stepagent dies before that line is written, the starting call
still holds the pipe, so the watchdog reads the line before the pipe closes and
the group dies all the same: a command never runs unwatched. Nothing the
command starts holds the pipe, so nothing it leaves running keeps the watchdog
from its work, and no process of the call's but the command holds its output
open (process.py reads until the output closes). Where the call's first program
is bash itself (a call the user approved), bash registers from a startup file
named by BASH_ENV, which then puts the user's own BASH_ENV back: a process of
its own would cost as much again as the whole call (`by_bash`). Elsewhere (the
sandbox without bubblewrap) a short `sh` registers and execs the call (`by_sh`).

The watchdog takes a group only from its leader, and only while the leader is
stepagent's child (a call's first process is both) or, once stepagent has died,
carries the marker of stepagent's calls in its environment (left_running.py):
a command that opens the pipe through /proc cannot have it kill a group it did
not start. A group whose leader has gone by the time its line is read is not
taken (the line is read as the call starts). stepagent names a group ended
before it reaps the group's leader, so the number is not reused meanwhile.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import weakref

from tools.bash.left_running import VARIABLE
from tools.bash.sandbox.scratch import make_private_folder

# $1 is this stepagent's marker; $PPID is stepagent. /proc/GROUP/stat after the name: state,
# parent, group. A leader whose parent is not stepagent (stepagent has died) must carry the marker.
# The name ends at the line's last ")" (a process names itself); ${stat##*) } would find it too,
# in time that grows with the square of the line's length in dash, most of the watchdog's work.
# Without /proc (macOS) nothing can open the pipe but those given it, and every line is taken.
WATCH = """marker=$1; set -f; listed=' '
while read -r sign group; do
  case $group in ''|*[!0-9]*) continue ;; esac
  if [ "$sign" = - ]; then
    case $listed in *" $group "*) listed="${listed%% $group *} ${listed#* $group }" ;; esac
  elif [ "$sign" != + ]; then
    continue
  elif [ ! -e /proc/self/stat ]; then
    listed="$listed$group "
  elif read -r stat < "/proc/$group/stat"; then
    name=${stat%")"*}
    set -- ${stat#"$name) "}
    [ "$3" = "$group" ] && { [ "$2" = "$PPID" ] ||
      grep -qzF "$marker" "/proc/$group/environ"; } && listed="$listed$group "
  fi
done 2>/dev/null
for group in $listed; do kill -KILL -"$group"; done 2>/dev/null"""
REGISTER = 'echo "+ $$" >&0 && exec </dev/null'
USERS_BASH_ENV = "STEPAGENT_USERS_BASH_ENV"
# Sourced by bash before the command; nested shells read the user's BASH_ENV, if any, again.
STARTUP = f"""{REGISTER} || exit 125
if [ -n "${{{USERS_BASH_ENV}-}}" ]; then
  BASH_ENV=${USERS_BASH_ENV}; unset {USERS_BASH_ENV}; . "$BASH_ENV"
else
  unset BASH_ENV
fi
"""


class Watchdog:
    """The watchdog of one Bash tool, started on first use and again should it have died.

    `marker` is this stepagent's part of its calls' marker (left_running.this_stepagent)."""

    def __init__(self, marker: str) -> None:
        self._marker = f"{VARIABLE}={marker}."
        self._process: subprocess.Popen | None = None
        self._startup: str | None = None  # the startup file's path, escaped: bash expands BASH_ENV
        self._lock = threading.Lock()

    def pipe(self) -> int:
        """The pipe's write end, for a call's first process to register on (its stdin)."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._process = subprocess.Popen(["sh", "-c", WATCH, "sh", self._marker],
                                                 stdin=subprocess.PIPE,
                                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                 start_new_session=True)
                weakref.finalize(self, _stop, self._process)
            return self._process.stdin.fileno()

    def ended(self, group: int) -> None:
        """The call whose first process leads `group` has ended: the group is no longer watched."""
        with self._lock:
            if self._process is not None and self._process.poll() is None:
                try:
                    os.write(self._process.stdin.fileno(), f"- {group}\n".encode())
                except OSError:  # the watchdog has died: there is nothing to take the group from
                    pass

    def by_bash(self, env: dict[str, str]) -> dict[str, str]:
        """`env` for a call whose first program is bash (or execs it): bash registers at startup."""
        with self._lock:
            if self._startup is None:
                folder = make_private_folder()
                path = os.path.join(folder, "register.bash")
                with open(path, "x", encoding="utf-8") as startup:
                    startup.write(STARTUP)
                weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)
                self._startup = re.sub(r"([\\$`])", r"\\\1", path)
        named = {**env, "BASH_ENV": self._startup}
        named.pop(USERS_BASH_ENV, None)
        if env.get("BASH_ENV"):
            named[USERS_BASH_ENV] = env["BASH_ENV"]
        return named


def by_sh(argv: list[str]) -> list[str]:
    """`argv` started by a short `sh` that registers its group, then execs it."""
    return ["sh", "-c", f'{REGISTER} "$@"', "sh", *argv]


def _stop(process: subprocess.Popen) -> None:
    """Close the pipe (the watchdog ends, with no group listed) and reap it."""
    process.stdin.close()
    try:
        process.wait(timeout=1)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
