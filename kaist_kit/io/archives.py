"""Archives read whole and bounded (`read_archive`): a .zip or a tar (.tar, .tar.gz, .tgz), opened by
the opener (`read.open_input`), every regular entry by name. Refused: entries named outside the archive's
folder, two entries of one name, encrypted entries, and an archive that unpacks to more than
`read.InputLimits.unpacked_bound` allows, both as its entries declare it and as decompression produces it.
"""

from __future__ import annotations

import io
import os
from typing import BinaryIO

from ..errors import InputError
from .read import InputLimits, human_size, input_limits, open_input

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
