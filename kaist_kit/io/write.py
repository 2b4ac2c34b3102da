"""The one writer: every output is written here (`atomic_path`, `atomic_file`, `write_bytes_atomic`,
`write_text_atomic`, `write_json_atomic`, `atomic_folder`, `make_folder`; `check_writable` and
`check_outputs` check a place before the work).

The writer never writes onto one of the command's inputs (those the opener remembered, see
`read.input_scope`) nor onto anything but a regular file; it writes into an unnamed file (Linux's
O_TMPFILE) or, where there is none, a temporary ``.NAME.PID.XXXXXXXXXX.kaist-kit.tmp`` beside the target,
and only a complete file takes the target's name. Temporaries of processes that are gone are removed by
the next write into their folder (a folder that has not changed since it was last looked through is not
looked through again). A command's own intermediate files go in a `scratch_folder`, removed with the
block; `remove_outputs` removes what an earlier run recorded as its own (`recording_outputs`).
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
from collections.abc import Callable, Collection, Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import InputError
from .read import current_input_scope, file_kind

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
    scope = current_input_scope()
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
            scope = current_input_scope()
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
