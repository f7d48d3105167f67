"""The program a tmux pane runs for tests/terminal.py's Screen: it hands the pane's terminal to a
child of the worker's zygote (tests/zygote.py), which runs SCRIPT ARGS there, and ends as that
child ends. The pane then costs a small interpreter's start instead of index.py's imports.

    python -S -E tests/zygote_pane.py SOCKET SCRIPT ARGS   (exec'd by the pane's shell)

tmux made this process the leader of the pane's session; it lets the terminal go (TIOCNOTTY)
so that the child, in a session of its own, can take it as its controlling terminal: Ctrl-C
typed in the pane, a resize and the hang-up of a closing pane reach the child as they reach a
program the pane started. The child gets this process's environment, folder and ignored signals.
"""

from __future__ import annotations

import fcntl
import os
import signal
import sys
import termios

from zygote_client import fork_at, status_code


def main(socket_path: str, script: str, *argv: str) -> int:
    ignored = [number for number in signal.valid_signals() if number not in (signal.SIGKILL, signal.SIGSTOP)
               and signal.getsignal(number) == signal.SIG_IGN]  # tmux ignores SIGTTIN and SIGTTOU in panes
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # letting the terminal go hangs up its session: this one
    fcntl.ioctl(0, termios.TIOCNOTTY)
    forked, _ = fork_at(socket_path, script, list(argv), dict(os.environ), os.getcwd(), stdio=[0, 1, 2],
                        controlling=True, ignored=ignored)
    code = status_code(forked.wait())
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
