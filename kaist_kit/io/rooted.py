"""Paths that a file's content names, kept inside the folder they are relative to.

An annotation names its pictures, a config its annotation files, a ground truth its frames: text the kit
did not write. Such a path is read only where it lies inside its root once resolved: not absolute, no
``..`` that climbs out, and no link on the way that leads out (the root itself may be a link: it is
resolved first). Anything else is refused, in one line naming the file that gave the path.

`Root` resolves each folder once and lists the links it holds once, so that the 95,000 pictures of
KAIST's tree cost a few hundred folder listings, not a system call each.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import InputError


class Root:
    """A folder that paths from files' contents must stay in."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self._base = os.path.normpath(self.folder)
        self._prefix = str(self.folder).rstrip(os.sep) + os.sep
        self.real = os.path.realpath(folder)
        # A folder's path as joined -> whether it resolves inside the root, and the names of the links
        # it holds (listed once: a link among a folder's files costs no call of its own).
        self._folders: dict[str, tuple[bool, frozenset[str]]] = {}

    def problem(self, rel: object) -> str | None:
        """Why ``rel`` cannot be read under the root (one phrase), or None when it lies inside it."""
        return self.checked(rel)[0]

    def checked(self, rel: object) -> tuple[str | None, str]:
        """(`problem`, the path ``rel`` names under the root as the folder and ``rel`` joined)."""
        if not isinstance(rel, str) or not rel:
            return "is not a path", ""
        if "\x00" in rel:
            return "holds a NUL character", ""
        if rel.startswith(("/", "\\")) or rel[1:2] == ":":
            return f"is an absolute path, not one under {self.folder}", ""
        given = self._prefix + rel
        joined = given
        if ".." in rel.split("/"):
            joined = os.path.normpath(given)
            if not _under(joined, self._base):
                return f"climbs out of {self.folder} ('..')", given
        cut = max(joined.rfind("/"), joined.rfind(os.sep))
        folder, name = joined[:cut], joined[cut + 1 :]
        known = self._folders.get(folder)
        if known is None:
            known = self._folders[folder] = self._look_at(folder)
        inside, links = known
        if not inside or (name in links and not _under(os.path.realpath(joined), self.real)):
            return f"leads out of {self.folder} through a link", given
        return None, given

    def _look_at(self, folder: str) -> tuple[bool, frozenset[str]]:
        if not _under(os.path.realpath(folder), self.real):
            return False, frozenset()
        try:
            with os.scandir(folder) as entries:
                return True, frozenset(entry.name for entry in entries if entry.is_symlink())
        except OSError:  # not there (yet): nothing in it leads anywhere
            return True, frozenset()

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
    from .read import file_kind

    try:
        mode = os.stat(path).st_mode
    except OSError:
        raise InputError("no such folder" if not os.path.lexists(path) else "a link that leads nowhere", path) from None
    if not stat.S_ISDIR(mode):
        raise InputError(f"is {'a file' if stat.S_ISREG(mode) else file_kind(mode)}, not a folder", path)
    return Path(path)


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
