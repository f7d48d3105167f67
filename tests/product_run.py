"""`python index.py ARGS` on pipes, as subprocess.run runs it, for the tests: `run_product`.

The run is forked by the worker's zygote (tests/zygote_client.py): no interpreter start-up and
no imports, same result (returncode, stdout, stderr; input, timeout). Standard input is the
`input` given, else /dev/null.
"""

from __future__ import annotations

import locale
import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.zygote_client import forks, status_code, zygote

ROOT = Path(__file__).resolve().parent.parent
INDEX = str(ROOT / "index.py")


def run_product(*args: str | bytes, cwd: Path | str, env: dict[str, str] | None = None,
                input: str | bytes | None = None, timeout: float = 60, text: bool = True,
                check: bool = False) -> subprocess.CompletedProcess:
    """Run index.py ARGS in `cwd` with `env` (default: this process's environment) and wait for it."""
    return run_script(INDEX, *args, cwd=cwd, env=env, input=input, timeout=timeout, text=text, check=check)


def run_script(script: str, *args: str | bytes, cwd: Path | str, env: dict[str, str] | None = None,
               input: str | bytes | None = None, timeout: float = 60, text: bool = True,
               check: bool = False) -> subprocess.CompletedProcess:
    """`python SCRIPT ARGS`, forked by the zygote unless it is off or `env` needs a real start."""
    env = dict(os.environ if env is None else env)
    command = [sys.executable, script, *args]
    if not forks(env):
        stdin = {"stdin": subprocess.DEVNULL} if input is None else {"input": input}
        return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=text, timeout=timeout,
                              check=check, **stdin)
    encoding = locale.getpreferredencoding(False)
    if isinstance(input, str):
        input = input.encode(encoding)
    stdin_read, stdin_write = os.pipe() if input is not None else (os.open(os.devnull, os.O_RDONLY), -1)
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        forked, _ = zygote().fork(script, [os.fsdecode(arg) for arg in args], env, str(cwd),
                                  stdio=[stdin_read, out_write, err_write])
    finally:
        for fd in (stdin_read, out_write, err_write):
            os.close(fd)
    try:
        out, err = exchange(input or b"", stdin_write, out_read, err_read, time.monotonic() + timeout)
        status = forked.wait()
    except subprocess.TimeoutExpired as late:
        forked.send_signal(signal.SIGKILL)
        forked.wait()
        raise subprocess.TimeoutExpired(command, timeout, late.output, late.stderr) from None
    finally:
        forked.close()
    if text:
        out, err = (data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n") for data in (out, err))
    done = subprocess.CompletedProcess(command, status_code(status), out, err)
    if check:
        done.check_returncode()
    return done


def exchange(data: bytes, stdin: int, stdout: int, stderr: int, deadline: float) -> tuple[bytes, bytes]:
    """Write `data` to stdin (then close it) while reading stdout and stderr to their ends."""
    shown = {stdout: bytearray(), stderr: bytearray()}
    with selectors.DefaultSelector() as selector:
        for fd in shown:
            selector.register(fd, selectors.EVENT_READ)
        if stdin >= 0:
            os.set_blocking(stdin, False)
            selector.register(stdin, selectors.EVENT_WRITE)
        sent = 0
        try:
            while selector.get_map():
                ready = selector.select(max(0.0, deadline - time.monotonic()))
                if not ready:
                    raise subprocess.TimeoutExpired([], 0, bytes(shown[stdout]), bytes(shown[stderr]))
                for key, _ in ready:
                    if key.fd == stdin:
                        try:
                            sent += os.write(stdin, data[sent:sent + 65536])
                        except BrokenPipeError:
                            sent = len(data)
                        if sent >= len(data):
                            selector.unregister(stdin)
                            os.close(stdin)
                            stdin = -1
                    elif chunk := os.read(key.fd, 65536):
                        shown[key.fd] += chunk
                    else:
                        selector.unregister(key.fd)
        finally:
            for fd in (stdin, stdout, stderr):
                if fd >= 0:
                    os.close(fd)
    return bytes(shown[stdout]), bytes(shown[stderr])
