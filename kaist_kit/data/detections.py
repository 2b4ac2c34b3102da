"""A method's detections on a ground truth's images: one model for every benchmark and format.

`Detections` are one method's boxes, in file order, each mapped onto an image of the ground truth and
given the class it is scored as (KAIST's: its one class; another benchmark's: the category_id as
written, moved by ``--category-offset``). How a file is read (its format, the devkit's shift, an id
offset, boxes as corners, and whether a file that looks misread is scored as read) is one
`ReadOptions`, made once by the caller; what a read left out (`Dropped`) or saw that may be a mistake
(`ReadFacts`) travels with the detections, for `kaist_kit.scoring.findings` to judge.

Each format is a `ResultFormat` spec (``COCO``, ``TXT``, ``PER_IMAGE``; see "Result formats" in
docs/evaluation.md): how its image ids and boxes are written, and what the evaluators (the
leaderboard's and the 2024 challenge's) make of it. The kit asks the spec wherever the format matters,
never the format's name. Each format's reader is in `kaist_kit.data.results`.

Part of the scoring core that runs on the challenge platforms' workers: Python 3.7 and numpy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, by_name
from ..errors import where as location
from ..zoo.names import zoo_name
from .groundtruth import GroundTruth

AUTO = "auto"
ON_INVALID = ("error", "drop")
# How a format names the image of a detection.
GT_IDS = "the ground truth's image ids"
POSITIONS = "1-based positions in the ground truth's id order"
FRAME_NAMES = "frame names (one file per frame)"
# A box number beyond this many pixels is no place in any frame; past about 1e154 the box's area
# is no longer a finite number.
FAR_LIMIT = 1e6
# --id-offset and --category-offset move ids by at most this much (a written id plus the offset stays an int64).
ID_OFFSET_LIMIT = 10**9


@dataclass(frozen=True)
class ResultFormat:
    """One result format: how its files write image ids and boxes, and what the evaluators make of it."""

    name: str  # as `ReadOptions.format`, manifests and JSON name it
    title: str  # in messages: "COCO result JSON"
    kind: str  # the short name of what an evaluator reads: "JSON", "txt"
    image_ids: str  # GT_IDS, POSITIONS or FRAME_NAMES
    id_base: int | None  # the first KAIST image's id as written: 0, 1; None for frame names
    layout: str  # how a box is written: "x, y, width, height"
    # Whether the writer chose the ids' base and the boxes' layout, so that --id-offset and --corners
    # apply and the file is checked for being read the other way.
    rereadable: bool
    devkit_shift: bool  # whether --devkit-shift applies (the devkit aggregator's +1 and rounding)
    # The name ending by which both evaluators pick this format's loader (".json", ".txt"); None:
    # neither reads it (a folder of files).
    upload_suffix: str | None
    # Whether each detection says its category: the 2024 challenge scores category 0 alone and
    # reads a txt file as category 1.
    carries_category: bool
    # Whether its files name frames of the benchmark's flat naming (the devkit's per-image files,
    # setXX_VYYY_IZZZZZ.txt): read only on a benchmark that has one.
    flat_files: bool = False

    def __str__(self) -> str:
        return self.name

    @property
    def uploadable(self) -> bool:
        return self.upload_suffix is not None

    def written_ids(self, gt: GroundTruth) -> str:
        """The ids this format writes for ``gt``'s images: '0..2251', '1..2252 (1-based)'."""
        if self.image_ids == POSITIONS:
            return f"1..{gt.n_images} (1-based)"
        if self.image_ids == GT_IDS and gt.n_images:
            ids = gt.image_ids.tolist()
            return f"{ids[0]}..{ids[-1]}"
        return "none" if self.image_ids == GT_IDS else "by frame name"

    def other_base(self, shift: int) -> str:
        """What ids read right once moved by ``shift`` were written as: '1-based' for a 0-based
        format moved by -1, '0-based' for a 1-based one moved by +1, else 'off by one'."""
        if self.id_base is None:
            return "off by one"
        written = self.id_base - shift
        return f"{written}-based" if written in (0, 1) and written != self.id_base else "off by one"

    def shifted(self, image: np.ndarray, shift: int, gt: GroundTruth) -> np.ndarray:
        """Image indices with every id as written moved by ``shift``; -1 where no image has that id
        (ids that are strings move nowhere)."""
        if self.image_ids == POSITIONS:
            index = image + shift
            return np.where((index >= 0) & (index < gt.n_images), index, -1)
        if self.image_ids != GT_IDS or not gt.n_images or gt.string_ids:
            return np.full(len(image), -1, np.int64)
        ids = gt.image_ids[image] + shift
        index = np.minimum(np.searchsorted(gt.image_ids, ids), gt.n_images - 1)
        return np.where(gt.image_ids[index] == ids, index, -1)


COCO = ResultFormat(
    "coco",
    "COCO result JSON",
    "JSON",
    GT_IDS,
    0,
    "x, y, width, height",
    rereadable=True,
    devkit_shift=False,
    upload_suffix=".json",
    carries_category=True,
)
TXT = ResultFormat(
    "txt",
    "leaderboard txt",
    "txt",
    POSITIONS,
    1,
    "x, y, width, height",
    rereadable=True,
    devkit_shift=False,
    upload_suffix=".txt",
    carries_category=False,
)
PER_IMAGE = ResultFormat(
    "per-image",
    "per-image files",
    "per-image files",
    FRAME_NAMES,
    None,
    "corners x1, y1, x2, y2",
    rereadable=False,
    devkit_shift=True,
    upload_suffix=None,
    carries_category=False,
    flat_files=True,
)
RESULT_FORMATS = {spec.name: spec for spec in (COCO, TXT, PER_IMAGE)}
FORMATS = (AUTO, *RESULT_FORMATS)


def result_format(name: str | ResultFormat) -> ResultFormat:
    """The format of this name."""
    return by_name(name, ResultFormat, RESULT_FORMATS, "result format")


@dataclass(frozen=True)
class ReadOptions:
    """How to read a result, chosen once (the command line's options) and passed to every reader.

    ``format``: "auto" (told from the file) or a format's name (`kaist_kit.data.results`).
    ``devkit_shift``: per-image files read as the devkit's aggregator prints them. ``id_offset``: added
    to every image id as written (-1 reads COCO JSON written with 1-based ids). ``corners``: the boxes
    of COCO and txt files are x1, y1, x2, y2. ``as_is``: a file that looks misread is scored as read
    (its error findings become warnings). ``category_offset``: added to every category_id as written,
    in results of any class (1 reads class indices counted from 0, as YOLOv5's JSON writes them,
    against ids counted from 1).
    """

    format: str = AUTO
    devkit_shift: bool = True
    id_offset: int = 0
    corners: bool = False
    as_is: bool = False
    category_offset: int = 0

    def __post_init__(self) -> None:
        if self.format != AUTO and self.format not in RESULT_FORMATS:
            raise ValueError(f"unknown result format {self.format!r}; choose from {', '.join(FORMATS)}")
        for name in ("id_offset", "category_offset"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, np.integer))
                or not abs(int(value)) <= ID_OFFSET_LIMIT
            ):
                raise ValueError(f"{name} {value!r} is not a whole number from {-ID_OFFSET_LIMIT} to {ID_OFFSET_LIMIT}")
        for name in ("devkit_shift", "corners", "as_is"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, not {getattr(self, name)!r}")

    @property
    def result_format(self) -> ResultFormat | None:
        """The format asked for; None: told from the file."""
        return None if self.format == AUTO else RESULT_FORMATS[self.format]


@dataclass
class Dropped:
    """What a read with ``on_invalid="drop"`` left out or rewrote instead of stopping.

    Every count is of detections. ``first`` says where the first case of each reason is.
    """

    non_finite: int = 0  # a box or score that is nan or infinite: left out
    negative_size: int = 0  # w < 0 or h < 0 (x2 < x1 or y2 < y1 in per-image files): left out
    unknown_ids: dict[Any, int] = field(default_factory=dict)  # image id as written -> detections left out
    other_labels: dict[str, int] = field(default_factory=dict)  # per-image label -> detections left out
    recategorised: dict[float, int] = field(default_factory=dict)  # category_id -> detections read as person
    first: dict[str, str] = field(default_factory=dict)

    @property
    def unknown_image(self) -> int:
        return sum(self.unknown_ids.values())

    @property
    def total(self) -> int:
        """Detections left out."""
        return self.non_finite + self.negative_size + self.unknown_image + sum(self.other_labels.values())

    def record(self, reason: str, count: int, path, line: int | None) -> None:
        if reason in ("non_finite", "negative_size"):
            setattr(self, reason, getattr(self, reason) + int(count))
        self.first.setdefault(reason, location(path, line))


@dataclass
class ReadFacts:
    """What a read saw that does not stop scoring but may be a mistake (see `kaist_kit.scoring.findings`).

    Counts are of detections; ``first`` says where the first case of each is.
    """

    string_values: int = 0  # COCO records with a bbox, score or category_id number written as text
    far_boxes: int = 0  # boxes with a coordinate or size beyond FAR_LIMIT pixels
    unknown_frames: list = field(default_factory=list)  # per-image files of frames not in the ground truth
    images_without_file: int = 0  # ground-truth images with no per-image file, when other images have one
    # COCO results whose every detection has category_id 0, the 2024 challenge's category for pedestrians:
    # read as pedestrians.
    challenge_category: bool = False
    first: dict[str, str] = field(default_factory=dict)
    # How the file was read (see ReadOptions), for the fix a finding names.
    id_offset: int = 0
    corners: bool = False
    category_offset: int = 0


@dataclass
class Detections:
    """Detections mapped onto a ground truth's images, in file order.

    ``format`` is the `ResultFormat` they were read from; detections made in
    memory are COCO's, what the kit writes them as. ``category``: the class each is scored as (the
    ground truth's class id); where not given, KAIST's pedestrian (1) for every detection."""

    image: np.ndarray  # (D,) int64 index into the ground truth's images
    boxes: np.ndarray  # (D, 4) float64 x, y, w, h
    scores: np.ndarray  # (D,) float64
    source: str = ""
    format: Any = None  # a ResultFormat, or its name
    dropped: Dropped | None = None  # set by a read with on_invalid="drop"
    facts: ReadFacts = field(default_factory=ReadFacts)
    category: np.ndarray | None = None  # (D,) int64

    def __post_init__(self) -> None:
        if not isinstance(self.format, ResultFormat):
            self.format = result_format(self.format or COCO.name)
        if self.category is None:
            self.category = np.ones(len(self.scores), np.int64)

    def __len__(self) -> int:
        return len(self.scores)

    @classmethod
    def empty(cls, source: str = "", format=None) -> Detections:
        return cls(np.zeros(0, np.int64), np.zeros((0, 4)), np.zeros(0), source, format)

    def of_classes(self, class_ids) -> Detections:
        """The detections of these classes (by id) alone: these detections themselves when all are
        (no copy of millions of boxes)."""
        keep = np.isin(self.category, list(class_ids))
        return self if keep.all() else self.taking(keep)

    def taking(self, keep: np.ndarray, image: np.ndarray | None = None, boxes: np.ndarray | None = None) -> Detections:
        """The detections of ``keep`` (a mask), their image indices or boxes replaced where given (over all)."""
        image = self.image if image is None else image
        boxes = self.boxes if boxes is None else boxes
        return Detections(
            image[keep],
            boxes[keep],
            self.scores[keep],
            self.source,
            self.format,
            self.dropped,
            self.facts,
            self.category[keep],
        )


def method_name(path: str | os.PathLike) -> str:
    """The method's name from a result path: the file name before ``_result`` (or its extension); a
    published result's (``zoo:NAME``): its entry's."""
    if zoo_name(path) is not None:
        return zoo_name(path)
    name = Path(str(path).rstrip("/\\")).name
    for suffix in (".tar.gz", ".tgz", ".tar", ".zip", ".json", ".txt"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    cut = name.find("_result")
    return name[:cut] if cut > 0 else name


def check_values(
    boxes: np.ndarray,
    scores: np.ndarray,
    locate,
    dropped: Dropped | None = None,
    facts: ReadFacts | None = None,
    layout: str = "boxes are [x, y, width, height]",
) -> np.ndarray:
    """Mask of the detections with finite numbers and sizes >= 0; any other stops a strict read.

    ``locate(k)`` gives the (file, line) of detection k; ``layout`` says how its lines are written,
    for the message about a negative size. Boxes beyond any frame are counted in ``facts``."""
    finite = np.isfinite(boxes).all(axis=1) & np.isfinite(scores)
    if not finite.all():
        k = int(np.flatnonzero(~finite)[0])
        if dropped is None:
            raise InputError(f"non-finite number in a detection ({(~finite).sum()} such detections)", *locate(k))
        dropped.record("non_finite", (~finite).sum(), *locate(k))
    negative = finite & ((boxes[:, 2] < 0) | (boxes[:, 3] < 0))
    if negative.any():
        k = int(np.flatnonzero(negative)[0])
        if dropped is None:
            raise InputError(
                f"negative box size w={boxes[k, 2]:g}, h={boxes[k, 3]:g} ({negative.sum()} such detections); {layout}",
                *locate(k),
            )
        dropped.record("negative_size", negative.sum(), *locate(k))
    far = finite & ~((boxes <= FAR_LIMIT) & (boxes >= -FAR_LIMIT)).all(axis=1)  # no float copy of the boxes
    if far.any() and facts is not None:
        facts.far_boxes = int(far.sum())
        facts.first["far_boxes"] = location(*locate(int(np.flatnonzero(far)[0])))
    return finite & ~negative
