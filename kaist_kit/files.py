"""Reading user files with precise error locations, and writing files atomically."""

from __future__ import annotations

import contextlib
import json
import os
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
        # An error on the last line means the document stopped early: say so, it is the usual cause.
        last_line = text.rstrip().count("\n") + 1
        what = "truncated JSON" if exc.lineno >= last_line else f"invalid JSON: {exc.msg}"
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
    archive's order; an unreadable archive is an `InputError`."""
    import tarfile
    import zipfile

    try:
        if str(path).lower().endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                return {n: archive.read(n) for n in archive.namelist() if not n.endswith("/")}
        members = {}
        with tarfile.open(path) as archive:
            for member in archive:
                if member.isfile():
                    handle = archive.extractfile(member)
                    members[member.name] = handle.read() if handle else b""
        return members
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        raise InputError(f"cannot read the archive: {exc}", path) from None


def check_output_file(path: str | os.PathLike) -> Path:
    """Fail before any work is done where ``path`` cannot become a file written by `atomic_path`: an
    existing folder, a file inside a file, a name too long, a folder where no file can be created
    (read-only, or under /proc). An `InputError` names the path."""
    target = Path(path)
    try:
        if target.is_dir():
            raise InputError("is a folder; name the file to write", target)
        folder = target.parent
        while not folder.exists():  # folders atomic_path will create
            folder = folder.parent
        if not folder.is_dir():
            raise InputError(f"cannot write here: {folder} is a file, not a folder", target)
    except OSError as exc:
        raise InputError(f"cannot write here: {exc.strerror or exc}", target) from None
    try:
        # Create and remove a file named as atomic_path names its temporary file: the only sure test.
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"cannot create a file in {folder}: {exc.strerror or exc}", target) from None
    return target


_INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; it replaces ``path`` only if the block succeeds.

    The temporary file is removed whatever ends the block, an interrupt included: SIGINT and SIGTERM
    are held back while it is created, so that none can arrive before it is known here."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mask = getattr(signal, "pthread_sigmask", None)
    held = mask(signal.SIG_BLOCK, _INTERRUPTS) if mask else None
    tmp_path = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        tmp_path = Path(tmp)
        os.close(fd)
        if held is not None:
            mask(signal.SIG_SETMASK, held)
            held = None
        yield tmp_path
        os.chmod(tmp_path, 0o644)
        os.replace(tmp_path, target)
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
