"""Reading user files with precise error locations, and writing files atomically."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import InputError


def read_text(path: str | os.PathLike) -> str:
    """The file's text; a missing, unreadable or non-UTF-8 file is an `InputError`."""
    return decode_text(read_bytes(path), path)


def read_bytes(path: str | os.PathLike) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a folder, expected a file", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path) from None


def decode_text(data: bytes, path: str | os.PathLike) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text (is this a binary file?)", path, line) from None


def is_number(token: str) -> bool:
    """Whether a field of a text file reads as a number (what float() accepts)."""
    try:
        float(token)
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
        stopped = bool(re.fullmatch(r"[\w.+-]*", text[exc.pos:].rstrip())) or exc.msg.startswith("Unterminated string")
        what = "truncated JSON" if stopped else f"invalid JSON: {exc.msg}"
        raise InputError(what, path, exc.lineno) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path) from None


def load_json(path: str | os.PathLike) -> Any:
    return parse_json(read_text(path), path)


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


ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")


def is_archive(path: str | os.PathLike) -> bool:
    return str(path).lower().endswith(ARCHIVE_SUFFIXES)


def read_archive(path: str | os.PathLike) -> dict[str, bytes]:
    """Every regular file of a .zip or tar archive (.tar, .tar.gz, .tgz), by member name, in the
    archive's order; an unreadable archive is an `InputError`, and so is one with a member that
    would be extracted outside its folder (an absolute name or a ``..`` step)."""
    import tarfile
    import zipfile

    try:
        if str(path).lower().endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if not n.endswith("/")]
                _check_member_names(names, path)
                encrypted = [i.filename for i in archive.infolist() if i.flag_bits & 0x1]
                if encrypted:
                    raise InputError(f"the archive's entries are encrypted ({encrypted[0]}); results are read "
                                     "from archives without a password", path)
                return {n: archive.read(n) for n in names}
        members = {}
        with tarfile.open(path) as archive:
            for member in archive:
                if member.isfile():
                    _check_member_names([member.name], path)
                    handle = archive.extractfile(member)
                    members[member.name] = handle.read() if handle else b""
        return members
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, RuntimeError, NotImplementedError,
            ValueError) as exc:
        # zipfile raises RuntimeError and NotImplementedError for entries it cannot decrypt or
        # decompress, ValueError for some malformed headers.
        raise InputError(f"cannot read the archive: {exc}", path) from None


def _check_member_names(names: list[str], path: str | os.PathLike) -> None:
    for name in names:
        parts = name.replace("\\", "/").split("/")
        if name.startswith(("/", "\\")) or ".." in parts or (parts[0][1:2] == ":"):
            raise InputError(f"the archive's entry {name[:80]!r} lies outside the archive's folder ('..' or an "
                             "absolute name), which no extraction may write: refused", path)


def check_writable(path: str | os.PathLike, folder: bool = False) -> Path:
    """``path`` if a file (``folder=True``: a folder) can be written there; else an `InputError`.

    Cheap, so that a command checks its output before the work: the place must not be a folder
    (for a file) or a file (for a folder), and its nearest existing parent must be a folder in which
    a file can be created: tried with an empty file named as `atomic_path` names its temporary file
    (so that a name too long fails here too), removed at once. Read-only folders and /proc fail.
    """
    target = Path(path)
    what = "folder" if folder else "file"
    try:
        if target.is_dir() and not folder:
            raise InputError("is a folder; give a file name to write", target)
        if target.exists() and not target.is_dir() and folder:
            raise InputError("is a file; give a folder to write into", target)
        parent = target if folder and target.is_dir() else target.parent
        while not parent.exists() and parent != parent.parent:  # folders atomic_path will create
            parent = parent.parent
        if not parent.is_dir():
            raise InputError(f"cannot write the {what}: {parent} is not a folder", target)
        prefix = ".kaist-kit-probe." if folder else f".{target.name}."
        fd, probe = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"cannot write the {what} there: {exc.strerror or exc}", target) from None
    return target


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; it replaces ``path`` only if the block succeeds.

    The temporary file is removed whatever ends the block, an interrupt included: SIGINT and SIGTERM
    are held back while it is created, so that none can arrive before it is known here. A place that
    cannot be written is an `InputError` naming ``path``."""
    target = Path(path)
    mask = getattr(signal, "pthread_sigmask", None)
    held = mask(signal.SIG_BLOCK, _INTERRUPTS) if mask else None
    tmp_path = None
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", target) from None
        tmp_path = Path(tmp)
        os.close(fd)
        if held is not None:
            mask(signal.SIG_SETMASK, held)
            held = None
        yield tmp_path
        os.chmod(tmp_path, 0o644)
        try:
            os.replace(tmp_path, target)
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", target) from None
    finally:
        if held is not None:
            mask(signal.SIG_SETMASK, held)
        if tmp_path is not None and tmp_path.exists():
            tmp_path.unlink()


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(path: str | os.PathLike, obj: Any, indent: int | None = None) -> None:
    separators = (",", ":") if indent is None else None
    write_text_atomic(path, json.dumps(obj, indent=indent, separators=separators) + "\n")
