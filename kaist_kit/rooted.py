"""Paths that a file's content names, kept inside the folder they are relative to.

An annotation names its pictures, a config its annotation files, a ground truth its frames: text the kit
did not write. Such a path is read only where it lies inside its root once resolved: not absolute, no
``..`` that climbs out, and no link on the way that leads out (the root itself may be a link: it is
resolved first). Anything else is refused, in one line naming the file that gave the path.

Resolving a path costs a system call per folder on its way; `Root` remembers each folder's resolution,
so that the 190,000 pictures of KAIST's tree cost one ``lstat`` each.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import InputError


class Root:
    """A folder that paths from files' contents must stay in."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.real = os.path.realpath(folder)
        self._folders: dict[str, bool] = {}  # a folder's path as joined -> whether it resolves inside

    def problem(self, rel: object) -> str | None:
        """Why ``rel`` cannot be read under the root (one phrase), or None when it lies inside it."""
        if not isinstance(rel, str) or not rel:
            return "is not a path"
        if "\x00" in rel:
            return "holds a NUL character"
        if rel.startswith(("/", "\\")) or rel[1:2] == ":":
            return f"is an absolute path, not one under {self.folder}"
        joined = os.path.normpath(os.path.join(self.folder, rel))
        base = os.path.normpath(self.folder)
        if not _under(joined, base):
            return f"climbs out of {self.folder} ('..')"
        folder, name = os.path.split(joined)
        inside = self._folders.get(folder)
        if inside is None:
            inside = self._folders[folder] = _under(os.path.realpath(folder), self.real)
        if not inside or (os.path.islink(joined) and not _under(os.path.realpath(joined), self.real)):
            return f"leads out of {self.folder} through a link"
        return None

    def join(self, rel: str, source: str | os.PathLike | None = None, what: str = "path") -> Path:
        """``rel`` under the root; an `InputError` naming ``source`` (the file that gave it) otherwise."""
        problem = self.problem(rel)
        if problem is not None:
            raise outside(rel, problem, source, what)
        return self.folder / rel


def outside(rel: object, problem: str, source, what: str = "path") -> InputError:
    """The refusal of a path from ``source``'s content (``problem``: `Root.problem`'s phrase)."""
    return InputError(f"the {what} {repr(rel)[:120]} {problem}: refused, nothing outside it is read", source)


def inside(root: str | os.PathLike, rel: str, source: str | os.PathLike | None = None, what: str = "path") -> Path:
    """``rel`` under ``root`` if it stays there once resolved (see the module), else an `InputError`."""
    return Root(root).join(rel, source, what)


def existing_folder(path: str | os.PathLike) -> Path:
    """``path`` if it is a folder (a link to one included); an `InputError` naming it otherwise: a
    missing path or a FIFO given as a folder of pictures is said, never passed over."""
    from .files import file_kind

    try:
        mode = os.stat(path).st_mode
    except OSError:
        raise InputError("no such folder" if not os.path.lexists(path) else "a link that leads nowhere", path) from None
    if not stat.S_ISDIR(mode):
        raise InputError(f"is {'a file' if stat.S_ISREG(mode) else file_kind(mode)}, not a folder", path)
    return Path(path)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
