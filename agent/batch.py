"""Running several tool calls of one reply at the same time (the Agent tool's sub-agents).

Part of the sub-agent layer: `side_by_side` is the runner it puts in the
executor's `batch` seam. The executor decides every call in order on the main
thread (validation, hooks, the user's answer); the handlers of a group of
consecutive `concurrent` calls then run here, each on its own thread, at most
MAX_PARALLEL at once. Results come back in call order, so the loop still adds
exactly one result per call, in order.

Two things stay with the main thread:
- Talking to the user. A worker that must ask something (a sub-agent's
  permission question) posts it to the `Mailbox`; the main thread asks it while
  it waits for the workers, so questions come one at a time, as usual.
- Ctrl-C. Python delivers it to the main thread only, so the main thread raises
  KeyboardInterrupt in every running worker: each handler stops through its own
  interrupt path (a sub-agent's loop ends its turn with a valid history) and
  still returns a result. Then the interrupt goes on to the loop.
"""

from __future__ import annotations

import ctypes
import queue
import threading
import time
from dataclasses import dataclass, field
from functools import partial
from itertools import groupby
from typing import Any, Callable, Iterator

from agent.executor import INTERRUPTED, Allowed, Executor, Guard, Results, in_order
from models.base import ToolCall
from tools.base import ToolResult, error

MAX_PARALLEL = 3
STOP_GRACE_SECONDS = 3.0  # for all workers together: a Ctrl-C must end the turn soon


@dataclass
class _Request:
    """Work a worker thread asks the main thread to do, and its outcome."""

    work: Callable[[], Any]
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    failure: BaseException | None = None


@dataclass
class Mailbox:
    """Lets worker threads run something on the main thread (the thread that made the mailbox)."""

    owner: int = field(default_factory=threading.get_ident)
    _inbox: queue.Queue = field(default_factory=queue.Queue)

    def call(self, work: Callable[[], Any]) -> Any:
        """Run `work` on the main thread and return its value; directly when already there."""
        if threading.get_ident() == self.owner:
            return work()
        request = _Request(work)
        self._inbox.put(request)
        while not request.done.wait(0.1):  # waking up lets a Ctrl-C raised in this thread land
            pass
        if request.failure is not None:
            raise request.failure
        return request.value

    def wake(self) -> None:
        """Make a waiting `serve` return (a worker has finished)."""
        self._inbox.put(None)

    def serve(self, timeout: float) -> None:
        """On the main thread: wait up to `timeout` for a request or a wake-up, and run it."""
        try:
            request = self._inbox.get(timeout=timeout)
        except queue.Empty:
            return
        if request is None:
            return
        try:
            request.value = request.work()
        except BaseException as failure:
            request.failure = failure
            if isinstance(failure, KeyboardInterrupt):
                raise
        finally:
            request.done.set()

    def refuse_waiting(self) -> None:
        """Answer every request still waiting with KeyboardInterrupt (the turn is cancelled)."""
        while True:
            try:
                request = self._inbox.get_nowait()
            except queue.Empty:
                return
            if request is not None:
                request.failure = KeyboardInterrupt()
                request.done.set()


class _Worker(threading.Thread):
    """Runs one handler; interruptible (by `interrupt`) only while the handler runs."""

    def __init__(self, job: Callable[[], ToolResult], mailbox: Mailbox):
        super().__init__(daemon=True)
        self.job, self.mailbox = job, mailbox
        self.result: ToolResult | None = None
        self._lock = threading.Lock()
        self._running = False

    def run(self) -> None:
        try:
            with self._lock:
                self._running = True
            try:
                self.result = self.job()
            finally:
                with self._lock:
                    self._running = False
        except KeyboardInterrupt as stop:
            if self.result is None:
                self.result = getattr(stop, "result", None) or error(INTERRUPTED)
        finally:
            self.mailbox.wake()

    def interrupt(self) -> None:
        """Raise KeyboardInterrupt inside the handler, if it is still running."""
        with self._lock:
            if self._running:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.ident),
                                                           ctypes.py_object(KeyboardInterrupt))


def side_by_side(mailbox: "Mailbox") -> Callable[[Executor, list[ToolCall], Guard], Results]:
    """A batch runner for the executor: consecutive calls of a `concurrent` tool run side by side."""
    def run_batch(executor: Executor, calls: list[ToolCall], guard: Guard) -> Results:
        def concurrent(call: ToolCall) -> bool:
            tool = executor.tools.get(call.name)
            return tool is not None and tool.concurrent

        for together, group in groupby(calls, key=concurrent):
            group = list(group)
            if not together:
                yield from in_order(executor, group, guard)
                continue
            decided = [guard(call, partial(executor.decide, call)) for call in group]
            jobs = [partial(guard, d.call, partial(executor.invoke, d)) if isinstance(d, Allowed)
                    else _already(d) for d in decided]
            for index, result in enumerate(run_concurrently(jobs, mailbox, MAX_PARALLEL)):
                yield group[index], result  # not zip: it would stop before a Ctrl-C re-raised
    return run_batch


def _already(result: ToolResult) -> Callable[[], ToolResult]:
    """A job whose result is known: a refused call in a concurrent group."""
    return lambda: result


def run_concurrently(jobs: list[Callable[[], ToolResult]], mailbox: Mailbox,
                     limit: int) -> Iterator[ToolResult]:
    """Each job's result in order, with at most `limit` jobs running at once."""
    workers = [_Worker(job, mailbox) for job in jobs]
    started = yielded = 0
    try:
        while yielded < len(workers):
            while started < len(workers) and started - _finished(workers[:started]) < limit:
                workers[started].start()
                started += 1
            if yielded < started and not workers[yielded].is_alive():
                yield workers[yielded].result or error(INTERRUPTED)
                yielded += 1
                continue
            mailbox.serve(timeout=0.5)
    except KeyboardInterrupt:
        _stop(workers[:started], mailbox)
        for worker in workers[yielded:]:
            yield worker.result or error(INTERRUPTED)
        raise
    finally:
        _stop(workers[:started], mailbox)


def _finished(workers: list[_Worker]) -> int:
    return sum(not worker.is_alive() for worker in workers)


def _stop(workers: list[_Worker], mailbox: Mailbox) -> None:
    """Interrupt every running worker and wait, STOP_GRACE_SECONDS in all, for their results.

    The interrupt lands between two bytecodes, so a worker blocked inside a C call
    (a read that waits) cannot take it: no tool may block like that (tools read
    without blocking, Bash polls its process in slices). Should one still be stuck,
    the turn ends anyway and that call's result says it was interrupted.
    """
    for worker in workers:
        worker.interrupt()
    mailbox.refuse_waiting()
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
