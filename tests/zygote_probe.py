"""What a starting Python process sees of its start (tests/test_zygote.py): printed as JSON, to
compare a child the zygote forked with an interpreter started for real. `probe.py exit N`,
`probe.py kill SIG` and `probe.py interrupt` end it those ways after printing (and an atexit
handler prints last)."""

import atexit
import json
import locale
import os
import signal
import sys
import tempfile
import threading
import time


def open_fds() -> list[int]:
    found = []
    for fd in range(256):
        try:
            os.fstat(fd)
        except OSError:
            continue
        found.append(fd)
    return found


def stream(text) -> dict:
    return {"type": type(text).__name__, "binary": type(text.buffer).__name__, "encoding": text.encoding,
            "errors": text.errors, "line_buffering": text.line_buffering,
            "write_through": text.write_through, "tty": text.isatty(), "name": text.buffer.raw.name
            if hasattr(text.buffer, "raw") else text.buffer.name, "mode": text.mode,
            "same": text is getattr(sys, "__" + text.name.strip("<>") + "__")}


def terminal() -> dict:
    if not os.isatty(0):
        return {}
    import fcntl
    import struct
    import termios

    rows, columns = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8))[:2]
    return {"size": [rows, columns], "leads_session": os.getsid(0) == os.getpid(),
            "foreground": os.tcgetpgrp(0) == os.getpgrp(), "name": os.ttyname(0) == os.ttyname(1)}


def main() -> None:
    umask = os.umask(0)
    seen = {
        "argv": sys.argv[1:], "argv0": os.path.abspath(sys.argv[0]) == os.path.abspath(__file__),
        "orig_argv": sys.orig_argv[1:], "executable": sys.executable,
        "path0": sys.path[0] == os.path.dirname(os.path.abspath(__file__)), "path": sys.path[1:],
        "cwd": os.getcwd(), "umask": umask, "env": dict(os.environ),
        "signals": {str(n): repr(signal.getsignal(n)) for n in sorted(signal.valid_signals())
                    if n not in (signal.SIGKILL, signal.SIGSTOP)},
        "mask": sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
        "fds": open_fds(), "threads": threading.active_count(), "tasks": len(os.listdir("/proc/self/task")),
        "stdio": [stream(sys.stdin), stream(sys.stdout), stream(sys.stderr)],
        "flags": list(sys.flags), "tempdir": tempfile.gettempdir(), "tzname": list(time.tzname),
        "locale": locale.setlocale(locale.LC_CTYPE), "preferred": locale.getpreferredencoding(False),
        "main": __name__, "group": "own" if os.getpgrp() == os.getpid() else os.getpgrp(),
        "session": "own" if os.getsid(0) == os.getpid() else os.getsid(0),
        "terminal": terminal(),
    }
    print(json.dumps(seen, sort_keys=True))
    atexit.register(lambda: print("atexit ran", end=""))
    how = sys.argv[1:3]
    if how[:1] == ["exit"]:
        sys.exit(int(how[1]))
    if how[:1] == ["kill"]:
        sys.stdout.flush()
        os.kill(os.getpid(), getattr(signal, how[1]))
    if how[:1] == ["interrupt"]:
        raise KeyboardInterrupt


if __name__ == "__main__":
    main()
