"""A benchmark's public ground truth: found in the cache, or downloaded there, pinned by size and MD5.

The same rules as KAIST's leaderboard ground truth (`kaist_kit.datasets.kaist_truth.fetch_gt`), for any
`kaist_kit.datasets.PinnedFile`: a download is announced in one line (what, from where, under which
licence), read whole, kept only if its size and MD5 are the pinned ones and written atomically; a
cached file is used only if it still is the pinned file. $KAIST_KIT_OFFLINE forbids downloads.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from ..errors import InputError
from ..io.download import DownloadFailed, Progress, download_verified
from ..io.read import read_bytes
from ..io.write import atomic_path
from .registry import get_benchmark
from .spec import Benchmark, PinnedFile

Echo = Callable[[str], None]


class PinnedUnavailable(InputError):
    """A benchmark's ground truth is not on this machine and cannot be had; the message says why and
    the other ways to provide it."""


def cache_folder() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "kaist-kit"


def pinned_file(benchmark: Benchmark | str) -> PinnedFile:
    bench = get_benchmark(benchmark)
    if bench.ground_truth is None:
        raise PinnedUnavailable(
            f"{bench.title}'s ground truth is in no public file the kit can fetch: "
            f"download the dataset ({bench.download}) and pass its annotations with --gt "
            "(the dataset's folder, or a COCO conversion)"
        )
    return bench.ground_truth


def is_pinned(path: str | os.PathLike, pinned: PinnedFile) -> bool:
    """Whether ``path`` holds exactly the pinned bytes."""
    try:
        data = read_bytes(path)
    except InputError:
        return False
    return len(data) == pinned.size and hashlib.md5(data).hexdigest() == pinned.md5


def find_pinned(
    benchmark: Benchmark | str,
    to: str | os.PathLike | None = None,
    *,
    echo: Echo | None = None,
    progress: Progress | None = None,
) -> Path:
    """The benchmark's pinned ground truth: the file its variable names, else the cached copy in ``to``
    (default `cache_folder`), downloaded there first when it is missing or not the pinned file."""
    pinned = pinned_file(benchmark)
    if pinned.env and os.environ.get(pinned.env):
        return Path(os.environ[pinned.env])
    target = (cache_folder() if to is None else Path(to)) / pinned.filename
    if target.is_file():
        if is_pinned(target, pinned):
            return target
        if echo is not None:
            echo(f"{target} is not the pinned {pinned.filename}: replacing it")
    url = (os.environ.get(pinned.url_env) if pinned.url_env else None) or pinned.url

    def announce_then_report(done: int, total: int) -> None:
        if done == 0 and echo is not None:  # once the source answers: without network the error is the only line
            echo(f"downloading {pinned.filename} ({total / 1e6:.1f} MB) from {url} to {target}: {pinned.attribution}")
        if progress is not None:
            progress(done, total)

    others = (
        "the scoring verbs take the file with --gt"
        + (f", set {pinned.env}=FILE" if pinned.env else "")
        + f", or place it at {target}"
    )
    try:
        data = download_verified(url, pinned.size, pinned.md5, announce_then_report)
    except DownloadFailed as exc:
        raise PinnedUnavailable(f"cannot download {pinned.filename} ({exc}); {others}") from None
    try:
        with atomic_path(target) as tmp:
            tmp.write_bytes(data)
    except InputError as exc:
        raise PinnedUnavailable(f"cannot save {pinned.filename} to {target} ({exc.reason}); {others}") from None
    return target
