"""The one opener: every user file is read here (`read_bytes`, `read_text`, `load_json`, `read_many`,
`read_ends`, `open_input`, `check_readable`; archives through `archives.read_archive`, which opens them here).

Only regular files are read: a FIFO, a device or a socket is refused from its ``stat`` before it is opened,
and opened without blocking and checked again on the open descriptor, so that nothing hangs and nothing
reads without end. Sizes are bounded before reading (`input_limits`, $KAIST_KIT_MAX_INPUT_BYTES; an
archive's bound, by what it unpacks to and its compression ratio, $KAIST_KIT_MAX_ARCHIVE_RATIO, is set
here too). Within an `input_scope` (the CLI enters one per command) every file read is remembered as one
of the command's inputs, which the writer (`write`) refuses to write onto.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Callable, Collection, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from ..errors import InputError
from .text import decode_text, parse_json

# ---------------------------------------------------------------------------------------------
# Limits

MAX_BYTES_ENV = "KAIST_KIT_MAX_INPUT_BYTES"
MAX_RATIO_ENV = "KAIST_KIT_MAX_ARCHIVE_RATIO"
DEFAULT_MAX_BYTES = 2 << 30  # 2 GiB: ten times the largest result file of 2,000,000 detections
DEFAULT_MAX_RATIO = 100.0  # the official XML tree's archive unpacks to 33 times its size
RATIO_FREE_BYTES = 64 << 20  # what any archive may unpack to, whatever its ratio


@dataclass(frozen=True)
class InputLimits:
    """How much the kit reads: ``max_bytes`` from one file and from one archive once unpacked, and
    at most ``max_ratio`` times an archive's own size (beyond `RATIO_FREE_BYTES`)."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_ratio: float = DEFAULT_MAX_RATIO

    def unpacked_bound(self, packed: int) -> tuple[int, str]:
        """The most an archive of ``packed`` bytes may unpack to, and what passing it means."""
        by_ratio = max(RATIO_FREE_BYTES, int(self.max_ratio * packed))
        if by_ratio < self.max_bytes:
            return by_ratio, (
                f"more than {self.max_ratio:g} times the archive's own size, as a decompression "
                f"bomb does (set {MAX_RATIO_ENV} to allow a higher ratio)"
            )
        return self.max_bytes, f"more than the {human_size(self.max_bytes)} the kit reads ({_raise_hint()})"


_LIMITS: ContextVar[InputLimits | None] = ContextVar("kaist_kit_input_limits", default=None)


def input_limits() -> InputLimits:
    """The limits in force: those of an enclosing `limited`, else $KAIST_KIT_MAX_INPUT_BYTES and
    $KAIST_KIT_MAX_ARCHIVE_RATIO, else the defaults."""
    given = _LIMITS.get()
    if given is not None:
        return given
    return InputLimits(
        _env_number(MAX_BYTES_ENV, DEFAULT_MAX_BYTES, size=True),
        _env_number(MAX_RATIO_ENV, DEFAULT_MAX_RATIO, size=False),
    )


@contextlib.contextmanager
def limited(max_bytes: int | None = None, max_ratio: float | None = None) -> Iterator[InputLimits]:
    """Other limits for the reads within the block (library use; the CLI reads the environment)."""
    base = input_limits()
    limits = InputLimits(
        base.max_bytes if max_bytes is None else int(max_bytes),
        base.max_ratio if max_ratio is None else float(max_ratio),
    )
    token = _LIMITS.set(limits)
    try:
        yield limits
    finally:
        _LIMITS.reset(token)


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _env_number(name: str, default: float, size: bool):
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?", text.lower()) if size else None
    try:
        value = float(match[1]) * _UNITS[match[2]] if size and match else float(text)
    except (TypeError, ValueError):
        value = float("nan")
    if not value > 0 or value == float("inf"):
        example = "8G, 500M or a number of bytes" if size else "a number such as 200"
        raise InputError(f"{name}={text!r} is not {'a size' if size else 'a ratio'}: give {example}")
    return int(value) if size else value


def human_size(n: float) -> str:
    """'312 bytes', '1.5 MiB', '2 GiB'."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{int(n)} bytes"


def _raise_hint() -> str:
    return f"set {MAX_BYTES_ENV} to raise the limit, e.g. {MAX_BYTES_ENV}=8G"


# ---------------------------------------------------------------------------------------------
# A command's inputs


@dataclass
class InputScope:
    """The files a command has read: the writer refuses to write onto any of them."""

    files: dict[tuple[int, int], str] = field(default_factory=dict)  # (device, inode) -> the path read
    trees: list[tuple[str, Collection[str], str]] = field(default_factory=list)  # (real root, '/'-paths, root)

    def note(self, path: str | os.PathLike, st: os.stat_result) -> None:
        self.files.setdefault((st.st_dev, st.st_ino), str(path))

    def forget_under(self, folder: str | os.PathLike) -> None:
        """Forget the inputs read under ``folder`` (removed: the numbers of its files may be reused)."""
        given, real = os.path.abspath(folder) + os.sep, os.path.realpath(folder) + os.sep
        self.files = {key: path for key, path in self.files.items() if not os.path.abspath(path).startswith(given)}
        self.trees = [tree for tree in self.trees if not (tree[0] + os.sep).startswith(real)]

    def input_at(self, real: str, st: os.stat_result | None) -> str | None:
        """The input that the file at ``real`` (its real path; ``st`` its stat, None if absent) is."""
        if st is not None:
            found = self.files.get((st.st_dev, st.st_ino))
            if found is not None:
                return found
        for root, rels, given in self.trees:
            if real.startswith(root + os.sep):
                rel = real[len(root) + 1 :].replace(os.sep, "/")
                if rel in rels:
                    return f"{given}/{rel}"
        return None


_SCOPE: ContextVar[InputScope | None] = ContextVar("kaist_kit_input_scope", default=None)


@contextlib.contextmanager
def input_scope() -> Iterator[InputScope]:
    """The command's inputs, remembered by every read within the block. Scopes nest: an inner one is
    the enclosing one, so that a library call made by a command adds to the command's inputs."""
    current = _SCOPE.get()
    if current is not None:
        yield current
        return
    scope = InputScope()
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def note_input(path: str | os.PathLike) -> None:
    """Remember ``path`` as an input of the current command (for files another library opens)."""
    scope = _SCOPE.get()
    if scope is not None:
        with contextlib.suppress(OSError):
            scope.note(path, os.stat(path))


def note_input_tree(root: str | os.PathLike, rels: Collection[str]) -> None:
    """Remember the files ``rels`` ('/'-separated paths) under the folder ``root`` as inputs."""
    scope = _SCOPE.get()
    if scope is not None:
        scope.trees.append((os.path.realpath(root), rels, str(root)))


def current_input_scope() -> InputScope | None:
    """The inputs of the command in progress (those of the enclosing `input_scope`), None outside one."""
    return _SCOPE.get()


# ---------------------------------------------------------------------------------------------
# Reading

# Never block on open (a FIFO without a writer) nor take a terminal as the controlling one.
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_BATCH = 256  # files open at once in read_many
_READ_SIZE = 1 << 16  # read_many's first read of each file


def file_kind(mode: int) -> str:
    """What a stat's mode says a path is, for messages: 'a folder', 'a FIFO (named pipe)', ..."""
    for test, what in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a link"),
    ):
        if test(mode):
            return what
    return "not a regular file"


def _not_regular(path, mode: int) -> InputError:
    if stat.S_ISDIR(mode):
        return InputError("is a folder, expected a file", path)
    return InputError(f"is {file_kind(mode)}, not a regular file: the kit reads only regular files", path)


def _too_large(path, size: int, limit: int) -> InputError:
    return InputError(
        f"is {human_size(size)}, more than the {human_size(limit)} the kit reads from one file ({_raise_hint()})", path
    )


def _cannot_read(path, exc: OSError) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError("a link that leads nowhere" if os.path.islink(path) else "no such file", path)
    if isinstance(exc, NotADirectoryError):
        return InputError("no such file (a part of the path is a file)", path)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a folder, expected a file", path)
    with contextlib.suppress(OSError):
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            return _not_regular(path, mode)
    return InputError(f"cannot read: {exc.strerror or exc}", path)


def _open_input(path: str | os.PathLike, note: bool = True) -> tuple[int, os.stat_result]:
    """An open descriptor of the regular file at ``path`` within the size limit, and its stat."""
    limit = input_limits().max_bytes
    try:
        before = os.stat(path)
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    if not stat.S_ISREG(before.st_mode):
        raise _not_regular(path, before.st_mode)
    if before.st_size > limit:
        raise _too_large(path, before.st_size, limit)
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    try:
        st = os.fstat(fd)  # what was opened, which may have replaced what was looked at
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        if st.st_size > limit:
            raise _too_large(path, st.st_size, limit)
    except BaseException:
        os.close(fd)
        raise
    scope = _SCOPE.get() if note else None
    if scope is not None:
        scope.note(path, st)
    return fd, st


def read_bytes(path: str | os.PathLike, *, note: bool = True) -> bytes:
    """The bytes of the regular file at ``path``; anything else is an `InputError` naming it.
    ``note=False``: not one of the command's inputs (a cache the command itself replaces)."""
    fd, _ = _open_input(path, note)
    try:
        with open(fd, "rb", buffering=0, closefd=False) as handle:
            data = handle.readall()
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    finally:
        os.close(fd)
    limit = input_limits().max_bytes
    if len(data) > limit:  # it grew while being read
        raise _too_large(path, len(data), limit)
    return data


def read_text(path: str | os.PathLike) -> str:
    """The file's text; a missing, unreadable or non-UTF-8 file is an `InputError`."""
    return decode_text(read_bytes(path), path)


def load_json(path: str | os.PathLike) -> Any:
    return parse_json(read_text(path), path)


@contextlib.contextmanager
def open_input(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """The regular file at ``path`` open for reading (for readers that take a file: pictures,
    checkpoints), checked and remembered as `read_bytes` does."""
    fd, _ = _open_input(path)
    with os.fdopen(fd, "rb") as handle:
        yield handle


def check_readable(path: str | os.PathLike) -> Path:
    """``path`` if it is a regular file within the limits (remembered as an input), for a library
    that opens it by name itself; prefer `open_input`, which leaves no moment to swap the file."""
    fd, _ = _open_input(path)
    os.close(fd)
    return Path(path)


class FileEnds(NamedTuple):
    """The first and the last bytes of a file, and its size (see `read_ends`; a tuple, quick to make)."""

    size: int
    head: bytes
    tail: bytes


def read_ends(path: str | os.PathLike, head: int, tail: int = 0, *, note: bool = True) -> FileEnds:
    """The first ``head`` and the last ``tail`` bytes of the regular file at ``path`` (fewer when the
    file is shorter, the two then overlapping), and its size: for checks that look only at a file's
    header and end (the sizes and end markers of 95,000 pictures in seconds). At most ``head + tail``
    bytes are read, whatever the file's size, so the size limit does not apply. Opened without
    blocking and looked at on the open descriptor, as `read_many` does: anything but a regular file is
    an `InputError` naming it, and nothing blocks. Remembered as an input as `read_bytes` does
    (``note=False``: not)."""
    if head < 0 or tail < 0:
        raise ValueError(f"read_ends reads a number of bytes from each end, not {head} and {tail}")
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        first = os.read(fd, head) if head else b""
        if len(first) >= st.st_size or not tail:  # the whole file is read, or no end is asked for
            last = first[max(0, len(first) - tail) :]
        else:
            last = os.pread(fd, tail, max(0, st.st_size - tail))
    except OSError as exc:
        raise _cannot_read(path, exc) from None
    finally:
        os.close(fd)
    scope = _SCOPE.get() if note else None
    if scope is not None:
        scope.note(path, st)
    return FileEnds(st.st_size, first, last)


def read_many(paths: Sequence[str], name: Callable[[int], str] | None = None) -> list[bytes]:
    """The bytes of many small files that a folder listing found to be regular files (a tree of 95k
    annotation files): the open and read calls are mapped over batches (loops in C). Opened without
    blocking, as `read_bytes` does; a descriptor whose first read fills the buffer (a large file, or a
    device such as /dev/zero put in a file's place since the listing) or gives nothing (an empty file,
    or a FIFO) is looked at (fstat) and refused unless it is a regular file within the limits, so that
    nothing blocks nor reads without end. ``name(k)`` names file k in messages. Not remembered as
    inputs (the caller notes the tree, see `note_input_tree`)."""
    limit = input_limits().max_bytes
    first = min(_READ_SIZE, limit + 1)  # a first read this long is looked at
    name = name or paths.__getitem__
    out: list[bytes] = []
    for start in range(0, len(paths), _BATCH):
        batch = paths[start : start + _BATCH]
        fds: list[int] = []
        try:
            try:
                fds.extend(map(os.open, batch, repeat(_READ_FLAGS)))
            except OSError as exc:
                raise _cannot_read(name(start + len(fds)), exc) from None
            try:
                data = list(map(os.read, fds, repeat(first)))
                lengths = list(map(len, data))
                looked_at = (
                    [k for k, n in enumerate(lengths) if n in (0, first)] if (0 in lengths or first in lengths) else []
                )
                for k in looked_at:
                    st = os.fstat(fds[k])
                    if not stat.S_ISREG(st.st_mode):
                        raise _not_regular(name(start + k), st.st_mode)
                    if st.st_size > limit:
                        raise _too_large(name(start + k), st.st_size, limit)
                    if data[k]:
                        data[k] = _read_on(fds[k], data[k], limit, name(start + k))
            except OSError as exc:  # a read failed (a FIFO with nothing yet, a folder...): say which
                for k, fd in enumerate(fds):
                    try:
                        mode = os.fstat(fd).st_mode
                        if stat.S_ISREG(mode):
                            os.pread(fd, 1, 0)
                            continue
                    except OSError as which:
                        raise _cannot_read(name(start + k), which) from None
                    raise _not_regular(name(start + k), mode) from None
                raise InputError(f"cannot read: {exc.strerror or exc}", name(start)) from None
        finally:
            for fd in fds:
                os.close(fd)
        out += data
    return out


def _read_on(fd: int, head: bytes, limit: int, path: str) -> bytes:
    chunks, total = [head], len(head)
    for chunk in iter(lambda: os.read(fd, 1 << 20), b""):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise _too_large(path, total, limit)
    return b"".join(chunks)
