"""The `kaist-kit` command's entry point, `main`: it takes SIGINT and SIGTERM before it imports anything
else, so that an interrupt at any moment of a command, its start and its end included, ends it
without a traceback: Ctrl-C with exit code 130, SIGTERM with 143 ("terminated"), the command's
temporary files and worker processes gone.

Only the standard library's os, signal and sys are imported here: typer, rich, numpy and the module of
the verb the command runs are imported once the interrupts are taken.
"""

import os
import signal
import sys

_INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


class Terminated(SystemExit):
    """SIGTERM, raised in the main thread so that the command ends as on Ctrl-C: its temporary files
    removed and its worker processes ended."""


class _State:
    # Whether the command is over, or ending after an interrupt: a later interrupt raises nothing.
    stopped = False
    # Whether the process ends with the command (main called by the program itself).
    owns_process = False


def _interrupt(signum, frame) -> None:
    if _State.stopped:
        # The command is over or already ending (cleaning up after Ctrl-C): a second interrupt ends the
        # process at once when it is the command's own; the writer's temporaries are unnamed, or
        # removed by the next write into their folder.
        if _State.owns_process:
            _flush()
            os._exit(128 + signum)
        return
    _State.stopped = True
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(128 + signum)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe, or a write the interrupt broke into
            pass


def main() -> None:
    """Run the command line in sys.argv and exit with its code: 0, 1 (a check that fails), 2 (bad input,
    one line on stderr), 130 (Ctrl-C) or 143 (SIGTERM).

    Called by the program itself (the console script, `python -m kaist_kit`), it keeps the interrupts
    until the process ends; called by other code (tests), it gives them back as it found them. A
    signal that the process ignores (a background job's Ctrl-C) stays ignored."""
    _State.stopped = False
    taken = {}
    code = 1
    try:
        _State.owns_process = sys._getframe(1).f_globals.get("__name__") == "__main__"
        for signum in _INTERRUPTS:
            previous = signal.getsignal(signum)
            if previous is not signal.SIG_IGN:
                taken[signum] = previous
                signal.signal(signum, _interrupt)
        from ..errors import InputError
        from .app import run
        from .verbs import load

        try:
            load(sys.argv[1:])  # the verb the command line names, and only it
        except InputError as exc:  # a benchmark module named by KAIST_KIT_BENCHMARKS that cannot be imported
            print(f"error: {exc}", file=sys.stderr)
            code = 2
        else:
            code = run()
        _State.stopped = True
    except KeyboardInterrupt:
        _State.stopped = True
        code = 130
    except Terminated as exc:
        _State.stopped = True
        print("terminated", file=sys.stderr)
        code = exc.code
    finally:
        if not _State.owns_process:
            for signum, previous in taken.items():
                if previous is not None:  # None: a handler set outside Python, which cannot be put back
                    signal.signal(signum, previous)
    sys.exit(code)
