"""The one way in and the one way out for the kit's files.

In: every user file is read here (`read_bytes`, `read_text`, `load_json`, `read_archive`, `read_many`,
`read_ends`, `open_input`, `check_readable`). Only regular files are read: a FIFO, a device or a
socket is refused from its ``stat`` before it is opened, and opened without blocking and checked again
on the open descriptor, so that nothing hangs and nothing reads without end. Sizes are bounded before reading
(`input_limits`, $KAIST_KIT_MAX_INPUT_BYTES), and archives by what they unpack to, both as their
entries declare it and as decompression actually produces it, and by their compression ratio
($KAIST_KIT_MAX_ARCHIVE_RATIO). Within an `input_scope` (the CLI enters one per command) every file
read is remembered as one of the command's inputs.

Out: every output is written here (`atomic_path`, `atomic_file`, `write_bytes_atomic`,
`write_text_atomic`, `write_json_atomic`, `atomic_folder`, `make_folder`; `check_writable` checks a
place before the work). The writer never writes onto one of the command's inputs nor onto anything
but a regular file; it writes into an unnamed file (Linux's O_TMPFILE) or, where there is none, a
temporary ``.NAME.PID.XXXXXXXXXX.kaist-kit.tmp`` beside the target, and only a complete file takes the
target's name. Temporaries of processes that are gone are removed by the next write into their folder
(a folder that has not changed since it was last looked through is not looked through again).
A command's own intermediate files go in a `scratch_folder`, removed with the block.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import re
import signal
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from ..errors import InputError

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


def decode_text(data: bytes, path: str | os.PathLike) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text (is this a binary file?)", path, line) from None


def text_lines(text: str) -> list[str]:
    """The lines of a text: ended by a line feed, a carriage return or both, and by nothing else (a form
    feed or U+2028, which str.splitlines also ends lines at, is blank space within a line)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def is_number(token: str) -> bool:
    """Whether a field of a text file reads as a number (what float() accepts)."""
    return accepts(float, token)


def accepts(parse, text: str) -> bool:
    """Whether ``parse`` reads ``text`` (raises no ValueError)."""
    try:
        parse(text)
    except ValueError:
        return False
    return True


def parse_json(text: str, path: str | os.PathLike) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        # An error in the text's last, unfinished token (a number or a word cut short, or a string
        # still open) means the document stopped early: say so, it is the usual cause. Not any error
        # on the last line: a detector's results are often one line.
        stopped = bool(re.fullmatch(r"[\w.+-]*", text[exc.pos :].rstrip())) or exc.msg.startswith("Unterminated string")
        what = "truncated JSON" if stopped else f"invalid JSON: {exc.msg}"
        raise InputError(what, path, exc.lineno) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path) from None


_WS = " \t\n\r"


def json_line(text: str, *keys: str | int) -> int | None:
    """1-based line where the value at ``keys`` (object keys and array indices) starts.

    Used only to point an error at the right line, so it re-scans the text and does not need to be
    fast. Returns None when the path does not exist.
    """
    decoder = json.JSONDecoder()
    pos = 0
    for key in keys:
        pos = _skip_ws(text, pos)
        if pos >= len(text):
            return None
        if isinstance(key, int):
            if text[pos] != "[":
                return None
            pos = _nth_array_element(text, pos, key, decoder)
        else:
            if text[pos] != "{":
                return None
            pos = _object_value(text, pos, key, decoder)
        if pos is None:
            return None
    return text.count("\n", 0, _skip_ws(text, pos)) + 1


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _nth_array_element(text: str, pos: int, n: int, decoder: json.JSONDecoder) -> int | None:
    pos = _skip_ws(text, pos + 1)
    for _ in range(n):
        if pos >= len(text) or text[pos] == "]":
            return None
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if pos >= len(text) or text[pos] != ",":
            return None
        pos = _skip_ws(text, pos + 1)
    return pos if pos < len(text) and text[pos] != "]" else None


def _object_value(text: str, pos: int, wanted: str, decoder: json.JSONDecoder) -> int | None:
    pos = _skip_ws(text, pos + 1)
    while pos < len(text) and text[pos] != "}":
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if pos >= len(text) or text[pos] != ":":
            return None
        pos = _skip_ws(text, pos + 1)
        if key == wanted:
            return pos
        _, pos = decoder.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return None


# ---------------------------------------------------------------------------------------------
# Archives

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")


def is_archive(path: str | os.PathLike) -> bool:
    return str(path).lower().endswith(ARCHIVE_SUFFIXES)


def read_archive(path: str | os.PathLike) -> dict[str, bytes]:
    """Every regular file of a .zip or tar archive (.tar, .tar.gz, .tgz; gzip, bzip2, xz or none),
    by member name, in the archive's order.

    Refused (`InputError`): an unreadable archive; an entry that would be extracted outside its folder
    (an absolute name or a ``..`` step); two entries of one name; encrypted entries; and an archive
    that unpacks to more than `InputLimits.unpacked_bound` allows. Sizes are checked as the entries
    declare them before anything is decompressed, and decompression itself is bounded, since a
    declared size can lie."""
    import lzma
    import tarfile
    import zipfile
    import zlib

    limits = input_limits()
    with open_input(path) as handle:
        packed = os.fstat(handle.fileno()).st_size
        try:
            if str(path).lower().endswith(".zip"):
                return _read_zip(handle, packed, path, limits)
            return _read_tar(handle, packed, path, limits)
        except (
            zipfile.BadZipFile,
            tarfile.TarError,
            EOFError,
            OSError,
            RuntimeError,
            NotImplementedError,
            ValueError,
            zlib.error,
            lzma.LZMAError,
        ) as exc:
            # zipfile raises RuntimeError and NotImplementedError for entries it cannot decrypt or
            # decompress, ValueError for some malformed headers.
            raise InputError(f"cannot read the archive: {exc}", path) from None


def _bomb(path, size: int, why: str, declared: bool) -> InputError:
    how = "its entries declare" if declared else "unpacks to"
    return InputError(f"{how} {'more than ' if not declared else ''}{human_size(size)}, {why}; refused", path)


def _read_zip(handle: BinaryIO, packed: int, path, limits: InputLimits) -> dict[str, bytes]:
    import zipfile

    bound, why = limits.unpacked_bound(packed)
    with zipfile.ZipFile(handle) as archive:
        infos = [info for info in archive.infolist() if not info.filename.endswith("/")]
        _check_member_names([info.filename for info in infos], path)
        encrypted = [i.filename for i in infos if i.flag_bits & 0x1]
        if encrypted:
            raise InputError(
                f"the archive's entries are encrypted ({encrypted[0]}); results are read "
                "from archives without a password",
                path,
            )
        declared = sum(info.file_size for info in infos)
        if declared > bound:
            raise _bomb(path, declared, why, declared=True)
        members, total = {}, 0
        for info in infos:
            # zipfile stops at the declared size (and checks the CRC), whatever the data holds.
            with archive.open(info) as entry:
                data = entry.read(info.file_size + 1)
            total += len(data)
            if total > bound:
                raise _bomb(path, total, why, declared=False)
            members[info.filename] = data
        return members


class _Bounded(io.RawIOBase):
    """A decompressed stream that stops with an `InputError` past ``bound`` bytes."""

    def __init__(self, stream, bound: int, why: str, path):
        self.stream, self.bound, self.why, self.path, self.count = stream, bound, why, path, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(self.bound + 1 - self.count if size is None or size < 0 else size)
        self.count += len(data)
        if self.count > self.bound:
            raise _bomb(self.path, self.bound, self.why, declared=False)
        return data


def _read_tar(handle: BinaryIO, packed: int, path, limits: InputLimits) -> dict[str, bytes]:
    import bz2
    import gzip
    import lzma
    import tarfile

    head = handle.read(6)
    handle.seek(0)
    if head[:2] == b"\x1f\x8b":
        stream = gzip.GzipFile(fileobj=handle, mode="rb")
    elif head[:3] == b"BZh":
        stream = bz2.BZ2File(handle)
    elif head == b"\xfd7zXZ\x00":
        stream = lzma.LZMAFile(handle)
    else:
        stream = handle
    bound, why = limits.unpacked_bound(packed)
    members: dict[str, bytes] = {}
    seen: dict[str, str] = {}  # each member's name as extracted -> its name as written
    declared = 0
    # Read as a stream ("r|"): in order, every byte through the bound, nothing sought.
    with tarfile.open(fileobj=_Bounded(stream, bound, why, path), mode="r|") as archive:
        for member in archive:
            declared += max(member.size, 0)
            if declared > bound:
                raise _bomb(path, declared, why, declared=True)
            if member.isfile() or (member.islnk() and member.linkname in members):
                _check_member_names([member.name], path, seen)
                if member.islnk():  # a second name of a file read before it
                    members[member.name] = members[member.linkname]
                    continue
                entry = archive.extractfile(member)
                members[member.name] = entry.read() if entry else b""
    return members


def _duplicate_member(name: str, path, also: str = "") -> InputError:
    return InputError(
        f"the archive holds two entries named {name[:120]!r}{also}; which one is meant cannot be told", path
    )


def _check_member_names(names: list[str], path: str | os.PathLike, seen: dict[str, str] | None = None) -> None:
    """Refuse an entry that would be extracted outside the archive's folder, and two entries that would
    be extracted to one place: names are compared as extraction makes them (``a//b``, ``./a/b`` and
    ``a\\b`` are ``a/b``). ``seen``: the names met so far (for a tar, read member by member)."""
    seen = {} if seen is None else seen
    for name in names:
        parts = name.replace("\\", "/").split("/")
        if name.startswith(("/", "\\")) or ".." in parts or (parts[0][1:2] == ":"):
            raise InputError(
                f"the archive's entry {name[:80]!r} lies outside the archive's folder ('..' or an "
                "absolute name), which no extraction may write: refused",
                path,
            )
        extracted = "/".join(part for part in parts if part not in ("", "."))
        if extracted in seen:
            also = "" if seen[extracted] == name else f" (also as {seen[extracted][:120]!r})"
            raise _duplicate_member(name, path, also)
        seen[extracted] = name


# ---------------------------------------------------------------------------------------------
# Writing

_TEMP_SUFFIX = ".kaist-kit.tmp"
# .NAME.PID.XXXXXXXXXX.kaist-kit.tmp: the kit's own temporaries, and the process that made each.
_TEMP = re.compile(r"\.(?s:.*)\.(\d+)\.[0-9a-f]{10}" + re.escape(_TEMP_SUFFIX))
_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}
_O_TMPFILE = getattr(os, "O_TMPFILE", 0)
# Where the writer may not use unnamed files (tests set it to see the named fallback).
NAMED_TEMPORARIES_ONLY = not _O_TMPFILE or not os.path.isdir("/proc/self/fd")
_WRITE_ERRORS = {getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO") if hasattr(errno, name)}
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

# Told of what the writer is about to make (see `recording_outputs`).
_RECORDER: ContextVar[Callable[[list[tuple[str, Path]]], None] | None] = ContextVar("kaist_kit_outputs", default=None)


@contextlib.contextmanager
def recording_outputs(record: Callable[[list[tuple[str, Path]]], None]) -> Iterator[None]:
    """Within the block, ``record(made)`` is told of the files and folders each write is about to make,
    as a list of ("file" or "folder", real path), before it makes them: a record kept by ``record``
    then names all that a run stopped at any moment may have left (and perhaps a little more)."""
    token = _RECORDER.set(record)
    try:
        yield
    finally:
        _RECORDER.reset(token)


def _recorded(made: list[tuple[str, Path]]) -> None:
    record = _RECORDER.get()
    if record is not None and made:
        record(made)


def _output_target(path: str | os.PathLike, folder: bool = False) -> tuple[Path, os.stat_result | None]:
    """The real place a write to ``path`` goes (a link is written through) and what is there now;
    refused when that is not a regular file (a folder, for ``folder``) or is an input of the command."""
    given = Path(path)
    if os.path.islink(given) and not os.path.exists(given):
        raise InputError("is a link that leads nowhere: refusing to write through it", given)
    real = Path(os.path.realpath(given))
    try:
        st = os.stat(real)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        raise InputError(f"cannot write there: {exc.strerror or exc}", given) from None
    if st is not None:
        if folder and not stat.S_ISDIR(st.st_mode):
            raise InputError(
                "is a file; give a folder to write into"
                if stat.S_ISREG(st.st_mode)
                else f"is {file_kind(st.st_mode)}, not a folder: refusing to write there",
                given,
            )
        if not folder and stat.S_ISDIR(st.st_mode):
            raise InputError("is a folder; give a file name to write", given)
        if not folder and not stat.S_ISREG(st.st_mode):
            raise InputError(f"is {file_kind(st.st_mode)}, not a regular file: refusing to replace it", given)
    scope = _SCOPE.get()
    found = None if folder or scope is None else scope.input_at(str(real), st)
    if found is not None:
        same = "" if os.path.abspath(found) == os.path.abspath(given) else f" ({found})"
        raise InputError(
            f"is one of this command's inputs{same}: refusing to overwrite it; write the output elsewhere", given
        )
    return real, st


def check_writable(path: str | os.PathLike, folder: bool = False) -> Path:
    """``path`` if a file (``folder=True``: a folder) can be written there; else an `InputError`.

    Cheap, so that a command checks its output before the work: the place must be a regular file
    or nothing (a folder or nothing, for ``folder``), none of the command's inputs read so far, and
    its nearest existing parent a folder in which a file can be created (tried without leaving a
    name, where the system allows). Read-only folders and /proc fail.
    """
    target = Path(path)
    what = "folder" if folder else "file"
    real, st = _output_target(target, folder)
    parent = real if folder and st is not None else real.parent
    try:
        while not parent.exists() and parent != parent.parent:  # folders the writer will make
            parent = parent.parent
        if not parent.is_dir():
            raise InputError(f"cannot write the {what}: {parent} is not a folder", target)
        if not folder and len(os.fsencode(real.name)) > _name_max(parent):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
        fd, named = _create_temporary(parent, real.name)
        os.close(fd)
        if named is not None:
            os.unlink(named)
    except OSError as exc:
        raise InputError(f"cannot write the {what} there: {exc.strerror or exc}", target) from None
    return target


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return 255


def _temporary_name(name: str) -> str:
    return f".{name[:80]}.{os.getpid()}.{os.urandom(5).hex()}{_TEMP_SUFFIX}"


def _create_temporary(folder: Path, name: str) -> tuple[int, Path | None]:
    """A new file open for writing in ``folder``: unnamed where the system allows (None), else named."""
    if not NAMED_TEMPORARIES_ONLY:
        try:
            return os.open(folder, _O_TMPFILE | os.O_RDWR | _CLOEXEC, 0o600), None
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                raise
    while True:
        named = folder / _temporary_name(name)
        try:
            return os.open(
                named, os.O_CREAT | os.O_EXCL | os.O_RDWR | _CLOEXEC | getattr(os, "O_BINARY", 0), 0o600
            ), named
        except FileExistsError:
            continue


# Folders known free of stale temporaries: folder -> its (device, inode, mtime) then. A folder is looked
# through again only once it has changed since: a command writing 20,000 files into one folder scans it
# once, not 20,000 times.
_CLEAN: dict[str, tuple[int, int, int]] = {}
_CLEAN_LIMIT = 4096  # folders remembered at most


def _folder_state(folder: str | os.PathLike) -> tuple[int, int, int] | None:
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns


def _clean_stale(folder: str | os.PathLike) -> None:
    """Remove the stale temporaries of ``folder`` (`remove_stale_temporaries`) unless it has not changed
    since it was last found free of them."""
    state = _folder_state(folder)
    if state is not None and _CLEAN.get(str(folder)) == state:
        return
    remove_stale_temporaries(folder)
    _cleaned(folder)


def _cleaned(folder: str | os.PathLike) -> None:
    """Remember ``folder`` as it is now as free of stale temporaries (after a scan, or after this
    process's own write into a folder it had found free of them)."""
    state = _folder_state(folder)
    if state is None:
        return
    if len(_CLEAN) >= _CLEAN_LIMIT:
        _CLEAN.clear()
    _CLEAN[str(folder)] = state


def remove_stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """Remove the kit's temporaries in ``folder`` (``.NAME.PID.XXXXXXXXXX.kaist-kit.tmp``, files or
    staging folders) whose process is gone, or was not yet running when they were last written (its
    number now another's); returns what was removed. Nothing else is ever touched."""
    import shutil

    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP.fullmatch(entry.name)
        if match is None:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not _gone(int(match[1]), st.st_mtime):
                continue
            if stat.S_ISDIR(st.st_mode):
                shutil.rmtree(entry.path)
            elif stat.S_ISREG(st.st_mode):
                os.unlink(entry.path)
            else:
                continue
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def _gone(pid: int, written: float) -> bool:
    """Whether the process numbered ``pid`` that wrote at time ``written`` has ended."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        pass
    started = _started(pid)
    return started is not None and written < started - 1.0


def _started(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch), where /proc says."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            ticks = int(handle.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/stat", "rb") as handle:
            boot = next(int(line.split()[1]) for line in handle if line.startswith(b"btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _missing(folder: Path) -> list[Path]:
    """``folder`` and its parents that are not there yet, outermost first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]


def _make_parents(folder: Path, missing: list[Path] | None = None) -> None:
    for made in _missing(folder) if missing is None else missing:
        with contextlib.suppress(FileExistsError):
            made.mkdir()


def _mode_for(st: os.stat_result | None) -> int:
    """The new file's permissions: those of the file it replaces, else the default under the umask."""
    if st is not None:
        return stat.S_IMODE(st.st_mode)
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def _holding_interrupts() -> Iterator[None]:
    """SIGINT and SIGTERM held back within the block (what it makes is known when they arrive)."""
    mask = getattr(signal, "pthread_sigmask", None)
    held = mask(signal.SIG_BLOCK, _INTERRUPTS) if mask else None
    try:
        yield
    finally:
        if held is not None:
            mask(signal.SIG_SETMASK, held)


def check_outputs(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Every file a command is about to write, checked as `check_writable` checks one, and none of them
    twice: called once the command knows all its inputs and before it writes the first output, so
    that a refused output leaves nothing written."""
    seen: dict[Path, Path] = {}
    checked = []
    for path in paths:
        real, _ = _output_target(path)
        if real in seen:
            also = "" if os.path.abspath(seen[real]) == os.path.abspath(path) else f" (also as {seen[real]})"
            raise InputError(f"is written twice by this command{also}: give each output a place of its own", path)
        seen[real] = Path(path)
        checked.append(check_writable(path))
    return checked


def _write_error(exc: OSError, tmp: Path, folder: Path) -> bool:
    """Whether an error within a write is the write's: the disk, or the temporary or its folder."""
    return exc.errno in _WRITE_ERRORS or (
        exc.filename is not None
        and (str(exc.filename) == str(tmp) or os.path.dirname(str(exc.filename)) == str(folder))
    )


def _link_unnamed(fd: int, named: Path) -> None:
    """Give the unnamed file open as ``fd`` the name ``named`` (linkat through /proc, following the
    descriptor's link: os.link does so only when given a folder descriptor)."""
    folder = os.open(named.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    try:
        os.link(f"/proc/self/fd/{fd}", named.name, dst_dir_fd=folder, follow_symlinks=True)
    finally:
        os.close(folder)


@contextlib.contextmanager
def _staged(path: str | os.PathLike) -> Iterator[tuple[int, Path]]:
    """An open, empty temporary file (descriptor and a path that opens it) that replaces ``path``
    only if the block succeeds; see `atomic_path`."""
    given = Path(path)
    real, st = _output_target(given)
    folder = real.parent
    fd, named = -1, None
    tmp = None
    try:
        with _holding_interrupts():
            try:
                missing = _missing(folder)
                _recorded([*(("folder", made) for made in missing), ("file", real)])
                _make_parents(folder, missing)
                _clean_stale(folder)
                fd, named = _create_temporary(folder, real.name)
            except OSError as exc:
                raise InputError(f"cannot write: {exc.strerror or exc}", given) from None
        tmp = named if named is not None else Path(f"/proc/self/fd/{fd}")
        try:
            yield fd, tmp
            real, st = _output_target(given)  # again: it may have become an input meanwhile
            if hasattr(os, "fchmod"):
                os.fchmod(fd, _mode_for(st))
            else:
                os.chmod(tmp, _mode_for(st))
            with _holding_interrupts():
                if named is None:
                    named = folder / _temporary_name(real.name)
                    _link_unnamed(fd, named)
                os.close(fd)  # closed before the rename, which some systems refuse on an open file
                fd = -1
                os.replace(named, real)
                named = None
                if str(folder) in _CLEAN:
                    _cleaned(folder)  # changed by this write only
        except OSError as exc:
            if _write_error(exc, tmp, folder):
                raise InputError(f"cannot write: {exc.strerror or exc}", given) from None
            raise
    finally:
        if fd >= 0:
            os.close(fd)
        if named is not None:
            with contextlib.suppress(OSError):
                os.unlink(named)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path to write; it replaces ``path`` only if the block succeeds.

    ``path`` must be a regular file or nothing, and not one of the command's inputs (else an
    `InputError` naming it, before and again after the block); a link is written through (the file
    it leads to is replaced, the link stays). The temporary is an unnamed file where the system
    allows, so that nothing is left behind whatever ends the process, else a named one that is
    removed whatever ends the block. A place that cannot be written, and a disk that fills up, are
    an `InputError` naming ``path``. Prefer `atomic_file` for writers that take an open file."""
    with _staged(path) as (_, tmp):
        yield tmp


class _Output(io.BufferedWriter):
    """The writer's temporary file: an error while writing it (a full disk) names the file it becomes."""

    def __init__(self, fd: int, target: Path):
        super().__init__(io.FileIO(fd, "wb", closefd=False))
        self.target = target

    def write(self, data) -> int:
        try:
            return super().write(data)
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", self.target) from None

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", self.target) from None


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """Like `atomic_path`, yielding the temporary file open for writing (binary)."""
    with _staged(path) as (fd, _):
        with _Output(fd, Path(path)) as handle:
            yield handle


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    with atomic_file(path) as handle:
        handle.write(data)


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: str | os.PathLike, obj: Any, indent: int | None = None) -> None:
    separators = (",", ":") if indent is None else None
    write_text_atomic(path, json.dumps(obj, indent=indent, separators=separators) + "\n")


def make_folder(path: str | os.PathLike) -> Path:
    """The folder ``path`` for outputs, made (with its parents) if it is not there."""
    target = check_writable(path, folder=True)
    try:
        missing = _missing(Path(os.path.realpath(target)))
        _recorded([("folder", made) for made in missing])
        _make_parents(Path(os.path.realpath(target)), missing)
    except OSError as exc:
        raise InputError(f"cannot make the folder: {exc.strerror or exc}", target) from None
    return target


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike, merge: bool = False) -> Iterator[Path]:
    """Yield a new staging folder to fill, beside ``path``; it becomes the folder ``path`` (which must be
    absent or empty) only if the block succeeds, and is removed otherwise: a full disk or an error
    leaves nothing, not even an empty folder. A kill leaves a staging folder named as the writer's
    temporaries, which the next write into its parent removes.

    ``merge``: ``path`` may hold files already (an earlier run's report): once the block succeeds, what
    was staged is moved into it, each file by a rename that replaces the file of its name (never one of
    the command's inputs, nor anything but a regular file), each new folder whole."""
    import shutil

    given = Path(path)
    real, st = _output_target(given, folder=True)
    if st is not None and not merge and any(os.scandir(real)):
        raise InputError("the folder is not empty; give a new or empty folder", given)
    staging = None
    try:
        with _holding_interrupts():
            try:
                missing = _missing(real.parent)
                _recorded([("folder", made) for made in missing])
                _make_parents(real.parent, missing)
                _clean_stale(real.parent)
                while staging is None:
                    candidate = real.parent / _temporary_name(real.name)
                    with contextlib.suppress(FileExistsError):
                        candidate.mkdir()
                        staging = candidate
            except OSError as exc:
                raise InputError(f"cannot write: {exc.strerror or exc}", given) from None
        try:
            # What is written into the staging folder is recorded once it has its final names, below
            # (a kill before then leaves only the staging folder, a stale temporary).
            token = _RECORDER.set(None)
            try:
                yield staging
            finally:
                _RECORDER.reset(token)
            _recorded(
                [
                    ("folder", real),
                    *(
                        (kind, real / os.path.relpath(os.path.join(folder, name), staging))
                        for folder, folders, files in os.walk(staging)
                        for kind, names in (("folder", folders), ("file", files))
                        for name in names
                    ),
                ]
            )
            with _holding_interrupts():
                if real.is_dir() and any(os.scandir(real)):  # merge: what was staged goes in
                    _move_into(staging, real)
                    shutil.rmtree(staging)
                else:
                    if real.is_dir():
                        real.rmdir()  # empty: the staging folder takes its place
                    os.rename(staging, real)
                staging = None
                if str(real.parent) in _CLEAN:
                    _cleaned(real.parent)  # changed by this write only
        except OSError as exc:
            if exc.errno in _WRITE_ERRORS or exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise InputError(f"cannot write: {exc.strerror or exc}", given) from None
            raise
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _move_into(staging: Path, real: Path) -> None:
    """Move what ``staging`` holds into the folder ``real``: a folder absent there whole, a file onto
    the file of its name (checked as every output is)."""
    for folder, folders, files in os.walk(staging):
        target = real / os.path.relpath(folder, staging)
        for name in list(folders):
            if not os.path.lexists(target / name):
                os.rename(os.path.join(folder, name), target / name)
                folders.remove(name)  # moved whole: not walked
            elif not (target / name).is_dir() or (target / name).is_symlink():
                raise InputError("is not a folder: refusing to write into it", target / name)
        for name in files:
            destination, _ = _output_target(target / name)
            os.replace(os.path.join(folder, name), destination)


@contextlib.contextmanager
def scratch_folder(name: str = "scratch") -> Iterator[Path]:
    """A new, empty folder of the command's own for intermediate files (a bundle unpacked to be run, a
    list for a library that reads one by name), in the system's temporary folder, readable by this user
    only; removed with all it holds whatever ends the block. Named as the writer's temporaries, so that
    one left by a killed process is removed by the next scratch folder made there. What was read from it
    stops being one of the command's inputs when it goes (its files' numbers may be given to outputs)."""
    import shutil
    import tempfile

    parent = Path(tempfile.gettempdir()).absolute()
    folder = None
    try:
        with _holding_interrupts():
            try:
                _clean_stale(parent)
                while folder is None:
                    candidate = parent / _temporary_name(name)
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(candidate, 0o700)
                        folder = candidate
            except OSError as exc:
                raise InputError(f"cannot make a temporary folder: {exc.strerror or exc}", parent) from None
        yield folder
    finally:
        if folder is not None:
            with _holding_interrupts():
                shutil.rmtree(folder, ignore_errors=True)
            scope = _SCOPE.get()
            if scope is not None:
                scope.forget_under(folder)


def remove_outputs(folder: str | os.PathLike, files: Collection[str], folders: Collection[str] = ()) -> None:
    """Remove under ``folder`` the regular ``files``, then the ``folders`` left empty (paths relative,
    '/'-separated): what a command recorded as its own outputs (`recording_outputs`). Links, anything
    that is no regular file and folders that still hold something are left alone, and so is everything
    reached through a link: each folder on the way is opened without following links (``folder``
    itself may be one), so that a listed ``sub/file`` whose ``sub`` leads elsewhere removes nothing."""
    root = Path(folder)

    def inside(rel: str) -> bool:
        parts = rel.split("/")
        return bool(rel) and not os.path.isabs(rel) and ".." not in parts and "" not in parts and "." not in parts

    try:
        for rel in filter(inside, files):
            _remove_entry(root, rel, stat.S_ISREG, os.unlink)
        for rel in sorted(filter(inside, folders), key=lambda rel: rel.count("/"), reverse=True):
            with contextlib.suppress(OSError):  # gone already, or holding something
                _remove_entry(root, rel, stat.S_ISDIR, os.rmdir)
    except OSError as exc:
        raise InputError(f"cannot remove what an earlier run wrote: {exc.strerror or exc}", root) from None


_NO_FOLLOW_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | _CLOEXEC


def _remove_entry(root: Path, rel: str, kind: Callable[[int], bool], remove: Callable) -> None:
    """Remove ``root/rel`` with ``remove`` if it is of ``kind`` (its own mode, not a link's target) and
    every folder between ``root`` and it is a real folder, not a link."""
    *parents, name = rel.split("/")
    if not (os.supports_dir_fd >= {os.open, os.stat, os.unlink, os.rmdir} and getattr(os, "O_NOFOLLOW", 0)):
        for k in range(len(parents)):  # where folders cannot be opened without following links
            if not stat.S_ISDIR(os.lstat(root.joinpath(*parents[: k + 1])).st_mode):
                return
        with contextlib.suppress(FileNotFoundError):
            if kind(os.lstat(root / rel).st_mode):
                remove(root / rel)
        return
    try:
        fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return
    try:
        for part in parents:
            try:
                inner = os.open(part, _NO_FOLLOW_FOLDER, dir_fd=fd)
            except (FileNotFoundError, NotADirectoryError):
                return  # gone, or not a folder
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # a link: nothing through it is this command's
                    return
                raise
            os.close(fd)
            fd = inner
        try:
            if kind(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                remove(name, dir_fd=fd)
        except FileNotFoundError:
            return
    finally:
        os.close(fd)
