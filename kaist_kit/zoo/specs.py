"""What a zoo entry is: a published result file pinned in its repository, how the kit reads it, and the
numbers it gives and that its authors quote.

A file is pinned by its repository, a commit and its path there, and by its git object id: a blob's
(``sha1(b"blob <length>\\0" + content)``) for a file, a tree's for a folder. That id is what the
repository's own listing (``git ls-tree``) gives, so a file can be pinned even where only the listing is
at hand, and any copy of it can be recognised whatever its name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

SPLITS = ("all", "day", "night")
PROTOCOLS = ("leaderboard", "matlab")
RAW_BASE = "https://raw.githubusercontent.com"
# A file whose size the listing at hand did not give is read up to this many bytes.
UNKNOWN_SIZE_LIMIT = 64 << 20
# Each file of a pinned folder (the devkit's per-image files are a few hundred bytes) is read up to this.
FOLDER_FILE_LIMIT = 1 << 20


def blob_id(data: bytes) -> str:
    """The git object id of a file holding ``data``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def tree_id(files: Iterable[tuple[str, str]]) -> str:
    """The git object id of a folder of regular files (mode 100644), given as (name, blob id) pairs."""
    body = b"".join(
        b"100644 " + name.encode() + b"\0" + bytes.fromhex(blob) for name, blob in sorted(files, key=lambda f: f[0])
    )
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest()


@dataclass(frozen=True)
class Pin:
    """A file (or a folder of files) of a public repository at a commit."""

    repo: str  # "owner/name" on GitHub
    commit: str  # the 40 hex digits
    path: str  # in the repository
    object_id: str  # git's id of the file's blob, or of the folder's tree
    size: int | None = None  # bytes, as the listing gives them; None: not known (the file is read up to a limit)
    files: int = 0  # a folder: how many files it holds (0: a file)

    @property
    def folder(self) -> bool:
        return self.files > 0

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def where(self) -> str:
        """'owner/name@1234567 path'."""
        return f"{self.repo}@{self.commit[:7]} {self.path}"

    @property
    def page(self) -> str:
        """The file or folder on GitHub at the pinned commit."""
        kind = "tree" if self.folder else "blob"
        return f"https://github.com/{self.repo}/{kind}/{self.commit}/{self.path}"

    def url(self, base: str = RAW_BASE, member: str = "") -> str:
        """Where the file (a folder's ``member``) is served: ``base/owner/name/commit/path``."""
        from urllib.parse import quote

        path = f"{self.path}/{member}" if member else self.path
        return f"{base.rstrip('/')}/{self.repo}/{self.commit}/{quote(path)}"


@dataclass(frozen=True)
class Reading:
    """How the kit reads an entry's file: a `ReadOptions` of the kit's readers, and the quirks no
    option of theirs covers.

    ``format``, ``devkit_shift``: as `ReadOptions` takes them. ``period``: the file holds the images of
    one period alone ("day" or "night"), its ids counted from 1 within that period, as the devkit's
    ``det-test-night.txt`` files are: read as the leaderboard's txt with the ids moved by the images
    that come before that period in the ground truth. ``frame_ids``: COCO result JSON whose image_id
    is the frame's name (``"set06/V000/I00019"``) instead of the ground truth's id.
    """

    format: str
    devkit_shift: bool = True
    period: str = ""
    frame_ids: bool = False

    @property
    def covers(self) -> tuple[str, ...]:
        """The splits the file can be scored on."""
        return (self.period,) if self.period else SPLITS


@dataclass(frozen=True)
class Quote:
    """Numbers a paper or a README prints for the method, reasonable all / day / night (%)."""

    numbers: tuple[float | None, float | None, float | None]
    source: str  # where: "README of owner/name@1234567"
    said: str = ""  # the protocol the source says it used, when it says one


@dataclass(frozen=True)
class Entry:
    """One published result: the file, how to read it, and its numbers.

    ``kit``: the kit's reasonable log-average miss rates (%, four decimals) on the file, by protocol,
    all / day / night (None where the file does not cover the split); empty where the file was not at
    hand when the table was made. ``note`` says why a quote differs from the kit's numbers.
    ``refused``: why the kit does not read the file (``reading`` is then None).
    """

    name: str  # as zoo:NAME takes it
    method: str  # as a paper's legend names it
    venue: str  # "ECCV 2020"
    file: Pin
    reading: Reading | None
    licence: str  # as the repository states it
    quirks: tuple[str, ...] = ()
    kit: dict[str, tuple[float | None, float | None, float | None]] = field(default_factory=dict)
    quotes: tuple[Quote, ...] = ()
    note: str = ""
    refused: str = ""
    copies: tuple[Pin, ...] = ()  # other copies of the same detections, not read (MATLAB files)
    # Drawn by `kaist-kit compare --zoo` when no entry is named: one file per method (not its other runs,
    # copies, ablations or files of one period).
    drawn: bool = True

    @property
    def readable(self) -> bool:
        return self.reading is not None

    @property
    def label(self) -> str:
        """The method as a figure's legend names it."""
        return self.method

    @property
    def drawn_by_default(self) -> bool:
        return self.drawn and self.readable and self.reading.covers == SPLITS
