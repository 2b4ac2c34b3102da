"""Worker processes that never outlive the process that started them, and never hang it.

A conversion of a large source runs in a pool of worker processes. They must end with it however it
ends: normally, on an error, on SIGINT or SIGTERM at any moment, and even on ``kill -9``, which gives
the parent no chance to act (each worker asks the kernel to kill it when its parent dies, Linux's
``prctl(PR_SET_PDEATHSIG)``; elsewhere a thread in each worker checks that its parent is there).

The pool has no thread of its own in the parent. concurrent.futures' pool has two (one feeds the
jobs into a pipe, one reads the results), and ending its workers in the middle of a message left
them waiting for the rest forever, the parent joining them: an interrupt in the first half-second of
a conversion hung on a futex. Here the parent's main thread does everything: it forks the workers
before any other work (SIGINT and SIGTERM held back while it forks, so that none arrives in a worker
before it ignores them), writes a job only to a worker that waits for one and reads every result
itself; each worker has a pipe of its own whose other end only it holds, so that a worker's death is
an end of file, never a wait. Ending the pool kills the workers and reaps them: nothing to join.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait

from kaist_kit.errors import InputError

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


class WorkerFailed(RuntimeError):
    """A worker process ended without answering (killed, out of memory)."""


class Pending:
    """A job handed to the pool; `result` waits for its answer."""

    def __init__(self, pool: WorkerPool, fn: Callable, arg: object):
        self.pool, self.fn, self.arg = pool, fn, arg
        self.done = False
        self.value: object = None
        self.error: BaseException | None = None

    def result(self) -> object:
        while not self.done:
            self.pool._step(block=True)
        if self.error is not None:
            raise self.error
        return self.value


class WorkerPool:
    """``workers`` forked processes, each set up by ``initializer(*initargs)``, running one job at a time."""

    def __init__(self, workers: int, initializer: Callable, initargs: tuple = ()):
        self._idle: list[Connection] = []
        self._busy: dict[Connection, Pending] = {}
        self._queue: deque[Pending] = deque()
        self._pids: dict[Connection, int] = {}
        try:
            for _ in range(workers):
                self._fork(initializer, initargs)
        except BaseException:
            self.kill()
            raise

    def _fork(self, initializer: Callable, initargs: tuple) -> None:
        import socket

        parent_end, child_end = socket.socketpair()
        parent = os.getpid()
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
        try:
            pid = os.fork()
            if pid == 0:  # the worker: never returns into the parent's code
                code = 1
                try:
                    parent_end.close()
                    for other in self._pids:  # the other workers' pipes are the parent's alone
                        other.close()
                    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends the workers
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    _die_with(parent)
                    signal.pthread_sigmask(signal.SIG_SETMASK, held)
                    initializer(*initargs)
                    _serve(Connection(child_end.detach()))
                    code = 0
                finally:
                    os._exit(code)
            child_end.close()
            connection = Connection(parent_end.detach())
            self._pids[connection] = pid
            self._idle.append(connection)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def submit(self, fn: Callable, arg: object) -> Pending:
        """Hand ``fn(arg)`` to a worker (``fn`` a module-level function)."""
        job = Pending(self, fn, arg)
        self._queue.append(job)
        self._step(block=False)
        return job

    def map(self, fn: Callable, args: Iterable) -> Iterator:
        """``fn(arg)`` for each of ``args``, in their order."""
        jobs = [self.submit(fn, arg) for arg in args]
        for job in jobs:
            yield job.result()

    def _step(self, block: bool) -> None:
        """Give waiting jobs to idle workers, then take in the answers that are there (waiting for
        one when ``block``), and give the freed workers the next jobs."""
        self._dispatch()
        if not self._busy:
            if block and self._queue:
                raise WorkerFailed("no worker process is left")
            return
        for connection in wait(list(self._busy), None if block else 0):
            job = self._busy.pop(connection)
            try:
                ok, value = connection.recv()
            except (EOFError, OSError):
                raise WorkerFailed("a worker process of the conversion ended unexpectedly") from None
            job.done = True
            if ok:
                job.value = value
            else:
                job.error = _rebuilt(value)
            self._idle.append(connection)
        self._dispatch()

    def _dispatch(self) -> None:
        while self._queue and self._idle:
            connection, job = self._idle.pop(), self._queue.popleft()
            try:
                connection.send((job.fn, job.arg))
            except OSError:
                raise WorkerFailed("a worker process of the conversion ended unexpectedly") from None
            self._busy[connection] = job

    def kill(self) -> None:
        """End the workers at once, whatever they are doing, and reap them: a worker holds nothing
        that must be let go of, and one still sending an answer nobody reads would never end."""
        for pid in self._pids.values():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for connection, pid in list(self._pids.items()):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            connection.close()
            del self._pids[connection]
        self._idle.clear()
        self._busy.clear()


@contextlib.contextmanager
def worker_pool(workers: int, initializer: Callable, initargs: tuple = ()) -> Iterator[WorkerPool]:
    """A pool of ``workers`` processes, each set up by ``initializer(*initargs)``. Leaving the block
    in any way (an interrupt included) ends them at once."""
    if not hasattr(os, "fork"):
        raise RuntimeError("worker processes need os.fork")
    pool = WorkerPool(workers, initializer, initargs)
    try:
        yield pool
    finally:
        pool.kill()


def _serve(connection: Connection) -> None:
    """A worker's loop: a job in, its answer out, until the parent says stop (None) or goes."""
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        fn, arg = job
        try:
            answer = (True, fn(arg))
        except BaseException as exc:  # sent to the parent, which raises it
            answer = (False, _portable(exc))
        try:
            connection.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError):
            connection.send((False, ("RuntimeError", f"an answer that cannot be sent back: {answer[1]!r:.200}")))


def _portable(exc: BaseException) -> tuple:
    """An exception as plain values (an `InputError` keeps its file and line)."""
    if isinstance(exc, InputError):
        return ("InputError", exc.reason, exc.path, exc.line)
    return (type(exc).__name__, str(exc))


def _rebuilt(value: tuple) -> BaseException:
    if value[0] == "InputError":
        return InputError(*value[1:])
    return RuntimeError(f"{value[0]} in a worker process: {value[1]}")


def _die_with(parent: int) -> None:
    """Make this process end when ``parent`` does."""
    if sys.platform.startswith("linux"):
        try:
            asked = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) == 0
        except (OSError, AttributeError):
            asked = False
        if asked:
            if os.getppid() != parent:  # the parent died before the request was made
                os._exit(1)
            return
    threading.Thread(target=_watch, args=(parent,), daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)
