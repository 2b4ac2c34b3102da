"""Finding annotation files in a folder or an archive, and naming the frame each one describes."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kaist_kit.errors import InputError
from kaist_kit.io.archives import is_archive, read_archive
from kaist_kit.io.read import file_kind, read_many
from kaist_kit.io.rooted import Root

from .problems import Problems


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
        """The bytes of each file, read through the kit's opener (regular files only, bounded sizes):
        trees hold 95k small files, read in batches (see `kaist_kit.io.read.read_many`)."""
        if self._members is not None:
            return [self._members[rel] for rel in rels]
        prefix = f"{self.root}{os.sep}"
        return read_many([prefix + rel for rel in rels], lambda k: self.display(rels[k]))

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

    A link to a file is a file, if it stays in ``root`` (`kaist_kit.io.rooted`; else it is skipped, noted
    as an "outside link", which --strict fails on). Links to folders are not followed (a link to a parent would make the
    walk endless), and links that lead nowhere (to themselves, or to nothing) are skipped; both are
    noted in ``links``. Anything else that is no regular file (a FIFO, a device, a socket), or a
    link to one, is an `InputError`: the kit reads regular files only."""
    names, folders, odd, special = [], [], [], []
    try:
        entries = os.scandir(os.path.join(root, rel_dir))
    except OSError as exc:
        raise InputError(f"cannot list the folder: {exc.strerror}", os.path.join(root, rel_dir)) from None
    with entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(f"{rel_dir}/{entry.name}" if rel_dir else entry.name)
            elif entry.is_file(follow_symlinks=False):
                names.append(entry.name)
            else:
                mode = _mode(entry)
                if mode is not None and stat.S_ISREG(mode):
                    if Root(root).problem(f"{rel_dir}/{entry.name}" if rel_dir else entry.name) is None:
                        names.append(entry.name)
                    else:  # a link to a file outside the source: not the source's
                        odd.append((entry.path, "outside"))
                elif mode is None or stat.S_ISDIR(mode):
                    odd.append((entry.path, "folder" if mode is not None else "broken"))
                else:
                    special.append((entry.path, entry.is_symlink(), mode))
    if special:  # the first by name, whatever order the folder lists them in
        path, link, mode = min(special)
        raise InputError(
            f"{'leads to' if link else 'is'} {file_kind(mode)}, not a regular file: the kit reads only regular files",
            path,
        )
    for path, kind in sorted(odd) if links is not None else ():
        links.add(f"{kind} link", _LINKS[kind], path)
    if names:
        yield rel_dir, sorted(names)
    for folder in sorted(folders):
        yield from walk_folders(root, folder, links)


_LINKS = {
    "folder": "a link to a folder, not followed",
    "broken": "a link that leads nowhere (to itself, or to nothing), skipped",
    "outside": "a link to a file outside the source's folder, not read",
}


def _mode(entry: os.DirEntry) -> int | None:
    """What an entry is, following links; None for a link that leads nowhere (or to itself)."""
    try:
        return entry.stat().st_mode
    except OSError:
        return None


def text_of(data: bytes) -> str:
    """A text file's text: UTF-8 (with or without a byte-order mark), else Latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
