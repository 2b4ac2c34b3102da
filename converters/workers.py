"""Worker processes that never outlive the process that started them.

A conversion of a large source runs in a pool of worker processes. They must end with it however it
ends: normally, on an error, on SIGINT or SIGTERM (the pool is stopped at once rather than left to
finish its chunks), and even on ``kill -9``, which gives the parent no chance to act. For that last
case each worker asks the kernel to kill it when its parent dies (Linux's ``prctl(PR_SET_PDEATHSIG)``):
immediate, and it works while the worker is busy in C code that holds the interpreter. Where that is
not available, a thread in each worker checks twice a second that its parent is still there.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@contextlib.contextmanager
def worker_pool(workers: int, initializer: Callable, initargs: tuple = ()) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` processes, each set up by ``initializer(*initargs)``. Leaving the block
    normally waits for the work handed out; leaving it by an exception (an interrupt included) ends
    the workers at once."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(workers, multiprocessing.get_context(method), initializer=_start_worker,
                               initargs=(os.getpid(), initializer, initargs))
    try:
        yield pool
    except BaseException:
        _end_workers(pool)
        raise
    finally:
        pool.shutdown(cancel_futures=True)


def _end_workers(pool: ProcessPoolExecutor) -> None:
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14 and later
    if terminate is not None:
        terminate()
        return
    # Before 3.14 the pool only waits for its running calls to finish; its processes are ended here.
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def _start_worker(parent: int, initializer: Callable, initargs: tuple) -> None:
    _die_with(parent)
    # The parent handles interrupts and ends the workers: a worker must neither print a traceback
    # for a Ctrl-C sent to the whole terminal, nor run a handler inherited from the parent.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    initializer(*initargs)


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
