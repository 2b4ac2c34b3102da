"""Reading result files in every format the field uses, on the ground truth of any benchmark.

One reader per format (`ResultFormat`, `kaist_kit.data.detections`), and one loader that tells the
format of a file, a folder or an archive:

- ``coco``: COCO result JSON, ``[{"image_id", "category_id", "bbox": [x, y, w, h], "score"}]`` with the
  ground truth's image ids, written as it writes them (integers or strings). By KAIST's rules (one
  class) the category may be absent and must be the pedestrian's; on another benchmark every
  detection names its class (COCO's evaluator reads it).
- ``txt``: the leaderboard's text format ``image_id,x,y,w,h,score`` with 1-based image ids (the position
  in the ground truth's id order), on a ground truth of one class. The devkit's aggregated
  ``det-test-all.txt`` is the same format.
- ``per-image``: the devkit's folder of ``setXX_VYYY_IZZZZZ.txt`` files with lines
  ``person x1 y1 x2 y2 score``, on a benchmark whose frames have such flat names (KAIST). Read the
  devkit's way by default: its aggregator writes ``x1+1, y1+1, x2-x1, y2-y1`` with four decimals and
  the score with eight, and scores those numbers. ``ReadOptions(devkit_shift=False)`` reads a folder
  written without that shift as ``x1, y1, x2-x1, y2-y1``.
- any of these inside a ``.zip``, ``.tar``, ``.tar.gz`` or ``.tgz`` archive (a submission zip's
  ``manifest.json`` is not a result and is passed over).

Readers read exactly what the standard library reads, or refuse: a COCO file's values are those of
`json.loads` and must be numbers of the right shape (a bbox is a list of four numbers; a JSON
boolean is not a number); a string that holds exactly a JSON number is read as that number and
counted (the `string-values` finding: the leaderboard crashes on it), any other string is refused.
Text fields are read by `float`. Files of the usual layout are read in bulk (`kaist_kit.data.bulkread`),
bit for bit as the careful path reads them. A frame given twice in one folder or archive, and an
archive that holds per-image files beside another result file, are refused, naming both files.

Detections keep their file order, which decides ties between equal scores. Reading stops at the first
detection the evaluator cannot score (``on_invalid="error"``). The submission packager reads with
``on_invalid="drop"`` instead: such detections are left out or repaired, and counted in the result's
``dropped``, so that it can report what each costs. Readers warn about nothing: what they see that
scores but may be a mistake they count in the result's ``facts``.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..errors import where as location
from ..io.archives import is_archive, read_archive
from ..io.read import read_bytes
from ..io.text import decode_text, is_number, json_line, parse_json
from ..zoo.names import zoo_name
from .bulkread import coco_columns, labelled_rows, txt_rows
from .detections import (
    COCO,
    ON_INVALID,
    PER_IMAGE,
    POSITIONS,
    TXT,
    Detections,
    Dropped,
    ReadFacts,
    ReadOptions,
    ResultFormat,
    check_values,
)
from .groundtruth import GroundTruth
from .writers import CHALLENGE2024_CATEGORY, PERSON_CATEGORY

# What `kaist-kit submit` writes beside the results file in a submission zip.
SUBMISSION_MANIFEST = "manifest.json"
# Image ids are int64; a written id beyond this cannot be one.
_ID_LIMIT = 2.0**62
# A JSON number, as json.loads reads one (a string that holds exactly this is read as the number).
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
# The types of the numbers of a record as json.loads gives them (a bool is not one), and numpy's
# usual ones (a library caller's): a record of only these is read without further checks.
_FLOATS = frozenset({int, float, np.float64, np.float32, np.int64, np.int32})
_RECORD_KEYS = ("bbox",) * 4 + ("score", "category_id")

Members = dict  # name -> (where, reader of its bytes)


def load_detections(
    path: str | os.PathLike, truth: GroundTruth, options: ReadOptions | None = None, *, on_invalid: str = "error"
) -> Detections:
    """Read a result file, folder or archive and map its detections onto ``truth``'s images and
    classes, as ``options`` say (default: the format told from the file, the devkit's shift, ids and
    boxes as written).

    ``on_invalid="drop"`` leaves out detections with a non-finite number, a negative size, an image
    id outside the ground truth or a label other than person, reads any category_id as the one class
    (KAIST's rules), and counts each case in the result's ``dropped`` (malformed structure still stops
    the read).
    """
    options = options or ReadOptions()
    if on_invalid not in ON_INVALID:
        raise ValueError(f"unknown on_invalid {on_invalid!r}; choose from {', '.join(ON_INVALID)}")
    if zoo_name(path) is not None:  # a published result (kaist_kit.zoo): its kept file, read as its entry says
        from ..zoo.resolve import resolve_result

        path, options, text = resolve_result(path, truth, options)
        if text is not None:
            return _read_single(text, str(path), truth, Dropped() if on_invalid == "drop" else None, options)
    path = Path(path)
    try:
        is_folder = stat.S_ISDIR(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError("no such file or folder", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    dropped = Dropped() if on_invalid == "drop" else None
    if is_folder:
        if truth.benchmark.flat_pattern is None:
            raise InputError(
                "a folder of per-image files is the KAIST devkit's format; give the result file (COCO result JSON)",
                path,
            )
        # Everything but folders: a file that is not a regular one is refused when it is read.
        found = sorted(p for p in path.rglob("*") if _listed(p.relative_to(path).as_posix()) and not p.is_dir())
        members = {p.relative_to(path).as_posix(): (str(p), _LazyFile(p)) for p in found}
        return _read_members(members, path, truth, dropped, options, folder=True)
    if is_archive(path):
        contents = read_archive(path)
        members = {n: (f"{path}/{n}", (lambda data=data: data)) for n, data in contents.items() if _listed(n)}
        return _read_members(members, path, truth, dropped, options)
    return _read_single(read_bytes(path), str(path), truth, dropped, options)


def read_format(
    fmt: ResultFormat,
    text,
    where,
    truth: GroundTruth,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> Detections:
    """A format's reader on a file's text (str, or the bytes of an ASCII file); per-image files: on the
    files of a folder or an archive (name -> (where, reader)), by name."""
    return _READERS[fmt.name](text, where, truth, dropped, options)


def _listed(name: str) -> bool:
    """Whether a file of a folder or archive is one of its results' candidates: not hidden, not a
    macOS resource fork."""
    return not any(part.startswith(".") for part in name.split("/")) and "__MACOSX" not in name.split("/")


def _frame_file(truth: GroundTruth) -> re.Pattern | None:
    """A per-image file's name: the benchmark's flat name of its frame, .txt (None where it has none)."""
    flat = truth.benchmark.flat_pattern
    return None if flat is None else re.compile(flat.pattern + r"\.txt$")


def _read_single(raw: bytes, where: str, truth: GroundTruth, dropped: Dropped | None, options: ReadOptions):
    # An ASCII file's bytes are its text: the readers take them as they are, and decode them only
    # to read them the careful way.
    text = raw if raw.isascii() else decode_text(raw, where)
    fmt = options.result_format or _sniff(text, where)
    if fmt.flat_files:
        pattern = _frame_file(truth)
        if pattern is None:
            raise InputError(f"{fmt.title} name KAIST frames; give COCO result JSON", where)
        if not pattern.search(Path(where).name):
            raise InputError("a per-image result file must be named setXX_VYYY_IZZZZZ.txt", where)
        return read_format(fmt, {Path(where).name: (where, lambda: raw)}, where, truth, dropped, options)
    return read_format(fmt, text, where, truth, dropped, options)


def _read_members(
    members: Members, where: Path, truth: GroundTruth, dropped: Dropped | None, options: ReadOptions, folder=False
) -> Detections:
    """The result of a folder's or an archive's files (``members``: name -> (where, reader)): its
    per-image files, or its one result file (a submission's manifest aside)."""
    pattern = _frame_file(truth)
    frames: dict[str, str] = {}
    for name in members if pattern is not None else ():
        base = name.rpartition("/")[2]
        if pattern.search(base):
            if base in frames:
                raise InputError(
                    f"two per-image files of frame {truth.benchmark.frame(base)}: {members[frames[base]][0]} and "
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
    if frames and (fmt is None or fmt.flat_files):
        files = {base: members[name] for base, name in frames.items()}
        return read_format(PER_IMAGE, files, where, truth, dropped, options)
    if folder:
        raise InputError("a folder of results must hold per-image setXX_VYYY_IZZZZZ.txt files", where)
    if len(others) != 1:
        kinds = " or per-image files" if pattern is not None else ""
        raise InputError(
            f"an archive must hold one result file (.json or .txt){kinds}; found {len(others)} result files",
            where,
        )
    member, read = members[others[0]]
    return _read_single(read(), member, truth, dropped, options)


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


def read_coco(
    text: str | bytes,
    where: str,
    truth: GroundTruth,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> Detections:
    """Detections of a COCO result JSON text; given as the bytes of an ASCII file, a list of records
    that hold only the usual keys with numbers (and string image ids where the ground truth's are
    strings) is read in bulk (`kaist_kit.data.bulkread`)."""
    options = options or ReadOptions()
    strings = truth.string_ids
    if strings and options.id_offset:
        raise InputError("--id-offset moves integer image ids; this ground truth's ids are strings", where)
    classes = not truth.benchmark.truth_rules.one_class
    columns = coco_columns(text, classes=classes, string_ids=strings) if isinstance(text, bytes) else None
    if columns is not None and _plain_columns(columns, truth, dropped):
        decoded = functools.lru_cache(maxsize=None)(lambda: _decoded(text, where))
        ids = columns["image_id"] if strings else columns["image_id"].astype(np.int64)
        facts = _facts(options)
        return _coco_detections(
            ids, columns["bbox"], columns["score"], columns["category_id"], truth, where,
            lambda k: json_line(decoded(), k), dropped, options, facts,
        )  # fmt: skip
    records, line_of = _coco_records(text, where)
    return detections_from_coco(records, truth, where, line_of, dropped, options)


def _facts(options: ReadOptions, **counted) -> ReadFacts:
    return ReadFacts(
        id_offset=options.id_offset, corners=options.corners, category_offset=options.category_offset, **counted
    )


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


def _plain_columns(columns: dict, truth: GroundTruth, dropped: Dropped | None) -> bool:
    """Whether columns read in bulk hold nothing the record-by-record read words from the records
    themselves: image ids that are not integers an int64 holds exactly (where they are integers),
    categories that are not whole numbers, or, by KAIST's rules in a strict read, categories other than
    the pedestrian's or the 2024 challenge's for every detection."""
    ids, categories = columns["image_id"], columns["category_id"]
    if not truth.string_ids and not _whole(ids):
        return False
    if not truth.benchmark.truth_rules.one_class:
        return _whole(categories)
    return bool(
        dropped is not None or np.all(categories == PERSON_CATEGORY) or np.all(categories == CHALLENGE2024_CATEGORY)
    )


def _whole(values: np.ndarray) -> bool:
    """Whether numbers read in bulk are whole and held exactly (ids, categories)."""
    return bool(np.all(np.abs(values) < 2.0**53) and np.array_equal(values, np.floor(values)))


def detections_from_coco(
    records: list,
    truth: GroundTruth,
    where: str = "",
    line_of=lambda k: None,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> Detections:
    """Detections from COCO result records as `json.loads` gives them.

    Every value is checked, never coerced: a bbox is a list of four numbers, a score and a category
    are numbers (a JSON boolean is not one); an image_id is written as the ground truth writes its ids
    (a string where they are strings, else a whole number); on another benchmark than KAIST a
    category_id is a whole number (a class id). A string that holds exactly a JSON number is read as
    that number and counted in the result's ``facts``; anything else stops the read with the record's
    line. With ``dropped`` (a lenient read), detections with a value the evaluator cannot score
    (non-finite, negative size, unknown image) are left out and counted there.
    """
    options = options or ReadOptions()
    strings = truth.string_ids
    required = not truth.benchmark.truth_rules.one_class
    n = len(records)
    ids = np.empty(n, object if strings else np.int64)
    boxes = np.empty((n, 4), np.float64)
    scores = np.empty(n, np.float64)
    categories = np.empty(n, np.float64)
    texts, first_text = 0, None
    for k, det in enumerate(records):
        image_id, as_text = _read_record(det, k, where, line_of, boxes, scores, categories, required)
        if as_text:
            texts += 1
            first_text = k if first_text is None else first_text
        if required and not _whole(categories[k : k + 1]):
            raise _record_error(
                f"category_id {_json_type(det['category_id'])} is not a whole number (a class id)", k, where, line_of
            )
        ids[k] = _record_id(image_id, strings, k, where, line_of, truth)
    facts = _facts(options, string_values=texts)
    if first_text is not None:
        facts.first["string_values"] = location(where, line_of(first_text))
    return _coco_detections(
        ids, boxes, scores, categories, truth, where, line_of, dropped, options, facts,
        lambda k: records[k].get("category_id"),
    )  # fmt: skip


def _record_id(image_id, strings: bool, k: int, where: str, line_of, truth: GroundTruth):
    """A record's image id, checked against the way the ground truth writes its ids."""
    if strings:
        if not isinstance(image_id, str):
            raise _record_error(
                f"image_id {_json_type(image_id)} is not among the ground truth's images (written as "
                f"{'an integer' if _whole_number(image_id) else 'no string'}; the ground truth's ids are "
                f"strings, {truth.image_ids[0]!r}, ..., and COCO's evaluator matches them as written)",
                k,
                where,
                line_of,
            )
        return image_id
    if not _whole_number(image_id) or (isinstance(image_id, float) and not abs(image_id) < 2.0**53):
        hint = " (written as a string; the ground truth's ids are integers)" if isinstance(image_id, str) else ""
        raise _record_error(f"image_id {_json_type(image_id)} is not an integer{hint}", k, where, line_of)
    if not abs(image_id) < _ID_LIMIT:
        raise _record_error(
            f"image id {image_id!r} is not in the ground truth: it is too large to be an image id", k, where, line_of
        )
    return int(image_id)


def _read_record(
    det, k: int, where: str, line_of, boxes: np.ndarray, scores: np.ndarray, categories: np.ndarray, required: bool
) -> tuple[object, bool]:
    """Read COCO result record ``k`` into row k of the columns: its four box numbers, score and
    category_id (the pedestrian's when absent, unless ``required``), each read as `_number` reads it.
    Returns its image_id as written (for the caller to check) and whether a number was written as text."""
    if not isinstance(det, dict):
        raise _record_error(f"a detection must be a JSON object, not {_json_type(det)}", k, where, line_of)
    try:
        image_id, bbox, score = det["image_id"], det["bbox"], det["score"]
        category = det["category_id"] if required else det.get("category_id", PERSON_CATEGORY)
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


def _whole_number(value) -> bool:
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
    truth: GroundTruth,
    where: str,
    line_of,
    dropped: Dropped | None,
    options: ReadOptions,
    facts: ReadFacts,
    category_of=None,
) -> Detections:
    """Detections of a COCO result's columns: values checked, categories read, ids mapped.
    ``category_of(k)`` is detection k's category as written, for the error of a strict read."""
    if options.corners:
        boxes[:, 2:] -= boxes[:, :2]
    keep = check_values(boxes, scores, lambda k: (where, line_of(k)), dropped, facts, _layout(COCO, options.corners))
    if truth.benchmark.truth_rules.one_class:
        category = _one_class(categories, truth, where, line_of, dropped, facts, category_of)
    else:
        category = categories.astype(np.int64) + options.category_offset
    if truth.string_ids:
        image = np.fromiter((truth.index_of_id.get(i, -1) for i in ids), np.int64, len(ids))
    else:
        ids = ids + options.id_offset
        image = _index_of_ids(ids, truth)
    known = _check_ids(image >= 0, ids, truth, line_of, where, COCO, dropped, keep, options.id_offset)
    return _kept(image, boxes, scores, category, keep & known, where, COCO, dropped, facts)


def _one_class(categories, truth: GroundTruth, where, line_of, dropped, facts: ReadFacts, category_of) -> np.ndarray:
    """The class of every detection by KAIST's rules: the pedestrian's. A category other than the
    pedestrian's stops a strict read (the leaderboard crashes on it) unless every detection has the
    2024 challenge's category 0; a lenient read takes every detection as a pedestrian and counts the
    others (a category of 0 is usually a class index counted from 0)."""
    bad = np.flatnonzero(categories != PERSON_CATEGORY)
    n = len(categories)
    facts.challenge_category = n > 0 and len(bad) == n and bool(np.all(categories == CHALLENGE2024_CATEGORY))
    if len(bad) and dropped is not None:
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
    return np.full(n, truth.classes[0].id, np.int64)


def _kept(image, boxes, scores, category, keep, where, fmt: ResultFormat, dropped, facts) -> Detections:
    """The detections of ``keep``: the arrays themselves when every one is kept (a copy of millions
    of boxes saved)."""
    if not keep.all():
        image, boxes, scores, category = image[keep], boxes[keep], scores[keep], category[keep]
    return Detections(
        image, np.ascontiguousarray(boxes), np.ascontiguousarray(scores), where, fmt, dropped, facts, category
    )


def _layout(fmt: ResultFormat, corners: bool) -> str:
    """How the boxes of a COCO or txt file are read, for the message about a negative size."""
    return "boxes are read as corners [x1, y1, x2, y2]" if corners else f"boxes are [{fmt.layout}]"


def _index_of_ids(ids: np.ndarray, truth: GroundTruth) -> np.ndarray:
    """The index of each integer id among the ground truth's (ascending) ids, -1 where none."""
    if not truth.n_images:
        return np.full(len(ids), -1, np.int64)
    pos = np.minimum(np.searchsorted(truth.image_ids, ids), truth.n_images - 1)
    return np.where(truth.image_ids[pos] == ids, pos, -1).astype(np.int64)


def _check_ids(
    known: np.ndarray,
    ids: np.ndarray,
    truth: GroundTruth,
    line_of,
    where: str,
    fmt: ResultFormat,
    dropped: Dropped | None,
    valid: np.ndarray,
    id_offset: int = 0,
) -> np.ndarray:
    """``known``, once an unknown id (``ids``: as read, ``id_offset`` added) has stopped a strict read, or
    been counted (as written) among the ``valid`` detections of a lenient one."""
    if known.all():
        return known
    if dropped is not None:
        unknown = ~known & valid
        if unknown.any():
            counted: dict = {}
            for value in (ids[unknown] if ids.dtype == object else ids[unknown] - id_offset).tolist():
                counted[value] = counted.get(value, 0) + 1
            dropped.unknown_ids = dict(sorted(counted.items()))
            dropped.record("unknown_ids", 0, where, line_of(int(np.flatnonzero(unknown)[0])))
        return known
    k = int(np.flatnonzero(~known)[0])
    value = ids[k] if isinstance(ids[k], str) else int(ids[k])
    raise InputError(
        f"image id {value!r} is not in the ground truth (ids {_span(fmt, truth)}); {int((~known).sum())} "
        f"detections have unknown ids{_id_hint(value, truth, fmt)}",
        where,
        line_of(k),
    )


def _span(fmt: ResultFormat, truth: GroundTruth) -> str:
    if fmt.image_ids == POSITIONS:
        return f"1..{truth.n_images}, 1-based"
    if not truth.n_images:
        return "none"
    ids = truth.image_ids.tolist()
    return f"{ids[0]!r}..{ids[-1]!r}"


def _id_hint(value, truth: GroundTruth, fmt: ResultFormat) -> str:
    """Why an id as read may be unknown: written with the other base, or as the other type."""
    if fmt.image_ids == POSITIONS:
        if value == 0:
            return " (ids of this format are 1-based: if they were written 0-based, read them with --id-offset 1)"
        return ""
    if isinstance(value, str):
        if value.strip().lstrip("-").isdigit() and int(value) in truth.index_of_id:
            return " (written as a string; the ground truth's ids are integers)"
        return ""
    if truth.string_ids:
        return " (written as an integer; the ground truth's ids are strings)" if str(value) in truth.index_of_id else ""
    if truth.n_images and value == int(truth.image_ids[-1]) + 1:
        return (
            " (COCO results use the ground truth's 0-based ids: if they were written 1-based, read them with "
            "--id-offset -1)"
        )
    return ""


# --- leaderboard txt -------------------------------------------------------------------------------


def read_txt(
    text: str | bytes,
    where: str,
    truth: GroundTruth,
    dropped: Dropped | None = None,
    options: ReadOptions | None = None,
) -> Detections:
    """Detections of a leaderboard txt text on a ground truth of one class (the image id is the 1-based
    position in the ground truth's id order, as the KAIST leaderboard's script reads it); given as the
    bytes of an ASCII file whose every line is a detection, it is read in bulk (`kaist_kit.data.bulkread`)."""
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
    whole = np.floor(ids) == ids
    if not np.all(whole):
        k = int(np.flatnonzero(~whole)[0])
        raise InputError(f"image id {_field(text, lines[k], where)} is not an integer", where, int(lines[k]))
    huge = ~(np.abs(ids) < _ID_LIMIT)
    if huge.any():
        k = int(np.flatnonzero(huge)[0])
        raise InputError(
            f"image id {_field(text, lines[k], where)} is not in the ground truth (ids "
            f"1..{truth.n_images}, 1-based): it is too large to be an image id",
            where,
            int(lines[k]),
        )
    boxes, scores = rows[:, 1:5].copy(), rows[:, 5].copy()

    def line_of(k: int) -> int:
        return int(lines[k])

    if options.corners:
        boxes[:, 2:] -= boxes[:, :2]
    facts = _facts(options)
    keep = check_values(boxes, scores, lambda k: (where, line_of(k)), dropped, facts, _layout(TXT, options.corners))
    read = ids.astype(np.int64) + options.id_offset
    index = read - 1
    known = (index >= 0) & (index < truth.n_images)
    known = _check_ids(known, read, truth, line_of, where, TXT, dropped, keep, options.id_offset)
    image = np.where(known, index, 0)
    category = np.full(len(ids), truth.classes[0].id, np.int64)
    return _kept(image, boxes, scores, category, keep & known, where, TXT, dropped, facts)


def _field(text: str | bytes, line: int, where: str) -> str:
    """The first field of a line as written (for a number that reads back differently)."""
    return _decoded(text, where).splitlines()[int(line) - 1].replace(",", " ").split()[0]


def _parse_rows(text: str, where: str, ncols: int, label: bool = False):
    """Numeric rows of a comma- or space-separated text, and their 1-based line numbers (and each
    line's first field, with ``label``)."""
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
        return rows, np.array(lines, np.int64), labels
    return rows, np.array(lines, np.int64)


def _is_header(line: str) -> bool:
    """A line of column names: words only, no number."""
    parts = line.replace(",", " ").split()
    return bool(parts) and any(p[:1].isalpha() for p in parts) and not any(is_number(p) for p in parts)


def _header_error(line: str, where, number: int) -> InputError:
    return InputError(f"a header line ({line.strip()[:60]!r}); result files have none: remove it", where, number)


# --- per-image files -------------------------------------------------------------------------------


def read_per_image(
    files: Members, where, truth: GroundTruth, dropped: Dropped | None = None, options: ReadOptions | None = None
) -> Detections:
    """Detections of per-image files (``files``: file name -> (where, reader)), each file's lines
    ``label x1 y1 x2 y2 score`` for the frame its name gives; read in bulk when every line is a
    person's (`kaist_kit.data.bulkread`)."""
    options = options or ReadOptions()
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
    frame_of = {name: truth.benchmark.frame(name) for name in files}
    known = [name for name in sorted(files) if frame_of[name] in truth.index_of_name]
    unknown = [name for name in sorted(files) if frame_of[name] not in truth.index_of_name]
    try:
        texts = [files[name][1]() for name in known]
    except InputError:  # said when that file's turn comes
        texts = None
    bulk = labelled_rows(texts, b"person", 5) if texts is not None else None
    if bulk is not None:
        found, file_of, line_of = bulk
        image = np.array([truth.index_of_name[frame_of[name]] for name in known], np.int64)[file_of]
    else:
        found, image, file_of, line_of = _read_per_image_files(files, known, texts, frame_of, truth, dropped)
    facts = ReadFacts(unknown_frames=unknown)
    if unknown:
        facts.first["unknown_frames"] = files[unknown[0]][0]
    if len(files) > len(unknown):
        facts.images_without_file = truth.n_images - (len(files) - len(unknown))
    if not known:
        empty = Detections.empty(str(where), PER_IMAGE)
        empty.dropped, empty.facts = dropped, facts
        return empty

    x1, y1, x2, y2, score = found.T
    names = [files[n][0] for n in known]
    keep = check_values(
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
    category = np.full(len(score), truth.classes[0].id, np.int64)
    return Detections(image, box, score, str(where), PER_IMAGE, dropped, facts, category)


def _read_per_image_files(files: Members, known: list, texts, frame_of: dict, truth: GroundTruth, dropped):
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
        images.append(np.full(len(file_rows), truth.index_of_name[frame_of[name]], np.int64))
        sources.append(np.full(len(file_rows), number))
        lines.append(file_lines)
    return tuple(np.concatenate(parts) for parts in (rows, images, sources, lines))


def _plain_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _printed(values: np.ndarray, decimals: int) -> np.ndarray:
    """The numbers printf's %.Nf prints (correctly rounded decimals), read back."""
    fmt = f"{{:.{decimals}f}}".format
    return np.array(list(map(float, map(fmt, values.tolist()))), np.float64)


_READERS = {COCO.name: read_coco, TXT.name: read_txt, PER_IMAGE.name: read_per_image}
