"""The zoo's files on this machine: downloaded from their repositories at the pinned commits, or taken
from a local folder, each kept only once its git object id is the pinned one.

They are kept in the kit's data folder, beside the cached ground truth:
``<data>/zoo/OWNER/REPO/COMMIT/PATH``. A file there got there verified (written atomically after the
check), so reading it needs no second check; `fetch` checks again before it says a file is there.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..datasets.kaist_truth import default_gt_path
from ..errors import InputError
from ..io.download import DownloadFailed, Progress, download_bytes
from ..io.read import human_size, read_bytes, read_many
from ..io.write import atomic_folder, write_bytes_atomic
from .specs import FOLDER_FILE_LIMIT, RAW_BASE, UNKNOWN_SIZE_LIMIT, Entry, Pin, blob_id, tree_id

URL_ENV = "KAIST_KIT_ZOO_URL"  # a mirror serving OWNER/REPO/COMMIT/PATH as raw.githubusercontent.com does
FOLDER_WORKERS = 16  # the files of a pinned folder downloaded at once

Echo = Callable[[str], None]


class ZooUnavailable(InputError):
    """An entry's file is not on this machine and cannot be had as pinned; the message says why and what
    to do."""


def zoo_folder() -> Path:
    """Where the zoo's files are kept: ``zoo/`` in the kit's data folder."""
    return default_gt_path().parent / "zoo"


def base_url() -> str:
    return os.environ.get(URL_ENV) or RAW_BASE


def local_path(pin: Pin, root: Path | None = None) -> Path:
    """Where ``pin``'s file (or folder) is kept."""
    return (root or zoo_folder()) / pin.repo / pin.commit / pin.path


def is_kept(pin: Pin, root: Path | None = None) -> bool:
    path = local_path(pin, root)
    return path.is_dir() if pin.folder else path.is_file()


def object_id_of(path: Path) -> str | None:
    """The git object id of a kept file, or of a folder of regular files; None when it is neither."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return blob_id(read_bytes(path, note=False))
    if stat.S_ISDIR(mode):
        return _folder_id(path)
    return None


def _folder_id(folder: Path) -> str | None:
    names = sorted(os.listdir(folder))
    if not names or not all(stat.S_ISREG(os.lstat(folder / n).st_mode) for n in names):
        return None
    return tree_id(zip(names, map(blob_id, read_many([str(folder / n) for n in names]))))


@dataclass
class Fetched:
    """What `fetch` did with one entry's file."""

    entry: Entry
    path: Path
    how: str  # "kept" (there already), "downloaded", "copied" (from a local folder)


def fetch(
    entry: Entry,
    member_names: Callable[[], Sequence[str]] | None = None,
    *,
    root: Path | None = None,
    echo: Echo | None = None,
    progress: Progress | None = None,
) -> Fetched:
    """Have ``entry``'s file on this machine: kept already (checked), else downloaded from its repository
    at the pinned commit and kept once its object id is the pinned one. A folder's files are downloaded
    one by one, named by ``member_names()`` (the ground truth's frames); the folder is kept once its tree
    id is the pinned one. Announced by one line to ``echo`` once the source answers. Raises
    `ZooUnavailable` with what to do."""
    pin = entry.file
    target = local_path(pin, root)
    if is_kept(pin, root):
        if object_id_of(target) == pin.object_id:
            return Fetched(entry, target, "kept")
        if echo is not None:
            echo(f"{target} is not the pinned file of zoo:{entry.name}: replacing it")
    base = base_url()
    try:
        if pin.folder:
            if member_names is None:
                raise ValueError("a folder entry needs the names of its files")
            files = _download_folder(pin, list(member_names()), base, entry, echo, progress)
            with atomic_folder(target) as staging:
                for name, data in files.items():
                    (staging / name).write_bytes(data)
        else:
            data = _download_file(pin, base, entry, echo, progress)
            write_bytes_atomic(target, data)
    except DownloadFailed as exc:
        raise ZooUnavailable(f"cannot download zoo:{entry.name} ({exc}); {_ways(pin)}") from None
    return Fetched(entry, target, "downloaded")


def _ways(pin: Pin) -> str:
    return (
        f"try again with the network, set {URL_ENV} to a mirror of raw.githubusercontent.com, or put a copy of "
        f"{pin.where} (from a clone at that commit) in a folder and run `kaist-kit zoo fetch --from FOLDER`"
    )


def _announce(entry: Entry, url: str, size: int | None, echo: Echo | None) -> None:
    if echo is not None:
        size_text = f", {human_size(size)}" if size else ""
        echo(f"downloading zoo:{entry.name} ({entry.file.name}{size_text}) from {url}: licence {entry.licence}")


def _download_file(pin: Pin, base: str, entry: Entry, echo: Echo | None, progress: Progress | None) -> bytes:
    url = pin.url(base)

    def announce_then_report(done: int, total: int) -> None:
        if done == 0:
            _announce(entry, url, pin.size, echo)
        if progress is not None:
            progress(done, total)

    if pin.size is not None:
        data = download_bytes(url, pin.size, announce_then_report)
    else:
        data = download_bytes(url, UNKNOWN_SIZE_LIMIT, announce_then_report, exact=False)
    got = blob_id(data)
    if got != pin.object_id:
        raise DownloadFailed(
            f"{url} does not serve the pinned file: {len(data)} bytes with blob id {got}, expected "
            f"{pin.object_id}{f' ({pin.size} bytes)' if pin.size is not None else ''}"
        )
    return data


def _download_folder(
    pin: Pin, names: list[str], base: str, entry: Entry, echo: Echo | None, progress: Progress | None
) -> dict[str, bytes]:
    if len(names) != pin.files:
        raise DownloadFailed(
            f"{pin.url(base)}: the ground truth names {len(names)} files, the pinned folder holds {pin.files}"
        )
    _announce(entry, pin.url(base) + f"/ ({pin.files} files)", None, echo)
    done = 0

    def one(name: str) -> bytes:
        return download_bytes(pin.url(base, name), FOLDER_FILE_LIMIT, exact=False)

    files: dict[str, bytes] = {}
    from concurrent.futures import ThreadPoolExecutor  # with its logging, only when a folder is downloaded

    with ThreadPoolExecutor(FOLDER_WORKERS) as pool:
        for name, data in zip(names, pool.map(one, names)):
            files[name] = data
            done += 1
            if progress is not None:
                progress(done, len(names))
    got = tree_id((name, blob_id(data)) for name, data in files.items())
    if got != pin.object_id:
        raise DownloadFailed(
            f"{pin.url(base)}/ does not serve the pinned folder: tree id {got}, expected {pin.object_id}"
        )
    return files


def take_from(folder: str | os.PathLike, entries: Iterable[Entry], *, root: Path | None = None) -> list[Fetched]:
    """Keep every pinned file found under ``folder``, whatever its name or place: a file whose blob id is
    an entry's, a folder of files whose tree id is an entry's. Entries kept already are passed over."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError("is not a folder", folder)
    wanted = [e for e in entries if e.readable]
    files = {e.file.object_id: e for e in wanted if not e.file.folder and not is_kept(e.file, root)}
    trees = {e.file.object_id: e for e in wanted if e.file.folder and not is_kept(e.file, root)}
    sizes = {e.file.size for e in files.values()}
    any_size = None in sizes
    largest = max([UNKNOWN_SIZE_LIMIT if any_size else 0, *(s for s in sizes if s is not None)], default=0)
    counts = {e.file.files for e in trees.values()}
    taken: list[Fetched] = []
    for here, subfolders, names in os.walk(folder):
        subfolders[:] = sorted(s for s in subfolders if not s.startswith("."))
        here_path = Path(here)
        if trees and len(names) in counts and not subfolders:
            found = _folder_id(here_path)
            if found in trees:
                entry = trees.pop(found)
                members = sorted(os.listdir(here_path))
                contents = read_many([str(here_path / n) for n in members])
                with atomic_folder(local_path(entry.file, root)) as staging:
                    for name, data in zip(members, contents):
                        (staging / name).write_bytes(data)
                taken.append(Fetched(entry, local_path(entry.file, root), "copied"))
        for name in sorted(names):
            if not files:
                break
            path = here_path / name
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode) or st.st_size > largest or (not any_size and st.st_size not in sizes):
                continue
            data = read_bytes(path, note=False)
            found = blob_id(data)
            if found in files:
                entry = files.pop(found)
                write_bytes_atomic(local_path(entry.file, root), data)
                taken.append(Fetched(entry, local_path(entry.file, root), "copied"))
    return taken
