"""Reading detection results in every format the KAIST community uses.

Formats (see docs/formats.md):

- ``coco``: COCO result JSON, ``[{"image_id", "category_id", "bbox": [x, y, w, h], "score"}]`` with
  the ground truth's (0-based) image ids.
- ``txt``: the leaderboard's text format ``image_id,x,y,w,h,score`` with 1-based image ids (the
  position in the ground truth's id order). The devkit's aggregated ``det-test-all.txt`` is the
  same format.
- ``per-image``: the devkit's folder of ``setXX_VYYY_IZZZZZ.txt`` files with lines
  ``person x1 y1 x2 y2 score``. Read the devkit's way by default: its aggregator writes
  ``x1+1, y1+1, x2-x1, y2-y1`` with four decimals and the score with eight, and scores those numbers.
  ``devkit_shift=False`` reads a folder written without that shift as ``x1, y1, x2-x1, y2-y1``.
- any of these inside a ``.zip``, ``.tar``, ``.tar.gz`` or ``.tgz`` archive (a submission zip's
  ``manifest.json`` is not a result and is passed over).

Detections keep their file order, which decides ties between equal scores.

Reading stops at the first detection the evaluator cannot score (``on_invalid="error"``). The
submission packager reads with ``on_invalid="drop"`` instead: such detections are left out or
repaired, and counted in the result's ``dropped``, so that it can report what each costs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import InputError, warn
from .errors import where as location
from .files import decode_text, is_archive, is_number, json_line, parse_json, read_archive, read_bytes
from .groundtruth import GroundTruth

FORMATS = ("auto", "coco", "txt", "per-image")
ON_INVALID = ("error", "drop")
PERSON_CATEGORY = 1
# What `kaist-kit submit` writes beside the results file in a submission zip.
SUBMISSION_MANIFEST = "manifest.json"
_FRAME_FILE = re.compile(r"(set\d\d)_(V\d\d\d)_(I\d{5})\.txt$")


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

    def record(self, reason: str, count: int, path, line: int | None) -> None:
        if reason in ("non_finite", "negative_size"):
            setattr(self, reason, getattr(self, reason) + int(count))
        self.first.setdefault(reason, location(path, line))


@dataclass
class Detections:
    """Detections mapped onto a ground truth's images, in file order."""

    image: np.ndarray  # (D,) int64 index into GroundTruth images
    boxes: np.ndarray  # (D, 4) float64 x, y, w, h
    scores: np.ndarray  # (D,) float64
    source: str = ""
    format: str = ""
    dropped: Dropped | None = None  # set by a read with on_invalid="drop"

    def __len__(self) -> int:
        return len(self.scores)

    @classmethod
    def empty(cls, source: str = "", format: str = "") -> Detections:
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


def load_detections(path: str | os.PathLike, gt: GroundTruth, format: str = "auto",
                    devkit_shift: bool = True, on_invalid: str = "error", id_offset: int = 0) -> Detections:
    """Read a result file, folder or archive and map its detections onto ``gt``'s images.

    ``on_invalid="drop"`` leaves out detections with a non-finite number, a negative size, an image
    id outside the ground truth or a label other than person, reads any category_id as person, and
    counts each case in the result's ``dropped`` (malformed structure still stops the read).
    ``id_offset`` is added to the image ids of a COCO or txt file before they are mapped: -1 reads a
    COCO file written with 1-based ids.
    """
    path = Path(path)
    if format not in FORMATS:
        raise ValueError(f"unknown result format {format!r}; choose from {', '.join(FORMATS)}")
    if on_invalid not in ON_INVALID:
        raise ValueError(f"unknown on_invalid {on_invalid!r}; choose from {', '.join(ON_INVALID)}")
    if not path.exists():
        raise InputError("no such file or folder", path)
    dropped = Dropped() if on_invalid == "drop" else None
    if path.is_dir():
        files = {p.name: p for p in sorted(path.rglob("*.txt")) if _FRAME_FILE.search(p.name)}
        if format not in ("auto", "per-image") or not files:
            raise InputError("a folder of results must hold per-image setXX_VYYY_IZZZZZ.txt files", path)
        return _read_per_image({name: (str(p), _LazyFile(p)) for name, p in files.items()},
                               gt, path, devkit_shift, dropped)
    if is_archive(path):
        return _read_archive(path, gt, format, devkit_shift, dropped, id_offset)
    raw = read_bytes(path)
    return _read_single(raw, str(path), gt, format, devkit_shift, dropped, id_offset)


def _read_single(raw: bytes, where: str, gt: GroundTruth, format: str, devkit_shift: bool,
                 dropped: Dropped | None = None, id_offset: int = 0) -> Detections:
    text = decode_text(raw, where)
    if format == "auto":
        format = _sniff(text, where)
    if format == "coco":
        return read_coco_results(text, where, gt, dropped, id_offset)
    if format == "txt":
        return read_txt_results(text, where, gt, dropped, id_offset)
    name = Path(where).name
    if not _FRAME_FILE.search(name):
        raise InputError("a per-image result file must be named setXX_VYYY_IZZZZZ.txt", where)
    return _read_per_image({name: (where, lambda: raw)}, gt, where, devkit_shift, dropped)


def _sniff(text: str, where: str) -> str:
    head = text.lstrip()[:1]
    if head in ("[", "{"):
        return "coco"
    if not head:
        return "txt"
    first = text.lstrip().split("\n", 1)[0]
    if first[:1].isalpha():
        raise InputError(
            "looks like a single per-image file (label x1 y1 x2 y2 score); pass the folder that holds "
            "all of them", where, 1)
    return "txt"


class _LazyFile:
    def __init__(self, path: Path):
        self.path = path

    def __call__(self) -> bytes:
        return read_bytes(self.path)


def _read_archive(path: Path, gt: GroundTruth, format: str, devkit_shift: bool,
                  dropped: Dropped | None = None, id_offset: int = 0) -> Detections:
    members: dict[str, tuple[str, object]] = {}
    contents = {n: data for n, data in read_archive(path).items()
                if not Path(n).name.startswith(".") and "__MACOSX" not in n}
    frames = {Path(n).name: n for n in contents if _FRAME_FILE.search(Path(n).name)}
    if frames and format in ("auto", "per-image"):
        for name, member in frames.items():
            members[name] = (f"{path}/{member}", (lambda data=contents[member]: data))
        return _read_per_image(members, gt, path, devkit_shift, dropped)
    results = [n for n in contents if n.lower().endswith((".json", ".txt"))
               and Path(n).name != SUBMISSION_MANIFEST]
    if len(results) != 1:
        raise InputError(
            f"an archive must hold one result file (.json or .txt) or per-image files; found "
            f"{len(results)} result files", path)
    member = results[0]
    return _read_single(contents[member], f"{path}/{member}", gt, format, devkit_shift, dropped, id_offset)


def read_coco_results(text: str, where: str, gt: GroundTruth, dropped: Dropped | None = None,
                      id_offset: int = 0) -> Detections:
    data = parse_json(text, where)
    keys: tuple[str, ...] = ()
    if isinstance(data, dict) and isinstance(data.get("annotations"), list):
        data, keys = data["annotations"], ("annotations",)
    if not isinstance(data, list):
        raise InputError("COCO results must be a JSON list of detections", where, 1)
    return detections_from_coco(data, gt, where, lambda k: json_line(text, *keys, k), dropped, id_offset)


def detections_from_coco(records: list, gt: GroundTruth, where: str = "", line_of=lambda k: None,
                         dropped: Dropped | None = None, id_offset: int = 0) -> Detections:
    """Detections from COCO result records (dicts with image_id, bbox, score, category_id).

    With ``dropped`` (a lenient read), invalid detections are left out and counted there.
    """
    n = len(records)
    ids = np.empty(n, np.int64)
    boxes = np.empty((n, 4), np.float64)
    scores = np.empty(n, np.float64)
    categories = np.empty(n, np.float64)

    def fail(message: str, k: int) -> InputError:
        return InputError(message if where else f"detection {k}: {message}", where or None, line_of(k))

    for k, det in enumerate(records):
        try:
            image_id = det["image_id"]
            x, y, w, h = det["bbox"]
            boxes[k] = (x, y, w, h)
            scores[k] = det["score"]
            categories[k] = det.get("category_id", PERSON_CATEGORY)
        except KeyError as exc:
            raise fail(f"detection without '{exc.args[0]}'", k) from None
        except (TypeError, ValueError):
            raise fail("detection with a malformed image_id, bbox, score or category_id "
                       "(bbox must be 4 numbers [x, y, w, h])", k) from None
        if isinstance(image_id, bool) or not isinstance(image_id, (int, float, np.integer)) \
                or image_id != int(image_id):
            raise fail(f"image_id {image_id!r} is not an integer", k)
        ids[k] = int(image_id)
    keep = _check_values(boxes, scores, lambda k: (where, line_of(k)), dropped)
    bad = np.flatnonzero(categories != PERSON_CATEGORY)
    if len(bad) and dropped is not None:
        # A lenient read takes every detection as a person: a category of 0 is usually a class
        # index counted from 0. The counts let the packager say so, and other classes be removed.
        values, counts = np.unique(categories[bad], return_counts=True)
        dropped.recategorised = {_plain_number(v): int(c) for v, c in zip(values, counts)}
        dropped.record("recategorised", len(bad), where, line_of(int(bad[0])))
    elif len(bad):
        k = int(bad[0])
        raise fail(
            f"category_id {records[k].get('category_id')!r} is not person ({PERSON_CATEGORY}); "
            f"{len(bad)} detections have another category (the leaderboard crashes on them; "
            "`kaist-kit submit` rewrites every category to person)", k)
    image, known = _map_ids(ids + id_offset, gt, line_of, where, False, dropped, keep, id_offset)
    keep &= known
    dets = Detections(image[keep], boxes[keep], scores[keep], where, "coco", dropped)
    from .findings import _check_id_base

    _check_id_base(dets, gt, where, one_based=False)
    return dets


def read_txt_results(text: str, where: str, gt: GroundTruth, dropped: Dropped | None = None,
                     id_offset: int = 0) -> Detections:
    rows, lines = _parse_rows(text, where, 6)
    ids = rows[:, 0]
    whole = np.floor(ids) == ids
    if not np.all(whole):
        k = int(np.flatnonzero(~whole)[0])
        raise InputError(f"image id {ids[k]:g} is not an integer", where, int(lines[k]))
    boxes, scores = rows[:, 1:5].copy(), rows[:, 5].copy()

    def line_of(k: int) -> int:
        return int(lines[k])

    keep = _check_values(boxes, scores, lambda k: (where, line_of(k)), dropped)
    int_ids = ids.astype(np.int64) + id_offset
    image, known = _map_ids(int_ids, gt, line_of, where, True, dropped, keep, id_offset)
    keep &= known
    dets = Detections(image[keep], boxes[keep], scores[keep], where, "txt", dropped)
    from .findings import _check_id_base

    _check_id_base(dets, gt, where, one_based=True)
    return dets


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
            expected = ("label x1 y1 x2 y2 score" if label else "image_id,x,y,w,h,score")
            raise InputError(f"expected {expected}, found {len(parts) + label} fields", where, number)
        try:
            values.extend(float(p) for p in parts)
        except ValueError:
            bad = next(p for p in parts if not is_number(p))
            raise InputError(f"{bad!r} is not a number", where, number) from None
        lines.append(number)
    rows = np.array(values, np.float64).reshape(-1, ncols)
    if label:
        return rows, np.array(lines, np.int64), labels  # type: ignore[return-value]
    return rows, np.array(lines, np.int64)


def _check_values(boxes: np.ndarray, scores: np.ndarray, locate, dropped: Dropped | None = None,
                  layout: str = "boxes are [x, y, width, height]") -> np.ndarray:
    """Mask of the detections with finite numbers and sizes >= 0; any other stops a strict read.

    ``locate(k)`` gives the (file, line) of detection k; ``layout`` says how its lines are written,
    for the message about a negative size."""
    finite = np.isfinite(boxes).all(axis=1) & np.isfinite(scores)
    if not finite.all():
        k = int(np.flatnonzero(~finite)[0])
        if dropped is None:
            raise InputError(f"non-finite number in a detection ({(~finite).sum()} such detections)",
                             *locate(k))
        dropped.record("non_finite", (~finite).sum(), *locate(k))
    negative = finite & ((boxes[:, 2] < 0) | (boxes[:, 3] < 0))
    if negative.any():
        k = int(np.flatnonzero(negative)[0])
        if dropped is None:
            raise InputError(
                f"negative box size w={boxes[k, 2]:g}, h={boxes[k, 3]:g} ({negative.sum()} such "
                f"detections); {layout}", *locate(k))
        dropped.record("negative_size", negative.sum(), *locate(k))
    return finite & ~negative


def _map_ids(ids: np.ndarray, gt: GroundTruth, line_of, where: str, one_based: bool,
             dropped: Dropped | None = None, valid: np.ndarray | None = None,
             id_offset: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Ground-truth image index of every detection, and which ids are known.

    An unknown id stops a strict read; a lenient one counts the unknown ids (as written, before
    ``id_offset``) among the ``valid`` detections.
    """
    if one_based:
        index = ids - 1
        known = (index >= 0) & (index < gt.n_images)
    else:
        pos = np.searchsorted(gt.image_ids, ids)
        pos_clipped = np.minimum(pos, max(gt.n_images - 1, 0))
        known = (pos < gt.n_images) & (gt.image_ids[pos_clipped] == ids) if gt.n_images else \
            np.zeros(len(ids), bool)
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
            hint = " (ids of this format are 1-based: is this 0-based COCO output?)" if ids[k] == 0 else ""
        else:
            lo, hi = (int(gt.image_ids[0]), int(gt.image_ids[-1])) if gt.n_images else (0, -1)
            valid = f"{lo}..{hi}"
            hint = (" (COCO results use the ground truth's 0-based ids: were they written 1-based?)"
                    if gt.n_images and ids[k] == hi + 1 else "")
        raise InputError(
            f"image id {ids[k]} is not in the ground truth (ids {valid}); {(~known).sum()} detections "
            f"have unknown ids{hint}", where, line_of(k))
    return index.astype(np.int64), known


def _read_per_image(files: dict, gt: GroundTruth, where, devkit_shift: bool,
                    dropped: Dropped | None = None) -> Detections:
    rows, images, sources, lines = [], [], [], []
    unknown = []
    for name in sorted(files):
        frame = "/".join(_FRAME_FILE.search(name).groups())
        if frame not in gt.index_of_name:
            unknown.append(name)
            continue
        source, read = files[name]
        file_rows, file_lines, labels = _parse_rows(decode_text(read(), source), source, 5, label=True)
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
        images.append(np.full(len(file_rows), gt.index_of_name[frame], np.int64))
        sources.append(np.full(len(file_rows), len(sources)))
        lines.append(file_lines)
    if unknown:
        warn(f"{len(unknown)} per-image files name frames that are not in the ground truth "
             f"(first: {unknown[0]}); they are not scored", where)
    missing = gt.n_images - (len(files) - len(unknown))
    if missing and len(files) > len(unknown):
        warn(f"{missing} of the {gt.n_images} ground-truth images have no per-image file; read as "
             "images without detections (the devkit's aggregator would instead shift the id of every "
             "later image and score the folder wrongly)", where)
    if not rows:
        empty = Detections.empty(str(where), "per-image")
        empty.dropped = dropped
        return empty

    x1, y1, x2, y2, score = np.concatenate(rows).T
    names = [files[n][0] for n in sorted(files) if n not in unknown]
    file_of, line_of = np.concatenate(sources), np.concatenate(lines)

    keep = _check_values(np.stack([x1, y1, x2 - x1, y2 - y1], 1), score,
                         lambda k: (names[file_of[k]], int(line_of[k])), dropped,
                         "corner x2, y2 before x1, y1; lines are label x1 y1 x2 y2 score")
    image = np.concatenate(images)[keep]
    x1, y1, x2, y2, score = x1[keep], y1[keep], x2[keep], y2[keep], score[keep]
    if devkit_shift:
        # The devkit's aggregator prints x1+1, y1+1, x2-x1, y2-y1 with %.4f and the score with %.8f,
        # then scores the printed numbers: round the same way.
        box = np.stack([_printed(x1 + 1, 4), _printed(y1 + 1, 4), _printed(x2 - x1, 4),
                        _printed(y2 - y1, 4)], 1)
        score = _printed(score, 8)
    else:
        box = np.stack([x1, y1, x2 - x1, y2 - y1], 1)
    return Detections(image, box, score, str(where), "per-image", dropped)


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _printed(values: np.ndarray, decimals: int) -> np.ndarray:
    """The numbers printf's %.Nf prints (correctly rounded decimals), read back."""
    fmt = f"{{:.{decimals}f}}".format
    return np.array(list(map(float, map(fmt, values.tolist()))), np.float64)
