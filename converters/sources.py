"""Finding annotation files in a folder or an archive, and naming the frame each one describes."""

from __future__ import annotations

import os
import re
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from kaist_kit.errors import InputError

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")
_READ_SIZE = 1 << 16

# Where each format keeps the frame setXX/VYYY/IZZZZZ in a file's path (relative, '/'-separated).
FRAME_PATTERNS = {
    "original": re.compile(r"(?:^|/)(set\d\d)/(V\d\d\d)/(I\d{5})\.txt$"),
    "xml": re.compile(r"(?:^|/)(set\d\d)/(V\d\d\d)/(I\d{5})\.xml$"),
    "sanitized": re.compile(r"(?:^|/)(set\d\d)_(V\d\d\d)_(I\d{5})\.txt$"),
    "improved": re.compile(r"(?:^|/)(set\d\d)_(V\d\d\d)_(I\d{5})\.txt$"),
    "paired": re.compile(r"(?:^|/)(set\d\d)/(V\d\d\d)/(visible|lwir)/(I\d{5})\.txt$"),
}


@dataclass
class Source:
    """The files under a folder, or inside an archive, with a way to read each one."""

    root: Path
    files: list[str]  # relative paths, '/'-separated, sorted
    _members: dict[str, bytes] | None = None

    def display(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def read(self, rel: str) -> bytes:
        return self.read_all([rel])[0]

    def read_all(self, rels: list[str]) -> list[bytes]:
        """The bytes of each file; open/read/close system calls only, since trees hold 95k files."""
        if self._members is not None:
            return [self._members[rel] for rel in rels]
        prefix = f"{self.root}{os.sep}"
        out = []
        for rel in rels:
            try:
                fd = os.open(prefix + rel, os.O_RDONLY)
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror}", self.display(rel)) from None
            try:
                data = os.read(fd, _READ_SIZE)
                if len(data) == _READ_SIZE:  # rare: a large file needs more reads
                    chunks = [data]
                    while chunk := os.read(fd, _READ_SIZE):
                        chunks.append(chunk)
                    data = b"".join(chunks)
            finally:
                os.close(fd)
            out.append(data)
        return out

    def image_list(self, name: str) -> str | None:
        """The relative path of ``imageSets/NAME.txt`` inside this source, if it holds one."""
        for rel in self.files:
            if rel == f"imageSets/{name}.txt" or rel.endswith(f"/imageSets/{name}.txt"):
                return rel
        return None

    @property
    def search_dirs(self) -> list[Path]:
        """Folders where an imageSets/ list folder may sit: the source and its parents."""
        base = self.root if self._members is None else self.root.parent
        return [base, *list(base.parents)[:3]]


def open_source(path: str | os.PathLike) -> Source:
    path = Path(path)
    if not path.exists():
        raise InputError("no such file or folder", path)
    if path.is_dir():
        return Source(path, sorted(_walk(path)))
    if path.name.lower().endswith(ARCHIVE_SUFFIXES):
        members = _read_archive(path)
        return Source(path, sorted(members), members)
    raise InputError("expected a folder of annotation files or an archive (.zip, .tar, .tar.gz)", path)


def _walk(root: Path) -> list[str]:
    """Relative paths of all files below ``root``; os.scandir keeps this cheap on 95k files."""
    found = []
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        with os.scandir(os.path.join(root, rel_dir)) as entries:
            for entry in entries:
                rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
                if entry.is_dir(follow_symlinks=False):
                    stack.append(rel)
                elif entry.is_file():
                    found.append(rel)
    return found


def _read_archive(path: Path) -> dict[str, bytes]:
    try:
        if path.name.lower().endswith(".zip"):
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
