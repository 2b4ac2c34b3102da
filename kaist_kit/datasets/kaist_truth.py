"""KAIST's ground truth by default: the leaderboard's test-all-20, pinned by size and MD5, fetched
on first use into the kit's cache (or named by $KAIST_KIT_GT), and the cache checked on every use.
The model and its reader are `kaist_kit.data.groundtruth`'s."""

from __future__ import annotations

import hashlib
import os
import typing
from pathlib import Path

from ..data.groundtruth import GroundTruth, ground_truth_from_bytes
from ..errors import InputError
from ..io.download import DownloadFailed, Progress, download_verified
from ..io.read import read_bytes
from ..io.write import write_bytes_atomic
from .kaist import KAIST

# The leaderboard's test-all-20 ground truth, identified by content as the leaderboard does: the
# KAIST spec's pinned file (published with the evaluation script of the MLPD repository, at a fixed
# commit). A mirror named by $KAIST_KIT_GT_URL must serve the same bytes: the checksum stays the pinned one.
_PINNED = KAIST.ground_truth
LEADERBOARD_GT_MD5 = _PINNED.md5
LEADERBOARD_GT_BYTES = _PINNED.size
GT_ENV = _PINNED.env
GT_FILENAME = _PINNED.filename
GT_URL = _PINNED.url
GT_URL_ENV = _PINNED.url_env
GT_ATTRIBUTION = _PINNED.attribution

Echo = typing.Callable[[str], None]  # typing's: the core runs on Python 3.7 too (docs/hosting.md)


class GroundTruthUnavailable(InputError):
    """The leaderboard's ground truth is not on this machine and cannot be had: offline, downloads
    forbidden, a source that does not serve the pinned file, or a cache that cannot be written.
    ``why`` says which; the message adds the other ways the verbs that score take the file."""

    def __init__(self, why: str):
        self.why = why
        super().__init__(f"{why}; pass --gt FILE, set {GT_ENV}=FILE, or place the file at {default_gt_path()}")

    def for_fetch(self, target: str | os.PathLike) -> InputError:
        """The same failure as `fetch` says it, which has no --gt: the ways to have the file there."""
        return InputError(
            f"{self.why}; try again with the network, set {GT_URL_ENV}=URL to a mirror serving the "
            f"same file, or copy the file to {target}"
        )


def default_gt_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "kaist-kit" / GT_FILENAME


def gt_url() -> str:
    return os.environ.get(GT_URL_ENV) or GT_URL


def find_gt(
    path: str | os.PathLike | None = None, *, echo: Echo | None = None, progress: Progress | None = None
) -> Path:
    """The ground-truth file to use: the given path, else `default_ground_truth`."""
    if path:
        return Path(path)
    return default_ground_truth(echo=echo, progress=progress)


def default_ground_truth(*, echo: Echo | None = None, progress: Progress | None = None) -> Path:
    """$KAIST_KIT_GT, else the leaderboard's ground truth in the cache, downloaded there on first use.

    A download is announced by one line to ``echo`` (what, from where, under which licence) and
    followed by ``progress(done, total)`` in bytes; see `fetch_gt`.
    """
    if os.environ.get(GT_ENV):
        return Path(os.environ[GT_ENV])
    cached = default_gt_path()
    if cached.is_file():
        return cached
    return fetch_gt(echo=echo, progress=progress)


def fetch_gt(
    to: str | os.PathLike | None = None, *, echo: Echo | None = None, progress: Progress | None = None
) -> Path:
    """Download the leaderboard's ground truth into the folder ``to`` (default: the cache of
    `default_gt_path`) unless the pinned file is there already, and return its path.

    The file is kept only once its size and MD5 are the pinned ones, and written atomically; on any
    failure nothing is written and `GroundTruthUnavailable` says why and how else to provide it.
    """
    target = default_gt_path() if to is None else Path(to) / GT_FILENAME
    if target.is_file():
        if _md5_of(target) == LEADERBOARD_GT_MD5:
            return target
        if echo is not None:
            echo(f"{target} is not the leaderboard's ground truth: replacing it")
    url = gt_url()

    def announce_then_report(done: int, total: int) -> None:
        # Announced once the source answers, so that without network the error is the only line.
        if done == 0 and echo is not None:
            echo(
                f"downloading the leaderboard's ground truth ({total / 1e6:.1f} MB) from {url} to {target}: "
                f"{GT_ATTRIBUTION}"
            )
        if progress is not None:
            progress(done, total)

    try:
        data = download_verified(url, LEADERBOARD_GT_BYTES, LEADERBOARD_GT_MD5, announce_then_report)
    except DownloadFailed as exc:
        raise GroundTruthUnavailable(f"cannot download the leaderboard's ground truth ({exc})") from None
    try:
        write_bytes_atomic(target, data)
    except InputError as exc:  # the writer's: the cache cannot be written
        raise GroundTruthUnavailable(f"cannot save the leaderboard's ground truth to {target} ({exc.reason})") from None
    return target


def _md5_of(path: Path) -> str | None:
    try:
        # Not an input of the command: fetch replaces it.
        return hashlib.md5(read_bytes(path, note=False)).hexdigest()
    except InputError:
        return None


def is_cached_gt(path: str | os.PathLike) -> bool:
    """Whether ``path`` is the cache of the leaderboard's ground truth (`default_gt_path`)."""
    return os.path.realpath(path) == os.path.realpath(default_gt_path())


def check_cached_gt(path: str | os.PathLike, data: bytes) -> None:
    """The cache must hold the pinned file, on every use: a changed or damaged cache is an
    `InputError` naming it and `kaist-kit fetch`, which downloads it again."""
    if len(data) == LEADERBOARD_GT_BYTES and hashlib.md5(data).hexdigest() == LEADERBOARD_GT_MD5:
        return
    md5 = hashlib.md5(data).hexdigest()
    raise InputError(
        f"the cached ground truth is not the leaderboard's ({len(data)} bytes, MD5 {md5}; expected "
        f"{LEADERBOARD_GT_BYTES} bytes, MD5 {LEADERBOARD_GT_MD5}): it was changed or damaged; run "
        "`kaist-kit fetch` to download it again",
        path,
    )


def load_ground_truth(
    path: str | os.PathLike | None = None, *, echo: Echo | None = None, progress: Progress | None = None
) -> GroundTruth:
    """The KAIST ground truth in ``path``; without one, the default (`default_ground_truth`:
    $KAIST_KIT_GT, else the leaderboard's, downloaded on first use, which ``echo`` and ``progress``
    report). The cache is checked against the pinned file on every use."""
    if path is None:
        path = default_ground_truth(echo=echo, progress=progress)
    raw = read_bytes(path)
    if is_cached_gt(path):
        check_cached_gt(path, raw)
    return ground_truth_from_bytes(raw, path)
