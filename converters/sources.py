"""Finding annotation files in a folder or an archive, and naming the frame each one describes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

from kaist_kit.errors import InputError
from kaist_kit.files import is_archive, read_archive

from .problems import Problems

_READ_SIZE = 1 << 16
_BATCH = 256  # files open at once while reading

@dataclass
class Source:
    """The files under a folder, or inside an archive, with a way to read each one."""

    root: Path
    _folders: list[tuple[str, list[str]]] | None = None  # listed when first needed, for a folder
    _members: dict[str, bytes] | None = None
    links: Problems = field(default_factory=Problems)  # links found while listing, which lead to no file

    @property
    def is_folder(self) -> bool:
        return self._members is None

    @property
    def folders(self) -> list[tuple[str, list[str]]]:
        """(relative folder, '/'-separated; its sorted file names) of every folder with files, sorted."""
        if self._folders is None:
            self._folders = sorted(walk_folders(self.root, links=self.links))
        return self._folders

    @property
    def files(self) -> list[str]:
        """Relative paths of all files, sorted."""
        return [f"{folder}/{name}" if folder else name for folder, names in self.folders for name in names]

    def display(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def read(self, rel: str) -> bytes:
        return self.read_all([rel])[0]

    def read_all(self, rels: list[str]) -> list[bytes]:
        """The bytes of each file. Trees hold 95k small files, so the open/read/close calls are
        mapped over batches of files (loops in C), and only a file filling the first read is read on."""
        if self._members is not None:
            return [self._members[rel] for rel in rels]
        prefix = f"{self.root}{os.sep}"
        out: list[bytes] = []
        for start in range(0, len(rels), _BATCH):
            paths = [prefix + rel for rel in rels[start:start + _BATCH]]
            fds: list[int] = []
            try:
                try:
                    fds.extend(map(os.open, paths, repeat(os.O_RDONLY)))
                except OSError as exc:
                    bad = rels[start + len(fds)]
                    raise InputError(f"cannot read: {exc.strerror}", self.display(bad)) from None
                batch = list(map(os.read, fds, repeat(_READ_SIZE)))
                for k in (k for k, data in enumerate(batch) if len(data) == _READ_SIZE):
                    batch[k] = b"".join([batch[k], *iter(lambda fd=fds[k]: os.read(fd, _READ_SIZE), b"")])
            finally:
                for fd in fds:
                    os.close(fd)
            out += batch
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
        raise InputError("a link that leads nowhere" if path.is_symlink() else "no such file or folder", path)
    if path.is_dir():
        return Source(path)
    if is_archive(path):
        members = read_archive(path)
        by_folder: dict[str, list[str]] = {}
        for rel in members:
            folder, _, name = rel.rpartition("/")
            by_folder.setdefault(folder, []).append(name)
        return Source(path, sorted((folder, sorted(names)) for folder, names in by_folder.items()), members)
    raise InputError("expected a folder of annotation files or an archive (.zip, .tar, .tar.gz)", path)


def walk_folders(root: Path, rel_dir: str = "", links: Problems | None = None) -> Iterator[tuple[str, list[str]]]:
    """(folder, sorted file names) of every folder below ``root`` that holds files, depth first with
    folders in name order, as soon as each is listed; os.scandir keeps this cheap on 95k files.

    A link to a file is a file. Links to folders are not followed (a link to a parent would make the
    walk endless), and links that lead nowhere (to themselves, or to nothing) are skipped; both are
    noted in ``links``."""
    names, folders, odd = [], [], []
    try:
        entries = os.scandir(os.path.join(root, rel_dir))
    except OSError as exc:
        raise InputError(f"cannot list the folder: {exc.strerror}", os.path.join(root, rel_dir)) from None
    with entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(f"{rel_dir}/{entry.name}" if rel_dir else entry.name)
            elif not entry.is_symlink():
                if entry.is_file(follow_symlinks=False):
                    names.append(entry.name)
            elif _is_file(entry):
                names.append(entry.name)
            else:
                odd.append((entry.path, _is_folder(entry)))
    for path, folder in sorted(odd) if links is not None else ():
        links.add("folder link" if folder else "broken link", "a link to a folder, not followed" if folder
                  else "a link that leads nowhere (to itself, or to nothing), skipped", path)
    if names:
        yield rel_dir, sorted(names)
    for folder in sorted(folders):
        yield from walk_folders(root, folder, links)


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:  # a loop of links
        return False


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def text_of(data: bytes) -> str:
    """A text file's text: UTF-8 (with or without a byte-order mark), else Latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
