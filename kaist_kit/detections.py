"""Reading detection results in every format the KAIST community uses.

Each format is a `ResultFormat` spec (``COCO``, ``TXT``, ``PER_IMAGE``; see "Result formats" in
docs/evaluation.md): its reader, how its image ids and boxes are written, and what the two
evaluators (the leaderboard's and the 2024 challenge's) make of it. The kit asks the spec wherever
the format matters, never the format's name.

- ``coco``: COCO result JSON, ``[{"image_id", "category_id", "bbox": [x, y, w, h], "score"}]`` with
  the ground truth's (0-based) image ids.
- ``txt``: the leaderboard's text format ``image_id,x,y,w,h,score`` with 1-based image ids (the
  position in the ground truth's id order). The devkit's aggregated ``det-test-all.txt`` is the
  same format.
- ``per-image``: the devkit's folder of ``setXX_VYYY_IZZZZZ.txt`` files with lines
  ``person x1 y1 x2 y2 score``. Read the devkit's way by default: its aggregator writes
  ``x1+1, y1+1, x2-x1, y2-y1`` with four decimals and the score with eight, and scores those numbers.
  ``ReadOptions(devkit_shift=False)`` reads a folder written without that shift as
  ``x1, y1, x2-x1, y2-y1``.
- any of these inside a ``.zip``, ``.tar``, ``.tar.gz`` or ``.tgz`` archive (a submission zip's
  ``manifest.json`` is not a result and is passed over).

How a file is read (its format, the devkit's shift, an id offset, boxes as corners, and whether a
file that looks misread is scored as read) is one `ReadOptions`, made once by the caller.

Readers read exactly what the standard library reads, or refuse: a COCO file's values are those of
`json.loads` and must be numbers of the right shape (a bbox is a list of four numbers; a JSON
boolean is not a number); a string that holds exactly a JSON number is read as that number and
counted (the `string-values` finding: the leaderboard crashes on it), any other string is refused.
Text fields are read by `float`. A frame given twice in one folder or archive, and an archive that
holds per-image files beside another result file, are refused, naming both files.

Detections keep their file order, which decides ties between equal scores.

Reading stops at the first detection the evaluator cannot score (``on_invalid="error"``). The
submission packager reads with ``on_invalid="drop"`` instead: such detections are left out or
repaired, and counted in the result's ``dropped``, so that it can report what each costs.

Readers warn about nothing. What they see that scores but may be a mistake (numbers written as
text, boxes beyond any frame, per-image files of other frames) they count in the result's
``facts``; `kaist_kit.findings` judges it, with the rest of the result, against the ground truth.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from .benchmarks import KAIST
from .bulkread import coco_columns, labelled_rows, txt_rows
from .errors import InputError
from .errors import where as location
from .files import decode_text, is_archive, is_number, json_line, parse_json, read_archive, read_bytes
from .groundtruth import GroundTruth
from .results import CHALLENGE2024_CATEGORY, PERSON_CATEGORY

AUTO = "auto"
ON_INVALID = ("error", "drop")
# What `kaist-kit submit` writes beside the results file in a submission zip.
SUBMISSION_MANIFEST = "manifest.json"
# A per-image file: the devkit's flat name of its frame (the KAIST spec's), .txt.
_FRAME_FILE = re.compile(KAIST.flat_pattern.pattern + r"\.txt$")
# A box number beyond this many pixels is no place in any frame; past about 1e154 the box's area
# is no longer a finite number.
FAR_LIMIT = 1e6
# Image ids are int64; a written id beyond this cannot be one.
_ID_LIMIT = 2.0**62
# --id-offset moves ids by at most this much (a written id plus the offset stays an int64).
ID_OFFSET_LIMIT = 10**9
# A JSON number, as json.loads reads one (a string that holds exactly this is read as the number).
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")

# The types of the numbers of a record as json.loads gives them (a bool is not one), and numpy's
# usual ones (a library caller's): a record of only these is read without further checks.
_FLOATS = frozenset({int, float, np.float64, np.float32, np.int64, np.int32})
# How a format names the image of a detection.
GT_IDS = "the ground truth's image ids"
POSITIONS = "1-based positions in the ground truth's id order"
FRAME_NAMES = "frame names (one file per frame)"


@dataclass(frozen=True)
class ResultFormat:
    """One result format: how the kit reads it, and what the evaluators make of it.

    ``read`` reads a file's text (str, or the bytes of an ASCII file) for the formats of one file;
    for per-image files it reads the files of a folder or archive, by name.
    """

    name: str  # as `ReadOptions.format`, manifests and JSON name it
    title: str  # in messages: "COCO result JSON"
    kind: str  # the short name of what an evaluator reads: "JSON", "txt"
    read: Callable[..., Detections]
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
    # The reader of the format on a ground truth of any benchmark (`Annotations`, any class), or None
    # where the format is KAIST's alone (the devkit's per-image files name KAIST frames).
    read_classes: Callable[..., BoxDetections] | None = None

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
            return f"{int(gt.image_ids[0])}..{int(gt.image_ids[-1])}"
        return "none" if self.image_ids == GT_IDS else "by frame name"

    def other_base(self, shift: int) -> str:
        """What ids read right once moved by ``shift`` were written as: '1-based' for a 0-based
        format moved by -1, '0-based' for a 1-based one moved by +1, else 'off by one'."""
        if self.id_base is None:
            return "off by one"
        written = self.id_base - shift
        return f"{written}-based" if written in (0, 1) and written != self.id_base else "off by one"

    def shifted(self, image: np.ndarray, shift: int, gt: GroundTruth) -> np.ndarray:
        """Image indices with every id as written moved by ``shift``; -1 where no image has that id."""
        if self.image_ids == POSITIONS:
            index = image + shift
            return np.where((index >= 0) & (index < gt.n_images), index, -1)
        if self.image_ids != GT_IDS or not gt.n_images:
            return np.full(len(image), -1, np.int64)
        ids = gt.image_ids[image] + shift
        index = np.minimum(np.searchsorted(gt.image_ids, ids), gt.n_images - 1)
        return np.where(gt.image_ids[index] == ids, index, -1)


@dataclass(frozen=True)
class ReadOptions:
    """How to read a result, chosen once (the command line's options) and passed to every reader.

    ``format``: "auto" (told from the file) or a format's name. ``devkit_shift``: per-image files
    read as the devkit's aggregator prints them. ``id_offset``: added to every image id as written
    (-1 reads COCO JSON written with 1-based ids). ``corners``: the boxes of COCO and txt files are
    x1, y1, x2, y2. ``as_is``: a file that looks misread is scored as read (its error findings become
    warnings). ``category_offset``: added to every category_id as written, in results of any class
    (1 reads class indices counted from 0, as YOLOv5's JSON writes them, against ids counted from 1).
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
    unknown_ids: dict[int, int] = field(default_factory=dict)  # image id as written -> detections left out
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
    """What a read saw that does not stop scoring but may be a mistake (see `kaist_kit.findings`).

    Counts are of detections; ``first`` says where the first case of each is.
    """

    string_values: int = 0  # COCO records with a bbox, score or category_id number written as text
    far_boxes: int = 0  # boxes with a coordinate or size beyond FAR_LIMIT pixels
    unknown_frames: list[str] = field(default_factory=list)  # per-image files of frames not in the ground truth
    images_without_file: int = 0  # ground-truth images with no per-image file, when other images have one
    # COCO results whose every detection has category_id 0, the 2024 challenge's category for pedestrians:
    # read as pedestrians (see CHALLENGE2024_CATEGORY).
    challenge_category: bool = False
    first: dict[str, str] = field(default_factory=dict)
    # How the file was read (see ReadOptions), for the fix a finding names.
    id_offset: int = 0
    corners: bool = False
    category_offset: int = 0


@dataclass
class Detections:
    """Detections mapped onto a ground truth's images, in file order.

    ``format`` is the `ResultFormat` they were read from (a format's name is resolved to it when the
    detections are made); detections made in memory are COCO's, what the kit writes them as.
    """

    image: np.ndarray  # (D,) int64 index into GroundTruth images
    boxes: np.ndarray  # (D, 4) float64 x, y, w, h
    scores: np.ndarray  # (D,) float64
    source: str = ""
    format: ResultFormat | str | None = None
    dropped: Dropped | None = None  # set by a read with on_invalid="drop"
    facts: ReadFacts = field(default_factory=ReadFacts)

    def __post_init__(self) -> None:
        if not isinstance(self.format, ResultFormat):
            self.format = result_format(self.format or COCO.name)

    def __len__(self) -> int:
        return len(self.scores)

    @classmethod
    def empty(cls, source: str = "", format: ResultFormat | str | None = None) -> Detections:
        return cls(np.zeros(0, np.int64), np.zeros((0, 4)), np.zeros(0), source, format)


def method_name(path: str | os.PathLike) -> str:
    """The method's name from a result path: the file name before ``_result`` (or its extension)."""
    name = Path(str(path).rstrip("/\\")).name
    for suffix in (".tar.gz", ".tgz", ".tar", ".zip", ".json", ".txt"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    cut = name.find("_result")
    return name[:cut] if cut > 0 else name


def load_detections(
    path: str | os.PathLike, gt: GroundTruth, options: ReadOptions | None = None, *, on_invalid: str = "error"
) -> Detections:
    """Read a result file, folder or archive and map its detections onto ``gt``'s images, as
    ``options`` say (default: the format told from the file, the devkit's shift, ids and boxes as
    written).

    ``on_invalid="drop"`` leaves out detections with a non-finite number, a negative size, an image
    id outside the ground truth or a label other than person, reads any category_id as person, and
    counts each case in the result's ``dropped`` (malformed structure still stops the read).
    """
    path = Path(path)
    options = options or ReadOptions()
    if on_invalid not in ON_INVALID:
        raise ValueError(f"unknown on_invalid {on_invalid!r}; choose from {', '.join(ON_INVALID)}")
    try:
        is_folder = stat.S_ISDIR(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError("no such file or folder", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    dropped = Dropped() if on_invalid == "drop" else None
    if is_folder:
        # Everything but folders: a file that is not a regular one is refused when it is read.
        found = sorted(p for p in path.rglob("*") if _listed(p.relative_to(path).as_posix()) and not p.is_dir())
        members = {p.relative_to(path).as_posix(): (str(p), _LazyFile(p)) for p in found}
        return _read_members(members, path, gt, dropped, options, folder=True)
    if is_archive(path):
        contents = read_archive(path)
        members = {n: (f"{path}/{n}", (lambda data=data: data)) for n, data in contents.items() if _listed(n)}
        return _read_members(members, path, gt, dropped, options)
    raw = read_bytes(path)
    return _read_single(raw, str(path), gt, dropped, options)


def _listed(name: str) -> bool:
    """Whether a file of a folder or archive is one of its results' candidates: not hidden, not a
    macOS resource fork."""
    return not any(part.startswith(".") for part in name.split("/")) and "__MACOSX" not in name.split("/")


def _read_single(raw: bytes, where: str, gt: GroundTruth, dropped: Dropped | None, options: ReadOptions) -> Detections:
    # An ASCII file's bytes are its text: the readers take them as they are, and decode them only
    # to read them the careful way.
    text = raw if raw.isascii() else decode_text(raw, where)
    fmt = options.result_format or _sniff(text, where)
    if fmt.image_ids == FRAME_NAMES:
        name = Path(where).name
        if not _FRAME_FILE.search(name):
            raise InputError("a per-image result file must be named setXX_VYYY_IZZZZZ.txt", where)
        return fmt.read({name: (where, lambda: raw)}, where, gt, dropped, options)
    return fmt.read(text, where, gt, dropped, options)


def _read_members(
    members: dict[str, tuple[str, Callable[[], bytes]]],
    where: Path,
    gt: GroundTruth,
    dropped: Dropped | None,
    options: ReadOptions,
    folder: bool = False,
) -> Detections:
    """The result of a folder's or an archive's files (``members``: name -> (where, reader)): its
    per-image files, or its one result file (a submission's manifest aside)."""
    frames: dict[str, str] = {}
    for name in members:
        base = name.rpartition("/")[2]
        if _FRAME_FILE.search(base):
            if base in frames:
                raise InputError(
                    f"two per-image files of frame {_frame(base)}: {members[frames[base]][0]} and "
                    f"{members[name][0]}; keep one",
                    where,
                )
            frames[base] = name
    framed = set(frames.values())
    others = [
        n
        for n in members
        if n not in framed and n.lower().endswith((".json", ".txt")) and n.rpartition("/")[2] != SUBMISSION_MANIFEST
    ]
    if frames and others:
        raise InputError(
            f"holds per-image files ({members[next(iter(frames.values()))][0]}, ...) and a result "
            f"file of another layout ({members[others[0]][0]}): keep one",
            where,
        )
    fmt = options.result_format
    if frames and (fmt is None or fmt.image_ids == FRAME_NAMES):
        return PER_IMAGE.read({base: members[name] for base, name in frames.items()}, where, gt, dropped, options)
    if folder:
        raise InputError("a folder of results must hold per-image setXX_VYYY_IZZZZZ.txt files", where)
    if len(others) != 1:
        raise InputError(
            f"an archive must hold one result file (.json or .txt) or per-image files; found "
            f"{len(others)} result files",
            where,
        )
    member, read = members[others[0]]
    return _read_single(read(), member, gt, dropped, options)


def _frame(file_name: str) -> str:
    return "/".join(_FRAME_FILE.search(file_name).groups())


def _per_image_options(options: ReadOptions, where) -> None:
    if options.corners:
        raise InputError(
            "per-image files are read as corners x1 y1 x2 y2 already: --corners applies to COCO and txt results", where
        )
    if options.id_offset:
        raise InputError(
            "per-image files name their frame in their file name, not by an image id: --id-offset moves the "
            "image ids of COCO and txt results",
            where,
        )


def _sniff(text: str | bytes, where: str) -> ResultFormat:
    """The format of a result's text (str, or the bytes of an ASCII file), read from its start."""
    size = 1 << 16
    while True:
        head = _decoded(text[:size], where)
        whole = size >= len(text)
        if head.lstrip()[:1] in ("[", "{"):
            return COCO
        # The lines of a head are the text's own but for the last, which the cut may have shortened.
        for number, line in enumerate(head.splitlines() if whole else head.splitlines()[:-1], 1):
            if not line.strip() or line.lstrip().startswith(("#", "%")):
                continue  # blank lines and comments, which the txt reader passes over too
            if _is_header(line):
                raise _header_error(line, where, number)
            if line.lstrip()[:1].isalpha():
                raise InputError(
                    "looks like a single per-image file (label x1 y1 x2 y2 score); pass the folder that holds "
                    "all of them",
                    where,
                    number,
                )
            return TXT
        if whole:
            return TXT
        size *= 16


def _decoded(text: str | bytes, where: str) -> str:
    return text if isinstance(text, str) else decode_text(text, where)


class _LazyFile:
    def __init__(self, path: Path):
        self.path = path

    def __call__(self) -> bytes:
        return read_bytes(self.path)


# --- COCO result JSON ------------------------------------------------------------------------------


def read_coco_results(
    text: str | bytes, where: str, gt: GroundTruth, dropped: Dropped | None = None, options: ReadOptions | None = None
) -> Detections:
    """Detections of a COCO result JSON text; given as the bytes of an ASCII file, a list of records
    that hold only the usual keys with numbers is read in bulk (`kaist_kit.bulkread`)."""
    options = options or ReadOptions()
    columns = coco_columns(text) if isinstance(text, bytes) else None
    if columns is not None and _plain_columns(columns, dropped):
        decoded = functools.cache(lambda: _decoded(text, where))
        facts = ReadFacts(id_offset=options.id_offset, corners=options.corners)
        return _coco_detections(
            columns["image_id"].astype(np.int64),
            columns["bbox"],
            columns["score"],
            columns["category_id"],
            gt,
            where,
            lambda k: json_line(decoded(), k),
            dropped,
            options,
            facts,
        )
    records, line_of = _coco_records(text, where)
    return detections_from_coco(records, gt, where, line_of, dropped, options)


def _coco_records(text: str | bytes, where: str) -> tuple[list, Callable[[int], int]]:
    """The records of a COCO result JSON read record by record (a list, or the annotations of a ground
    truth's layout), and the line of record k."""
    text = _decoded(text, where)
    data = parse_json(text, where)
    keys: tuple[str, ...] = ()
    if isinstance(data, dict) and isinstance(data.get("annotations"), list):
        data, keys = data["annotations"], ("annotations",)
    if not isinstance(data, list):
        raise InputError("COCO results must be a JSON list of detections", where, 1)
    return data, lambda k: json_line(text, *keys, k)


def _plain_columns(columns: dict[str, np.ndarray], dropped: Dropped | None) -> bool:
    """Whether columns read in bulk hold nothing the record-by-record read words from the records
    themselves: image ids that are not integers an int64 holds exactly, or (in a strict read)
    categories other than person, or the 2024 challenge's for every detection."""
    ids, categories = columns["image_id"], columns["category_id"]
    return bool(
        np.all(np.abs(ids) < 2.0**53)
        and np.array_equal(ids, np.floor(ids))
        and (
            dropped is not None or np.all(categories == PERSON_CATEGORY) or np.all(categories == CHALLENGE2024_CATEGORY)
        )
    )


def detections_from_coco(
    records: list,
    gt: GroundTruth,
    where: str = "",
    line_of=lambda k: None,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> Detections:
    """Detections from COCO result records (dicts with image_id, bbox, score and, optionally,
    category_id), as `json.loads` gives them.

    Every value is checked, never coerced: a bbox is a list of four numbers, a score and a category
    are numbers (a JSON boolean is not one); a string that holds exactly a JSON number is read as
    that number and counted in the result's ``facts``; anything else stops the read with the
    record's line. With ``dropped`` (a lenient read), detections with a value the evaluator cannot
    score (non-finite, negative size, unknown image) are left out and counted there.
    """
    options = options or ReadOptions()
    n = len(records)
    ids = np.empty(n, np.int64)
    boxes = np.empty((n, 4), np.float64)
    scores = np.empty(n, np.float64)
    categories = np.empty(n, np.float64)
    texts, first_text = 0, None

    for k, det in enumerate(records):
        image_id, as_text = _read_record(det, k, where, line_of, boxes, scores, categories, category_required=False)
        if as_text:
            texts += 1
            first_text = k if first_text is None else first_text
        if not _whole(image_id):
            raise _record_error(f"image_id {_json_type(image_id)} is not an integer", k, where, line_of)
        if not abs(image_id) < _ID_LIMIT:
            raise _record_error(
                f"image id {image_id!r} is not in the ground truth: it is too large to be an image id",
                k,
                where,
                line_of,
            )
        ids[k] = int(image_id)
    facts = ReadFacts(id_offset=options.id_offset, corners=options.corners, string_values=texts)
    if first_text is not None:
        facts.first["string_values"] = location(where, line_of(first_text))
    return _coco_detections(
        ids,
        boxes,
        scores,
        categories,
        gt,
        where,
        line_of,
        dropped,
        options,
        facts,
        lambda k: records[k].get("category_id"),
    )


def _read_record(
    det,
    k: int,
    where: str,
    line_of,
    boxes: np.ndarray,
    scores: np.ndarray,
    categories: np.ndarray,
    category_required: bool,
) -> tuple[object, bool]:
    """Read COCO result record ``k`` into row k of the columns: its four box numbers, score and
    category_id (person's when absent, unless ``category_required``), each read as `_number` reads it.
    Returns its image_id as written (for the caller to check) and whether a number was written as text."""
    if not isinstance(det, dict):
        raise _record_error(f"a detection must be a JSON object, not {_json_type(det)}", k, where, line_of)
    try:
        image_id, bbox, score = det["image_id"], det["bbox"], det["score"]
        category = det["category_id"] if category_required else det.get("category_id", PERSON_CATEGORY)
    except KeyError as exc:
        raise _record_error(f"detection without '{exc.args[0]}'", k, where, line_of) from None
    if not isinstance(bbox, (list, tuple)) or len(bbox) != 4:
        what = f"a list of {len(bbox)}" if isinstance(bbox, list) else _json_type(bbox)
        raise _record_error(f"bbox must be a list of 4 numbers [x, y, w, h], not {what}", k, where, line_of)
    values = (*bbox, score, category)
    if _FLOATS.issuperset(map(type, values)):  # plain numbers, the common case: stored as they are
        try:
            boxes[k], scores[k], categories[k] = bbox, score, category
            return image_id, False
        except OverflowError:  # an integer beyond the float range: read as `_number` reads it
            pass
    read = [_number(value, name, k, where, line_of) for value, name in zip(values, _RECORD_KEYS)]
    boxes[k] = [number for number, _ in read[:4]]
    scores[k], categories[k] = read[4][0], read[5][0]
    return image_id, any(as_text for _, as_text in read)


_RECORD_KEYS = ("bbox",) * 4 + ("score", "category_id")


def _whole(value) -> bool:
    """Whether an image id as json.loads gives it is a whole number (an integral float included)."""
    if isinstance(value, (float, np.floating)):
        return math.isfinite(value) and value == int(value)
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _number(value, key: str, k: int, where: str, line_of) -> tuple[float, bool]:
    """A record's number as float64, and whether it was written as text (a string holding exactly a
    JSON number, read as `json.loads` reads that number). An integer beyond the float range reads as
    infinite, as `json.loads` reads an exponent beyond it."""
    as_text = isinstance(value, str)
    if as_text:
        if not _JSON_NUMBER.fullmatch(value):
            raise _record_error(f"{key} holds the text {value[:40]!r}, which is not a number", k, where, line_of)
        value = json.loads(value)
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise _record_error(f"{key} holds {_json_type(value)}, not a number", k, where, line_of)
    try:
        return float(value), as_text
    except OverflowError:  # an integer of more than 308 digits
        return (math.inf if value > 0 else -math.inf), as_text


def _json_type(value) -> str:
    """How a JSON value is named in a message."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    names = {dict: "an object", list: "a list"}
    return names.get(type(value), repr(value)[:40])


def _record_error(message: str, k: int, where: str, line_of) -> InputError:
    return InputError(message if where else f"detection {k}: {message}", where or None, line_of(k))


def _coco_detections(
    ids: np.ndarray,
    boxes: np.ndarray,
    scores: np.ndarray,
    categories: np.ndarray,
    gt: GroundTruth,
    where: str,
    line_of,
    dropped: Dropped | None,
    options: ReadOptions,
    facts: ReadFacts,
    category_of=None,
) -> Detections:
    """Detections of a COCO result's columns: values checked, categories judged, ids mapped.
    ``category_of(k)`` is detection k's category as written, for the error of a strict read."""
    if options.corners:
        boxes[:, 2:] -= boxes[:, :2]
    keep = _check_values(boxes, scores, lambda k: (where, line_of(k)), dropped, facts, _layout(COCO, options.corners))
    bad = np.flatnonzero(categories != PERSON_CATEGORY)
    n = len(categories)
    facts.challenge_category = n > 0 and len(bad) == n and bool(np.all(categories == CHALLENGE2024_CATEGORY))
    if len(bad) and dropped is not None:
        # A lenient read takes every detection as a person: a category of 0 is usually a class
        # index counted from 0. The counts let the packager say so, and other classes be removed.
        values, counts = np.unique(categories[bad], return_counts=True)
        dropped.recategorised = {_plain_number(v): int(c) for v, c in zip(values, counts)}
        dropped.record("recategorised", len(bad), where, line_of(int(bad[0])))
    elif len(bad) and not facts.challenge_category:
        k = int(bad[0])
        raise _record_error(
            f"category_id {category_of(k)!r} is not person ({PERSON_CATEGORY}); "
            f"{len(bad)} detections have another category (the leaderboard crashes on them; "
            "`kaist-kit submit` rewrites every category to person)",
            k,
            where,
            line_of,
        )
    image, known = _map_ids(ids + options.id_offset, gt, line_of, where, COCO, dropped, keep, options.id_offset)
    keep &= known
    return _kept(image, boxes, scores, keep, where, COCO, dropped, facts)


def _kept(
    image: np.ndarray,
    boxes: np.ndarray,
    scores: np.ndarray,
    keep: np.ndarray,
    where: str,
    fmt: ResultFormat,
    dropped: Dropped | None,
    facts: ReadFacts,
) -> Detections:
    """The detections of ``keep``: the arrays themselves when every one is kept (a copy of millions
    of boxes saved)."""
    if not keep.all():
        image, boxes, scores = image[keep], boxes[keep], scores[keep]
    return Detections(image, np.ascontiguousarray(boxes), np.ascontiguousarray(scores), where, fmt, dropped, facts)


def _layout(fmt: ResultFormat, corners: bool) -> str:
    """How the boxes of a COCO or txt file are read, for the message about a negative size."""
    return "boxes are read as corners [x1, y1, x2, y2]" if corners else f"boxes are [{fmt.layout}]"


# --- leaderboard txt -------------------------------------------------------------------------------


def read_txt_results(
    text: str | bytes, where: str, gt: GroundTruth, dropped: Dropped | None = None, options: ReadOptions | None = None
) -> Detections:
    """Detections of a leaderboard txt text; given as the bytes of an ASCII file whose every line is
    a detection, it is read in bulk (`kaist_kit.bulkread`)."""
    options = options or ReadOptions()
    found = txt_rows(text, 6) if isinstance(text, bytes) else None
    rows, lines = found if found is not None else _parse_rows(_decoded(text, where), where, 6)
    ids = rows[:, 0]
    whole = np.floor(ids) == ids
    if not np.all(whole):
        k = int(np.flatnonzero(~whole)[0])
        raise InputError(f"image id {_field(text, lines[k], where)} is not an integer", where, int(lines[k]))
    huge = ~(np.abs(ids) < _ID_LIMIT)
    if huge.any():
        k = int(np.flatnonzero(huge)[0])
        raise InputError(
            f"image id {_field(text, lines[k], where)} is not in the ground truth (ids "
            f"1..{gt.n_images}, 1-based): it is too large to be an image id",
            where,
            int(lines[k]),
        )
    boxes, scores = rows[:, 1:5].copy(), rows[:, 5].copy()

    def line_of(k: int) -> int:
        return int(lines[k])

    if options.corners:
        boxes[:, 2:] -= boxes[:, :2]
    facts = ReadFacts(id_offset=options.id_offset, corners=options.corners)
    keep = _check_values(boxes, scores, lambda k: (where, line_of(k)), dropped, facts, _layout(TXT, options.corners))
    int_ids = ids.astype(np.int64) + options.id_offset
    image, known = _map_ids(int_ids, gt, line_of, where, TXT, dropped, keep, options.id_offset)
    keep &= known
    return _kept(image, boxes, scores, keep, where, TXT, dropped, facts)


def _field(text: str | bytes, line: int, where: str) -> str:
    """The first field of a line as written (for a number that reads back differently)."""
    return _decoded(text, where).splitlines()[int(line) - 1].replace(",", " ").split()[0]


def _parse_rows(text: str, where: str, ncols: int, label: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Numeric rows of a comma- or space-separated text, and their 1-based line numbers."""
    values: list[float] = []
    lines: list[int] = []
    labels: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.replace(",", " ").split()
        if not parts or parts[0].startswith(("#", "%")):
            continue
        if label:
            labels.append(parts[0])
            parts = parts[1:]
        if len(parts) != ncols:
            expected = "label x1 y1 x2 y2 score" if label else "image_id,x,y,w,h,score"
            raise InputError(f"expected {expected}, found {len(parts) + label} fields", where, number)
        try:
            values.extend(float(p) for p in parts)
        except ValueError:
            if not lines and _is_header(line):
                raise _header_error(line, where, number) from None
            bad = next(p for p in parts if not is_number(p))
            raise InputError(f"{bad!r} is not a number", where, number) from None
        lines.append(number)
    rows = np.array(values, np.float64).reshape(-1, ncols)
    if label:
        return rows, np.array(lines, np.int64), labels  # type: ignore[return-value]
    return rows, np.array(lines, np.int64)


def _is_header(line: str) -> bool:
    """A line of column names: words only, no number."""
    parts = line.replace(",", " ").split()
    return bool(parts) and any(p[:1].isalpha() for p in parts) and not any(is_number(p) for p in parts)


def _header_error(line: str, where, number: int) -> InputError:
    return InputError(f"a header line ({line.strip()[:60]!r}); result files have none: remove it", where, number)


def _check_values(
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


def _map_ids(
    ids: np.ndarray,
    gt: GroundTruth,
    line_of,
    where: str,
    fmt: ResultFormat,
    dropped: Dropped | None = None,
    valid: np.ndarray | None = None,
    id_offset: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Ground-truth image index of every detection, and which ids are known.

    An unknown id stops a strict read; a lenient one counts the unknown ids (as written, before
    ``id_offset``) among the ``valid`` detections.
    """
    one_based = fmt.image_ids == POSITIONS
    if one_based:
        index = ids - 1
        known = (index >= 0) & (index < gt.n_images)
    else:
        pos = np.searchsorted(gt.image_ids, ids)
        pos_clipped = np.minimum(pos, max(gt.n_images - 1, 0))
        known = (pos < gt.n_images) & (gt.image_ids[pos_clipped] == ids) if gt.n_images else np.zeros(len(ids), bool)
        index = pos_clipped
    if not known.all() and dropped is not None:
        unknown = ~known if valid is None else ~known & valid
        if unknown.any():
            written, counts = np.unique(ids[unknown] - id_offset, return_counts=True)
            dropped.unknown_ids = {int(i): int(c) for i, c in zip(written, counts)}
            dropped.record("unknown_ids", 0, where, line_of(int(np.flatnonzero(unknown)[0])))
    elif not known.all():
        k = int(np.flatnonzero(~known)[0])
        if one_based:
            valid = f"1..{gt.n_images}, 1-based"
            hint = (
                " (ids of this format are 1-based: if they were written 0-based, read them with --id-offset 1)"
                if ids[k] == 0
                else ""
            )
        else:
            lo, hi = (int(gt.image_ids[0]), int(gt.image_ids[-1])) if gt.n_images else (0, -1)
            valid = f"{lo}..{hi}"
            hint = (
                " (COCO results use the ground truth's 0-based ids: if they were written 1-based, "
                "read them with --id-offset -1)"
                if gt.n_images and ids[k] == hi + 1
                else ""
            )
        raise InputError(
            f"image id {ids[k]} is not in the ground truth (ids {valid}); {(~known).sum()} detections "
            f"have unknown ids{hint}",
            where,
            line_of(k),
        )
    return index.astype(np.int64), known


# --- per-image files -------------------------------------------------------------------------------


def read_per_image(
    files: dict[str, tuple[str, Callable[[], bytes]]],
    where,
    gt: GroundTruth,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> Detections:
    """Detections of per-image files (``files``: file name -> (where, reader)), each file's lines
    ``label x1 y1 x2 y2 score`` for the frame its name gives; read in bulk when every line is a
    person's (`kaist_kit.bulkread`)."""
    options = options or ReadOptions()
    _per_image_options(options, where)
    frame_of = {name: "/".join(_FRAME_FILE.search(name).groups()) for name in files}
    known = [name for name in sorted(files) if frame_of[name] in gt.index_of_name]
    unknown = [name for name in sorted(files) if frame_of[name] not in gt.index_of_name]
    try:
        texts = [files[name][1]() for name in known]
    except InputError:  # said when that file's turn comes
        texts = None
    bulk = labelled_rows(texts, b"person", 5) if texts is not None else None
    if bulk is not None:
        found, file_of, line_of = bulk
        image = np.array([gt.index_of_name[frame_of[name]] for name in known], np.int64)[file_of]
    else:
        found, image, file_of, line_of = _read_per_image_files(files, known, texts, frame_of, gt, dropped)
    facts = ReadFacts(unknown_frames=unknown)
    if unknown:
        facts.first["unknown_frames"] = files[unknown[0]][0]
    if len(files) > len(unknown):
        facts.images_without_file = gt.n_images - (len(files) - len(unknown))
    if not known:
        empty = Detections.empty(str(where), PER_IMAGE)
        empty.dropped, empty.facts = dropped, facts
        return empty

    x1, y1, x2, y2, score = found.T
    names = [files[n][0] for n in known]

    keep = _check_values(
        np.stack([x1, y1, x2 - x1, y2 - y1], 1),
        score,
        lambda k: (names[file_of[k]], int(line_of[k])),
        dropped,
        facts,
        "corner x2, y2 before x1, y1; lines are label x1 y1 x2 y2 score",
    )
    image = image[keep]
    x1, y1, x2, y2, score = x1[keep], y1[keep], x2[keep], y2[keep], score[keep]
    if options.devkit_shift:
        # The devkit's aggregator prints x1+1, y1+1, x2-x1, y2-y1 with %.4f and the score with %.8f,
        # then scores the printed numbers: round the same way.
        box = np.stack([_printed(x1 + 1, 4), _printed(y1 + 1, 4), _printed(x2 - x1, 4), _printed(y2 - y1, 4)], 1)
        score = _printed(score, 8)
    else:
        box = np.stack([x1, y1, x2 - x1, y2 - y1], 1)
    return Detections(image, box, score, str(where), PER_IMAGE, dropped, facts)


def _read_per_image_files(
    files: dict, known: list[str], texts: list[bytes] | None, frame_of: dict, gt: GroundTruth, dropped: Dropped | None
) -> tuple[np.ndarray, ...]:
    """Rows, image indices, file and line of each detection of per-image files read one by one
    (``texts`` holds them when they have been read)."""
    rows, images, sources, lines = (
        [np.zeros((0, 5))],
        [np.zeros(0, np.int64)],
        [np.zeros(0, np.int64)],
        [np.zeros(0, np.int64)],
    )
    for number, name in enumerate(known):
        source, read = files[name]
        text = texts[number] if texts is not None else read()
        file_rows, file_lines, labels = _parse_rows(decode_text(text, source), source, 5, label=True)
        bad = [k for k, label in enumerate(labels) if label.lower() != "person"]
        if bad and dropped is None:
            raise InputError(f"label {labels[bad[0]]!r} is not person", source, int(file_lines[bad[0]]))
        if bad:
            for k in bad:
                dropped.other_labels[labels[k]] = dropped.other_labels.get(labels[k], 0) + 1
            dropped.record("other_labels", 0, source, int(file_lines[bad[0]]))
            is_person = np.ones(len(labels), bool)
            is_person[bad] = False
            file_rows, file_lines = file_rows[is_person], file_lines[is_person]
        rows.append(file_rows)
        images.append(np.full(len(file_rows), gt.index_of_name[frame_of[name]], np.int64))
        sources.append(np.full(len(file_rows), number))
        lines.append(file_lines)
    return tuple(np.concatenate(parts) for parts in (rows, images, sources, lines))


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _printed(values: np.ndarray, decimals: int) -> np.ndarray:
    """The numbers printf's %.Nf prints (correctly rounded decimals), read back."""
    fmt = f"{{:.{decimals}f}}".format
    return np.array(list(map(float, map(fmt, values.tolist()))), np.float64)


# --- results of any class (the other benchmarks) ---------------------------------------------------
#
# The same formats on a ground truth of any benchmark (`kaist_kit.annotations.Annotations`: classes,
# image ids that are integers or strings), read with the same rules: every value checked, never
# coerced; a string that holds exactly a JSON number is read as that number and counted; files of the
# usual layout read in bulk, anything else by json.loads.


class ClassedTruth(Protocol):
    """What the readers need of a ground truth of any class (`kaist_kit.annotations.Annotations`)."""

    image_ids: list
    index_of_id: dict
    classes: list
    path: str | None

    @property
    def n_images(self) -> int: ...


@dataclass
class BoxDetections:
    """One method's detections of any class on a ground truth's images, in file order."""

    image: np.ndarray  # (D,) int64 index into the images
    category: np.ndarray  # (D,) int64 the class id as written (plus ReadOptions.category_offset)
    boxes: np.ndarray  # (D, 4) float64 x, y, w, h
    scores: np.ndarray  # (D,) float64
    source: str = ""
    format: ResultFormat | str | None = None
    dropped: Dropped | None = None
    facts: ReadFacts = field(default_factory=ReadFacts)

    def __post_init__(self) -> None:
        if not isinstance(self.format, ResultFormat):
            self.format = result_format(self.format or COCO.name)

    def __len__(self) -> int:
        return len(self.scores)


def load_box_detections(
    path: str | os.PathLike, truth: ClassedTruth, options: ReadOptions | None = None, *, on_invalid: str = "error"
) -> BoxDetections:
    """Read a result file (or an archive of one) of any class and map it onto ``truth``'s images, as
    ``options`` say: COCO result JSON whose image ids are the ground truth's, written as it writes
    them (integers or strings), with each detection's category_id; or, on a ground truth of one
    class, the leaderboard's txt (1-based positions in the ground truth's id order). With
    ``on_invalid="drop"``, detections with a non-finite number, a negative size or an unknown image
    are left out and counted in the result's ``dropped``."""
    path = Path(path)
    options = options or ReadOptions()
    if on_invalid not in ON_INVALID:
        raise ValueError(f"unknown on_invalid {on_invalid!r}; choose from {', '.join(ON_INVALID)}")
    dropped = Dropped() if on_invalid == "drop" else None
    try:
        is_folder = stat.S_ISDIR(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError("no such file or folder", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    if is_folder:
        raise InputError(
            "a folder of per-image files is the KAIST devkit's format; give the result file (COCO result JSON)", path
        )
    if is_archive(path):
        contents = {n: data for n, data in read_archive(path).items() if _listed(n)}
        files = [
            n for n in contents if n.lower().endswith((".json", ".txt")) and n.rpartition("/")[2] != SUBMISSION_MANIFEST
        ]
        if len(files) != 1:
            raise InputError(f"an archive must hold one result file (.json or .txt); found {len(files)}", path)
        return _read_classes(contents[files[0]], f"{path}/{files[0]}", truth, dropped, options)
    return _read_classes(read_bytes(path), str(path), truth, dropped, options)


def _read_classes(
    raw: bytes, where: str, truth: ClassedTruth, dropped: Dropped | None, options: ReadOptions
) -> BoxDetections:
    text = raw if raw.isascii() else decode_text(raw, where)
    fmt = options.result_format or _sniff(text, where)
    if fmt.read_classes is None:
        raise InputError(f"{fmt.title} name KAIST frames; give COCO result JSON", where)
    return fmt.read_classes(text, where, truth, dropped, options)


def read_coco_boxes(
    text: str | bytes,
    where: str,
    truth: ClassedTruth,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> BoxDetections:
    """Detections of any class of a COCO result JSON text; given as the bytes of an ASCII file, a list
    of records that hold only the usual keys with numbers (and string image ids where the ground
    truth's are strings) is read in bulk (`kaist_kit.bulkread`)."""
    options = options or ReadOptions()
    string_ids = _string_ids(truth)
    if string_ids and options.id_offset:
        raise InputError("--id-offset moves integer image ids; this ground truth's ids are strings", where)
    columns = coco_columns(text, classes=True, string_ids=string_ids) if isinstance(text, bytes) else None
    if columns is not None and (string_ids or _whole_ids(columns["image_id"])) and _whole_ids(columns["category_id"]):
        decoded = functools.cache(lambda: _decoded(text, where))
        ids = columns["image_id"] if string_ids else columns["image_id"].astype(np.int64)
        facts = ReadFacts(id_offset=options.id_offset, corners=options.corners, category_offset=options.category_offset)
        return _box_detections(
            ids,
            columns["bbox"],
            columns["score"],
            columns["category_id"].astype(np.int64),
            truth,
            where,
            lambda k: json_line(decoded(), k),
            dropped,
            options,
            facts,
        )
    records, line_of = _coco_records(text, where)
    return box_detections_from_records(records, truth, where, line_of, dropped, options)


def _string_ids(truth: ClassedTruth) -> bool:
    return bool(truth.image_ids) and isinstance(truth.image_ids[0], str)


def _whole_ids(ids: np.ndarray) -> bool:
    """Whether numbers read in bulk are whole and held exactly (ids, categories)."""
    return bool(np.all(np.abs(ids) < 2.0**53) and np.array_equal(ids, np.floor(ids)))


def box_detections_from_records(
    records: list,
    truth: ClassedTruth,
    where: str = "",
    line_of=lambda k: None,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> BoxDetections:
    """Detections of any class from COCO result records as `json.loads` gives them: the rules of
    `detections_from_coco`, with an image_id written as the ground truth writes its ids (a string where
    they are strings, else a whole number) and a category_id that is a whole number (COCO's evaluator
    reads both: a detection without them cannot be scored)."""
    options = options or ReadOptions()
    string_ids = _string_ids(truth)
    n = len(records)
    ids = np.empty(n, object if string_ids else np.int64)
    boxes = np.empty((n, 4), np.float64)
    scores = np.empty(n, np.float64)
    categories = np.empty(n, np.float64)  # whole numbers, checked record by record
    texts, first_text = 0, None
    for k, det in enumerate(records):
        image_id, as_text = _read_record(det, k, where, line_of, boxes, scores, categories, category_required=True)
        number = categories[k]
        if not (math.isfinite(number) and number == math.floor(number) and abs(number) < 2.0**53):
            raise _record_error(
                f"category_id {_json_type(det['category_id'])} is not a whole number (a class id)", k, where, line_of
            )
        if as_text:
            texts += 1
            first_text = k if first_text is None else first_text
        if string_ids:
            if not isinstance(image_id, str):
                raise _record_error(
                    f"image_id {_json_type(image_id)} is not among the ground truth's images (written "
                    f"as {'an integer' if _whole(image_id) else 'no string'}; the ground truth's ids "
                    f"are strings, {truth.image_ids[0]!r}, ..., and COCO's evaluator matches them as "
                    "written)",
                    k,
                    where,
                    line_of,
                )
            ids[k] = image_id
        else:
            if isinstance(image_id, str):
                raise _record_error(
                    f"image_id {image_id[:40]!r} is not among the ground truth's images (written as "
                    "a string; the ground truth's ids are integers)",
                    k,
                    where,
                    line_of,
                )
            if not _whole(image_id) or (isinstance(image_id, float) and not abs(image_id) < 2.0**53):
                raise _record_error(f"image_id {_json_type(image_id)} is not an integer", k, where, line_of)
            if not abs(image_id) < _ID_LIMIT:
                raise _record_error(
                    f"image id {image_id!r} is not in the ground truth: it is too large to be an image id",
                    k,
                    where,
                    line_of,
                )
            ids[k] = int(image_id)
    facts = ReadFacts(
        id_offset=options.id_offset,
        corners=options.corners,
        string_values=texts,
        category_offset=options.category_offset,
    )
    if first_text is not None:
        facts.first["string_values"] = location(where, line_of(first_text))
    return _box_detections(
        ids, boxes, scores, categories.astype(np.int64), truth, where, line_of, dropped, options, facts
    )


def _box_detections(
    ids: np.ndarray,
    boxes: np.ndarray,
    scores: np.ndarray,
    categories: np.ndarray,
    truth: ClassedTruth,
    where: str,
    line_of,
    dropped: Dropped | None,
    options: ReadOptions,
    facts: ReadFacts,
) -> BoxDetections:
    """Detections of any class from a result's columns: values checked, ids mapped, categories moved."""
    if options.corners:
        boxes[:, 2:] -= boxes[:, :2]
    keep = _check_values(boxes, scores, lambda k: (where, line_of(k)), dropped, facts, _layout(COCO, options.corners))
    strings = ids.dtype == object
    if strings:
        lookup = truth.index_of_id
        image = np.fromiter((lookup.get(i, -1) for i in ids), np.int64, len(ids))
    else:
        ids = ids + options.id_offset
        image = _index_of_ints(ids, truth)
    known = image >= 0
    if not known.all():
        if dropped is None:
            k = int(np.flatnonzero(~known)[0])
            written = ids[k] if strings else int(ids[k])
            raise InputError(
                f"image_id {written!r} is not among the ground truth's images ({_id_span(truth)}); "
                f"{int((~known).sum())} detections have unknown image ids{_box_id_hint(written, truth)}",
                where,
                line_of(k),
            )
        unknown = ~known & keep
        if unknown.any():
            counted: dict = {}
            for value in (ids[unknown] if strings else ids[unknown] - options.id_offset).tolist():
                counted[value] = counted.get(value, 0) + 1
            dropped.unknown_ids = dict(sorted(counted.items()))
            dropped.record("unknown_ids", 0, where, line_of(int(np.flatnonzero(unknown)[0])))
    keep &= known
    categories = categories + options.category_offset
    if not keep.all():
        image, categories, boxes, scores = image[keep], categories[keep], boxes[keep], scores[keep]
    return BoxDetections(
        image, categories, np.ascontiguousarray(boxes), np.ascontiguousarray(scores), where, COCO, dropped, facts
    )


def _index_of_ints(ids: np.ndarray, truth: ClassedTruth) -> np.ndarray:
    """The position of each integer id among the ground truth's images (in its order), -1 where none."""
    if not truth.n_images:
        return np.full(len(ids), -1, np.int64)
    written = np.array(truth.image_ids, np.int64)
    order = np.argsort(written, kind="stable")
    pos = np.minimum(np.searchsorted(written[order], ids), len(order) - 1)
    return np.where(written[order][pos] == ids, order[pos], -1)


def _id_span(truth: ClassedTruth) -> str:
    if not truth.n_images:
        return "none"
    return f"ids {min(truth.image_ids)!r}..{max(truth.image_ids)!r}"


def _box_id_hint(image_id, truth: ClassedTruth) -> str:
    if not truth.n_images:
        return ""
    if isinstance(image_id, str):
        if image_id.strip().lstrip("-").isdigit() and int(image_id) in truth.index_of_id:
            return " (written as a string; the ground truth's ids are integers)"
        return ""
    if str(image_id) in truth.index_of_id:
        return " (written as an integer; the ground truth's ids are strings)"
    if not _string_ids(truth) and image_id == max(truth.image_ids) + 1:
        return " (if the ids were written 1-based where the ground truth's are 0-based, read them with --id-offset -1)"
    return ""


def read_txt_boxes(
    text: str | bytes,
    where: str,
    truth: ClassedTruth,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> BoxDetections:
    """Detections of a leaderboard txt text on a ground truth of one class: the image id is the
    1-based position in the ground truth's id order, as the KAIST leaderboard's script reads it."""
    options = options or ReadOptions()
    if len(truth.classes) != 1:
        raise InputError(
            f"the leaderboard's txt holds no category, and this ground truth has "
            f"{len(truth.classes)} classes: write COCO result JSON (each detection's category_id)",
            where,
        )
    found = txt_rows(text, 6) if isinstance(text, bytes) else None
    rows, lines = found if found is not None else _parse_rows(_decoded(text, where), where, 6)
    ids = rows[:, 0]
    bad = ~((np.floor(ids) == ids) & (np.abs(ids) < _ID_LIMIT))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"image id {_field(text, lines[k], where)} is not a position 1..{truth.n_images}", where, int(lines[k])
        )
    boxes, scores = rows[:, 1:5].copy(), rows[:, 5].copy()
    facts = ReadFacts(id_offset=options.id_offset, corners=options.corners)
    if options.corners:
        boxes[:, 2:] -= boxes[:, :2]
    keep = _check_values(boxes, scores, lambda k: (where, int(lines[k])), dropped, facts, _layout(TXT, options.corners))
    position = ids.astype(np.int64) + options.id_offset - 1
    inside = (position >= 0) & (position < truth.n_images)
    if not inside.all():
        if dropped is None:
            k = int(np.flatnonzero(~inside)[0])
            hint = (
                " (ids of this format are 1-based: if they were written 0-based, read them with --id-offset 1)"
                if ids[k] == 0
                else ""
            )
            raise InputError(
                f"image id {int(ids[k])} is not in the ground truth (ids 1..{truth.n_images}, 1-based); "
                f"{int((~inside).sum())} detections have unknown ids{hint}",
                where,
                int(lines[k]),
            )
        unknown = ~inside & keep
        if unknown.any():
            written, counts = np.unique(ids[unknown].astype(np.int64), return_counts=True)
            dropped.unknown_ids = {int(i): int(c) for i, c in zip(written, counts)}
            dropped.record("unknown_ids", 0, where, int(lines[np.flatnonzero(unknown)[0]]))
    keep &= inside
    order = np.array(sorted(range(truth.n_images), key=truth.image_ids.__getitem__), np.int64)
    image = order[np.clip(position, 0, max(truth.n_images - 1, 0))] if truth.n_images else np.zeros(len(ids), np.int64)
    category = np.full(len(ids), truth.classes[0].id, np.int64)
    return BoxDetections(
        image[keep],
        category[keep],
        np.ascontiguousarray(boxes[keep]),
        np.ascontiguousarray(scores[keep]),
        where,
        TXT,
        dropped,
        facts,
    )


# --- the formats ----------------------------------------------------------------------------------

COCO = ResultFormat(
    "coco",
    "COCO result JSON",
    "JSON",
    read_coco_results,
    GT_IDS,
    0,
    "x, y, width, height",
    rereadable=True,
    devkit_shift=False,
    upload_suffix=".json",
    carries_category=True,
    read_classes=read_coco_boxes,
)
TXT = ResultFormat(
    "txt",
    "leaderboard txt",
    "txt",
    read_txt_results,
    POSITIONS,
    1,
    "x, y, width, height",
    rereadable=True,
    devkit_shift=False,
    upload_suffix=".txt",
    carries_category=False,
    read_classes=read_txt_boxes,
)
PER_IMAGE = ResultFormat(
    "per-image",
    "per-image files",
    "per-image files",
    read_per_image,
    FRAME_NAMES,
    None,
    "corners x1, y1, x2, y2",
    rereadable=False,
    devkit_shift=True,
    upload_suffix=None,
    carries_category=False,
)
RESULT_FORMATS = {spec.name: spec for spec in (COCO, TXT, PER_IMAGE)}
FORMATS = (AUTO, *RESULT_FORMATS)


def result_format(name: str | ResultFormat) -> ResultFormat:
    """The format of this name."""
    if isinstance(name, ResultFormat):
        return name
    try:
        return RESULT_FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown result format {name!r}; choose from {', '.join(RESULT_FORMATS)}") from None
