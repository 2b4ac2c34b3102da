"""What the leaderboard's and the 2024 challenge's evaluators do with an uploaded file.

Both scripts (the leaderboard's ``evaluation_script.py``, class ``KAIST``, in the MLPD repository, and the
2024 challenge's copy of it on EvalAI) load the one uploaded file the same way; docs/submission.md, "What
the evaluators accept", lists their rules. This module is a plain emulation of that loading, step by step
as the scripts take it, on the file's bytes: kaist-kit's own readers (stricter in places, more lenient in
others) play no part. `load_upload` gives either the exception the scripts raise (`Crash`) or the
detections they hold once loaded (`Loaded`); `outcome` says what each evaluator then does with them:

- ``crash``: it raises, and prints no number (more than 1,000 detections in an image, say);
- ``mis-score``: it prints a number that is not the protocol's (unsorted detections, other categories,
  splits without a detection, ...), given when the ground truth is at hand;
- ``correct``: it scores the file as the protocol defines.

The scripts open the file in text mode: UTF-8 is assumed (the scripts run with a UTF-8 locale), with
universal newlines (``\\r\\n`` and ``\\r`` end lines too). Their numbers come from Python's ``float()``
(txt) and ``json.load`` (JSON), which this module calls in the same way.
"""

from __future__ import annotations

import io
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kaist_kit.data.detections import Detections
from kaist_kit.data.groundtruth import GroundTruth
from kaist_kit.datasets import KAIST
from kaist_kit.errors import quantity
from kaist_kit.io.read import read_bytes
from kaist_kit.io.text import is_number, json_line
from kaist_kit.metrics.challenge import NO_MATCH, challenge2024_leaderboard, challenge2024_scores
from kaist_kit.metrics.evaluate import Evaluation, Result, evaluate
from kaist_kit.metrics.settings import LEADERBOARD, LEADERBOARD_SETTINGS

CRASH, MISSCORE, CORRECT = "crash", "mis-score", "correct"
# The scripts' own constants: the most detections an image may hold (maxDets), the 2,252 test images
# known by their ids 0..2251, the first 1,455 of them day (imgIds[:1455]), and the category a txt
# line is given.
MAX_PER_IMAGE = 1000
TEST_IMAGES = KAIST.test_images
DAY_IMAGES = KAIST.split("day").images
TXT_CATEGORY = 1
TXT_FIELDS = 6


@dataclass(frozen=True)
class Evaluator:
    """One of the two scripts: the category it scores, and what it prints."""

    name: str  # the target's name (submission.targets)
    label: str  # how lines of the check name it
    category: int  # it scores the detections of this category alone
    # The leaderboard's script prints recall_all, the last point of the 'all' curve: it raises
    # IndexError when that curve is empty. The 2024 script prints its columns, -1 where empty.
    prints_recall: bool


LEADERBOARD_SCRIPT = Evaluator("leaderboard", "leaderboard", 1, True)
CHALLENGE2024_SCRIPT = Evaluator("challenge2024", "2024 challenge", 0, False)
EVALUATORS = (LEADERBOARD_SCRIPT, CHALLENGE2024_SCRIPT)


@dataclass(frozen=True)
class Crash:
    """The exception an evaluator raises, as Python prints its last line, and what in the file raises it."""

    exception: str  # "ValueError: could not convert string to float: '\\n'"; "" where there is no upload
    where: str  # "line 5940", "detection 12 (line 40)", or ""
    cause: str  # what in the file raises it
    fix: str = ""  # the change by hand, where there is one

    def line(self) -> str:
        where = f" at {self.where}" if self.where else ""
        text = f"{self.exception}{where}: {self.cause}" if self.exception else self.cause
        return text + (f"; {self.fix}" if self.fix else "")


@dataclass(frozen=True)
class Loader:
    """One of the scripts' two readers, which they choose by the end of the uploaded file's name."""

    suffix: str
    rows: bool  # the file is read as rows of numbers (image_id - 1, x, y, w, h, score), not JSON records
    category: int | None  # the category it gives every detection; None: each record says its own


TXT_LOADER = Loader(".txt", rows=True, category=TXT_CATEGORY)
JSON_LOADER = Loader(".json", rows=False, category=None)


@dataclass
class Loaded:
    """The detections an evaluator holds once the file is loaded, in file order, as loaded: a txt
    file's lines as floats, a JSON file's records as ``json.load`` gives them."""

    loader: Loader
    records: list  # json: the list of dicts; txt: one (image_id, x, y, w, h, score) tuple per line
    text: str = ""  # a JSON file's text (for line numbers)
    notes: list[str] = field(default_factory=list)  # what loads but is worth saying

    def __len__(self) -> int:
        return len(self.records)

    @property
    def kind(self) -> str:
        """'txt' or 'json': the loader's name, as messages say it."""
        return self.loader.suffix[1:]

    def where(self, k: int) -> str:
        if self.loader.rows:
            return f"line {k + 1}"
        line = json_line(self.text, k) if self.text else None
        return f"detection {k}" + (f" (line {line})" if line else "")


# --- loading: the file's name, then its text -----------------------------------------------------


def load_upload(
    path: str | os.PathLike, name: str | None = None, data: bytes | None = None, image_ids=range(TEST_IMAGES)
) -> Crash | Loaded:
    """What both scripts make of the file at ``path`` uploaded as ``name`` (its own name by default):
    the exception they raise in loading it, or the detections they hold. ``data`` gives the bytes
    (an archive member's, say) instead of reading them; ``image_ids`` are the ground truth's ids."""
    path = Path(path)
    name = path.name if name is None else name
    if data is None and path.is_dir():
        return Crash(
            "",
            "",
            "a folder: the evaluators take one uploaded file, .json or .txt",
            "upload one results file (`kaist-kit submit` writes it)",
        )
    # The loader is chosen by the end of the name, case-sensitively (str.endswith).
    if name.endswith(TXT_LOADER.suffix):
        return _load_txt(read_bytes(path) if data is None else data, image_ids)
    if name.endswith(JSON_LOADER.suffix):
        return _load_json(read_bytes(path) if data is None else data, image_ids)
    extension = name.split(".")[-1]
    fix = (
        "rename it with a lower-case extension"
        if name.lower().endswith((".txt", ".json"))
        else "upload the results file itself, NAME.json or NAME.txt"
    )
    return Crash(
        f"Exception: [Error] Exception extension : {extension}",
        "",
        "the evaluators choose their reader by the file name's end, '.txt' or '.json' "
        "(case-sensitive), and raise on anything else",
        fix,
    )


def _text_lines(data: bytes) -> list[str] | Crash:
    """The file read as the scripts read it: text mode, UTF-8, universal newlines."""
    try:
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None).readlines()
    except UnicodeDecodeError:
        pass
    try:
        data.decode("utf-8")  # the error's position in the whole file, not in a chunk of it
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return Crash(
            f"UnicodeDecodeError: {exc}", f"line {line}", "bytes that are not UTF-8 text", "save the file as UTF-8 text"
        )
    raise AssertionError("a text that does not decode in pieces decodes whole")


def _load_txt(data: bytes, image_ids) -> Crash | Loaded:
    """`KAIST.txt2json`: every line, blank ones included, split at commas, each field read by float();
    then image_id = field 0 - 1, category 1, bbox = fields 1-4, score = field 5; then `loadRes`."""
    lines = _text_lines(data)
    if isinstance(lines, Crash):
        return lines
    rows, longer = [], 0
    for number, line in enumerate(lines, 1):
        values = []
        for piece in line.split(","):
            try:
                values.append(float(piece))
            except ValueError as exc:
                return Crash(f"ValueError: {exc}", f"line {number}", *_not_a_number(lines, number, piece))
        if len(values) < TXT_FIELDS:
            return Crash(
                "IndexError: list index out of range",
                f"line {number}",
                f"a line of {quantity(len(values), 'field')}, where the evaluator reads six (image_id,x,y,w,h,score)",
                "write six comma-separated fields on every line",
            )
        longer += len(values) > TXT_FIELDS
        rows.append((values[0] - 1, values[1], values[2], values[3], values[4], values[5]))
    loaded = Loaded(TXT_LOADER, rows)
    if longer:
        loaded.notes.append(
            f"{quantity(longer, 'line')} with more than six fields: the evaluator reads the "
            "first six and ignores the rest"
        )
    return _load_res_txt(loaded, image_ids)


def _not_a_number(lines: list[str], number: int, piece: str) -> tuple[str, str]:
    """(cause, fix) for a field of line ``number`` that float() refuses."""
    line = lines[number - 1]
    if not line.strip():
        rest = all(not later.strip() for later in lines[number:])
        if rest:
            return (
                "a blank line at the end of the file (a second newline after the last line): the evaluator "
                "reads every line, blank ones included",
                "end the file with a single newline",
            )
        return "a blank line: the evaluator reads every line, blank ones included", "remove the blank lines"
    if number == 1 and line.startswith("\ufeff"):
        return "a UTF-8 byte-order mark at the start of the file", "save the file without a byte-order mark"
    if not piece.strip() and line.rstrip("\r\n").endswith(","):
        return "a trailing comma: the empty field after it is not a number", "remove the trailing commas"
    if len(piece.split()) > 1 and all(is_number(p) for p in piece.split()):
        return (
            "fields separated by spaces or tabs, where the evaluator splits at commas alone",
            "separate the fields with commas",
        )
    if line.lstrip().startswith(("#", "%", "//")):
        return "a comment line", "remove the comment lines"
    if any(c.isalpha() for c in line) and not is_number(line.split(",")[0]):
        return "a header or text line", "remove the header line"
    return f"the field {piece.strip()[:40]!r} is not a number", "write numbers only"


def _load_json(data: bytes, image_ids) -> Crash | Loaded:
    """`json.load`, then COCO's `loadRes`."""
    lines = _text_lines(data)
    if isinstance(lines, Crash):
        return lines
    text = "".join(lines)
    try:
        records = json.loads(text)
    except json.JSONDecodeError as exc:
        if text.startswith("\ufeff"):
            return Crash(
                f"JSONDecodeError: {exc}",
                "",
                "a UTF-8 byte-order mark at the start of the file",
                "save the file without a byte-order mark",
            )
        return Crash(f"JSONDecodeError: {exc}", f"line {exc.lineno}", "not valid JSON")
    except RecursionError:
        return Crash("RecursionError: maximum recursion depth exceeded", "", "JSON nested too deeply")
    except ValueError as exc:  # an integer of more digits than Python converts
        return Crash(f"ValueError: {exc}", "", "a number the JSON reader refuses")
    return _load_res_json(Loaded(JSON_LOADER, records, text), image_ids)


# --- loading: COCO's loadRes and createIndex -------------------------------------------------------


def _load_res_txt(loaded: Loaded, image_ids) -> Crash | Loaded:
    """`loadRes` of the records a txt file gives (written to JSON and read back unchanged): the ids
    must be the ground truth's, and the list must not be empty."""
    known = set(image_ids)
    for k, row in enumerate(loaded.records):
        if row[0] not in known:
            return _unknown_id(loaded, k, row[0] + 1, known, one_based=True)
    if not loaded.records:
        return Crash(
            "IndexError: list index out of range",
            "",
            "an empty file: the evaluator reads the first detection to decide what the file holds",
            "write the detections",
        )
    return loaded


def _load_res_json(loaded: Loaded, image_ids) -> Crash | Loaded:
    anns = loaded.records
    if type(anns) is not list:
        what = "a JSON object" if isinstance(anns, dict) else f"a JSON {type(anns).__name__}"
        fix = (
            "upload the list alone (the value of 'annotations')"
            if isinstance(anns, dict) and isinstance(anns.get("annotations"), list)
            else "write a list of detections"
        )
        return Crash(
            "AssertionError: results in not an array of objects",
            "",
            f"{what} at the top level, where the evaluator asserts a list of detections",
            fix,
        )
    ids = []
    for k, ann in enumerate(anns):
        try:
            ids.append(ann["image_id"])
        except (KeyError, TypeError, IndexError) as exc:
            cause = (
                "a detection without 'image_id'"
                if isinstance(exc, KeyError)
                else f"an element that is a JSON {_json_type(ann)}, not an object"
            )
            return Crash(_exception(exc), loaded.where(k), cause)
    try:
        written = set(ids)
    except TypeError as exc:
        k = next(k for k, i in enumerate(ids) if not _hashable(i))
        return Crash(_exception(exc), loaded.where(k), f"an image_id that is a JSON {_json_type(ids[k])}")
    known = set(image_ids)
    if written != written & known:
        k = next(k for k, i in enumerate(ids) if i not in known)
        return _unknown_id(loaded, k, ids[k], known, one_based=False)
    if not anns:
        return Crash(
            "IndexError: list index out of range",
            "",
            "an empty list: the evaluator reads the first detection to decide what the file holds",
            "write the detections",
        )
    # The first element alone decides what every element is taken for.
    first = anns[0]
    if "caption" in first:
        branch = "caption"
    elif "bbox" in first and not first["bbox"] == []:
        branch = "bbox"
    elif "segmentation" in first or "keypoints" in first:
        kind = "segmentation" if "segmentation" in first else "keypoints"
        return Crash(
            "TypeError",
            loaded.where(0),
            f"the first detection has no box but '{kind}': the evaluator "
            f"reads every element as {kind} results (pycocotools' masks), which a detection file does "
            "not hold",
            "give every detection its bbox",
        )
    else:
        branch = "none"
    if branch == "bbox":
        for k, ann in enumerate(anns):
            try:
                box = ann["bbox"]
                # x2 and y2, then the area: the only use loadRes makes of the box.
                box[0] + box[2], box[1] + box[3]
                _times(box[2], box[3])
            except (KeyError, TypeError, IndexError, OverflowError) as exc:
                return Crash(
                    _exception(exc),
                    loaded.where(k),
                    _box_cause(ann, exc),
                    "write every bbox as four numbers [x, y, w, h]",
                )
    # createIndex: every result is indexed by its id (given above, but not to results the first element
    # left untaken) and, with the ground truth's categories copied (bbox results), by its category.
    for k, ann in enumerate(anns):
        if branch == "none":
            try:
                {ann["id"]: ann}
            except (KeyError, TypeError) as exc:
                return Crash(
                    _exception(exc),
                    loaded.where(k),
                    "the first detection has an empty bbox or none, so "
                    "the evaluator leaves every result without an 'id' and then indexes them by it",
                    "give every detection its bbox",
                )
    for k, ann in enumerate(anns):
        if branch == "bbox" or "category_id" not in ann:
            try:
                {ann["category_id"]: ann}
            except (KeyError, TypeError) as exc:
                cause = _absent_or_typed(exc, ann, "category_id", "a category_id that is a JSON {}")
                return Crash(_exception(exc), loaded.where(k), cause, "give every detection its category_id")
    return loaded


def _unknown_id(loaded: Loaded, k: int, written, known: set, one_based: bool) -> Crash:
    exception = "AssertionError: Results do not correspond to current coco set"
    first, last = (min(known), max(known)) if known else (0, -1)
    span = f"{first + 1}..{last + 1}, 1-based" if one_based else f"{first}..{last}"
    if isinstance(written, str):
        cause = f"the image_id {written!r} is a string; the ground truth's ids are the numbers {span}"
        fix = "write the ids as numbers"
    elif isinstance(written, float) and not written.is_integer():
        cause = f"the image id {written!r} is not a whole number; the ground truth's ids are {span}"
        fix = "write whole image ids"
    else:
        cause = f"the image id {_plain(written)} is not among the ground truth's, {span}"
        fix = (
            "the ids of a txt file are 1-based"
            if one_based and written == first
            else "the ids of COCO results are the ground truth's, 0-based"
            if not one_based and written == last + 1
            else ""
        )
    return Crash(exception, loaded.where(k), cause, fix)


def _times(a, b) -> None:
    """``a * b`` as Python computes it, without building a sequence repeated ``b`` times."""
    sequence = (str, list)
    if (isinstance(a, sequence) and isinstance(b, int)) or (isinstance(b, sequence) and isinstance(a, int)):
        return
    a * b


def _box_cause(ann, exc: Exception) -> str:
    if isinstance(exc, KeyError) and "bbox" not in ann:
        return "a detection without 'bbox'"
    box = ann.get("bbox")
    if isinstance(box, dict):
        return "a bbox written as a JSON object, not a list"
    if isinstance(box, list) and len(box) < 4:
        return f"a bbox of {quantity(len(box), 'number')}"
    if isinstance(box, list) and any(isinstance(v, str) for v in box[:4]):
        return "a bbox whose numbers are written as strings"
    return f"a bbox that is not four numbers ({json.dumps(box)[:60]})"


def _exception(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _absent_or_typed(exc: Exception, ann: dict, key: str, typed: str) -> str:
    """Why reading a detection's ``key`` failed: the detection lacks it (a KeyError), else ``typed`` naming
    the JSON type of its value."""
    return f"a detection without {key!r}" if isinstance(exc, KeyError) else typed.format(_json_type(ann[key]))


def _json_type(value) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _plain(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else repr(value)


# --- what each evaluator does with the detections it holds --------------------------------------


@dataclass
class Outcome:
    """What one evaluator does with an upload: its verdict, and why."""

    evaluator: Evaluator
    verdict: str  # CRASH, MISSCORE or CORRECT
    crash: Crash | None = None
    reasons: list[str] = field(default_factory=list)  # why it mis-scores
    # What it prints, with the ground truth: the leaderboard's MR_all, MR_day, MR_night and recall_all
    # (percent); the 2024 challenge's six columns (MR in percent, AP as fractions). None: not predicted.
    printed: dict[str, float] | None = None
    unpredicted: str = ""  # why the printed numbers are not given, when they are not
    results: list[Result] = field(default_factory=list)  # the kit's scores of what it holds (correct)
    notes: list[str] = field(default_factory=list)


def outcome(
    upload: Crash | Loaded, evaluator: Evaluator, gt: GroundTruth | None = None, server_ids: np.ndarray | None = None
) -> Outcome:
    """What ``evaluator`` does with an upload loaded by `load_upload`. ``gt`` (the test set's ground
    truth) gives the numbers it prints; ``server_ids`` is the evaluator's id of each of its images
    (default: the image ids)."""
    if isinstance(upload, Crash):
        return Outcome(evaluator, CRASH, upload)
    notes = list(upload.notes)
    scored, others = _scored(upload, evaluator)
    if isinstance(scored, Crash):
        return Outcome(evaluator, CRASH, scored, notes=notes)
    if gt is not None:
        ids = gt.image_ids if server_ids is None else server_ids
        annotated = set(np.asarray(ids)[np.diff(gt.ann_start) > 0].tolist())
    else:
        annotated = None
    problem = _evaluation_crash(upload, scored, annotated)
    if problem is not None:
        return Outcome(evaluator, CRASH, problem, notes=notes)
    reasons = []
    if others and scored:
        reasons.append(
            f"{quantity(others, 'detection')} of other categories than {evaluator.category}, which it never scores"
        )
    if not scored:
        given = upload.loader.category
        what = (
            f"a {upload.loader.suffix[1:]} file's detections are category {given}"
            if given is not None
            else f"no detection has category_id {evaluator.category}"
        )
        if evaluator.prints_recall:
            return Outcome(
                evaluator,
                CRASH,
                Crash(
                    "IndexError: list index out of range",
                    "",
                    f"it scores category {evaluator.category} alone, and {what}: its "
                    "curve is empty, and it reads the curve's last point",
                ),
                notes=notes,
            )
        reasons.append(
            f"it scores category {evaluator.category} alone, and {what}: it prints -1 in every AP "
            "column and -100 in every MR column"
        )
    columns = _columns(upload, scored)
    reasons += _value_reasons(columns)
    unsorted = _unsorted_images(columns)
    if gt is None:
        if unsorted:
            reasons.append(
                f"detections of {quantity(unsorted, 'image')} not in descending score order: it matches "
                "each detection with the overlaps of another of its image"
            )
        return Outcome(
            evaluator,
            MISSCORE if reasons else CORRECT,
            reasons=reasons,
            unpredicted="pass --gt FILE for the numbers it prints",
            notes=notes,
        )
    return _scored_outcome(evaluator, gt, server_ids, columns, reasons, unsorted, notes)


def _scored(upload: Loaded, evaluator: Evaluator) -> tuple[list[int] | Crash, int]:
    """The indices of the detections the evaluator scores (its category's), and how many others."""
    if upload.loader.category is not None:
        return (list(range(len(upload))) if evaluator.category == upload.loader.category else []), 0
    scored = []
    for k, ann in enumerate(upload.records):
        category = ann["category_id"]  # loadRes has checked that every result has one, or has none of it
        if not _hashable(category):
            return Crash(
                _exception(TypeError(f"unhashable type: '{type(category).__name__}'")),
                upload.where(k),
                "a category_id that is not a number",
            ), 0
        if category == evaluator.category:
            scored.append(k)
    return scored, len(upload) - len(scored)


def _evaluation_crash(upload: Loaded, scored: list[int], annotated: set | None) -> Crash | None:
    """What stops the evaluation of the scored detections: a score that is not a number (it sorts by
    -score), a box that is not numbers where the image has annotations to overlap, more than 1,000 in
    an image (its overlaps hold the 1,000 best, and it indexes them with every detection's rank)."""
    if upload.loader.rows:
        per_image: dict = {}
        for k in scored:
            per_image[upload.records[k][0]] = per_image.get(upload.records[k][0], 0) + 1
        return _crowded(upload, per_image)
    per_image, lengths = {}, {}
    for k in scored:
        ann = upload.records[k]
        try:
            -ann["score"]
        except (KeyError, TypeError) as exc:
            cause = _absent_or_typed(exc, ann, "score", "a score that is a JSON {}, not a number")
            return Crash(_exception(exc), upload.where(k), cause, "write every score as a number")
        image = ann["image_id"]
        box = ann.get("bbox")
        if not isinstance(box, list) or len(box) < 4:
            exc = KeyError("bbox") if box is None and "bbox" not in ann else IndexError("index 0 is out of bounds")
            return Crash(_exception(exc), upload.where(k), _box_cause(ann, exc), "write every bbox as four numbers")
        if (annotated is None or image in annotated) and not all(_is_number(v) for v in box[:4]):
            return Crash("TypeError", upload.where(k), _box_cause(ann, TypeError()), "write every bbox as four numbers")
        per_image[image] = per_image.get(image, 0) + 1
        lengths.setdefault(image, set()).add(len(box))
    ragged = next((image for image, sizes in lengths.items() if len(sizes) > 1), None)
    if ragged is not None:
        k = next(k for k in scored if upload.records[k]["image_id"] == ragged)
        return Crash(
            "ValueError: setting an array element with a sequence",
            upload.where(k),
            "boxes of different lengths in one image (numpy 1.24 and later refuse them)",
            "write every bbox as four numbers",
        )
    return _crowded(upload, per_image)


def _crowded(upload: Loaded, per_image: dict) -> Crash | None:
    crowded = {image: n for image, n in per_image.items() if n > MAX_PER_IMAGE}
    if not crowded:
        return None
    image, most = max(crowded.items(), key=lambda item: item[1])
    return Crash(
        f"IndexError: index {MAX_PER_IMAGE} is out of bounds for axis 0 with size {MAX_PER_IMAGE}",
        "",
        f"{quantity(len(crowded), 'image')} with more than {MAX_PER_IMAGE:,} detections (image "
        f"{_plain(image)}: {most:,}); the script then stops in its debugger",
        f"keep the {MAX_PER_IMAGE:,} highest-scored of each image",
    )


def _is_number(value) -> bool:
    return isinstance(value, (int, float))  # bool is an int, as numpy takes it


@dataclass
class _Columns:
    """The scored detections as numbers, in file order."""

    image: np.ndarray  # the evaluator's image id (int64)
    boxes: np.ndarray  # (D, 4) float64
    scores: np.ndarray  # float64
    huge: int = 0  # integers beyond the float range, which the evaluator keeps as Python ints


def _columns(upload: Loaded, scored: list[int]) -> _Columns:
    if upload.loader.rows:
        rows = np.array([upload.records[k] for k in scored], np.float64).reshape(-1, 6)
        return _Columns(rows[:, 0].astype(np.int64), rows[:, 1:5].copy(), rows[:, 5].copy())
    n = len(scored)
    image, boxes, scores, huge = np.empty(n, np.int64), np.empty((n, 4)), np.empty(n), 0
    for row, k in enumerate(scored):
        ann = upload.records[k]
        image[row] = int(ann["image_id"])
        try:
            boxes[row] = [float(v) for v in ann["bbox"][:4]]
            scores[row] = float(ann["score"])
        except OverflowError:
            huge += 1
            boxes[row], scores[row] = np.inf, np.inf
    return _Columns(image, boxes, scores, huge)


def _value_reasons(columns: _Columns) -> list[str]:
    reasons = []
    values = np.column_stack([columns.boxes, columns.scores])
    non_finite = int((~np.isfinite(values)).any(axis=1).sum()) - columns.huge
    if non_finite:
        reasons.append(f"{quantity(non_finite, 'detection')} with a nan or infinite number")
    negative = int(((columns.boxes[:, 2] < 0) | (columns.boxes[:, 3] < 0)).sum())
    if negative:
        reasons.append(f"{quantity(negative, 'box', 'boxes')} with a negative width or height, each a false positive")
    return reasons


def _evaluator_order(columns: _Columns) -> tuple[np.ndarray, np.ndarray]:
    """(order, by_file): the detections as the evaluator takes them, by image and then by descending
    score, ties in file order and nan scores last (numpy's stable sort of -score); and the
    detections by image in file order."""
    position = np.arange(len(columns.scores))
    nan = np.isnan(columns.scores)
    key = np.where(nan, 0.0, -columns.scores)
    order = np.lexsort((position, key, nan, columns.image))
    by_file = np.lexsort((position, columns.image))
    return order, by_file


def _unsorted_images(columns: _Columns) -> int:
    order, by_file = _evaluator_order(columns)
    return len(np.unique(columns.image[order[order != by_file]]))


def _scored_outcome(
    evaluator: Evaluator,
    gt: GroundTruth,
    server_ids,
    columns: _Columns,
    reasons: list[str],
    unsorted: int,
    notes: list[str],
) -> Outcome:
    """The numbers the evaluator prints for these detections, and whether they are the protocol's."""
    ids = gt.image_ids if server_ids is None else np.asarray(server_ids)
    index_of = {int(i): k for k, i in enumerate(ids)}
    image = np.array([index_of[int(i)] for i in columns.image], np.int64)
    if columns.huge:
        return Outcome(
            evaluator,
            MISSCORE,
            reasons=reasons + [f"{quantity(columns.huge, 'detection')} with an integer beyond the float range"],
            unpredicted="the evaluator's arithmetic on integers beyond the float range is not modelled",
            notes=notes,
        )
    order, by_file = _evaluator_order(_Columns(image, columns.boxes, columns.scores))
    overlaps_of = _overlap_rows(image, order, by_file)
    # Scores only order the detections; nan ones come last: ranks keep that order in numbers.
    scores = columns.scores[order]
    if np.isnan(scores).any():
        nan = np.isnan(scores)
        curve = np.lexsort((np.arange(len(scores)), np.where(nan, 0.0, -scores), nan))
        scores = np.empty(len(scores))
        scores[curve] = -np.arange(len(scores), dtype=np.float64)
        notes.append("nan scores are sorted last in each image and in the curve, as numpy sorts them")
    as_sorted = Detections(image[order], columns.boxes[order], scores)
    as_taken = Detections(image[order], columns.boxes[overlaps_of], scores)
    why_not = _nan_overlaps(as_taken, gt)
    if why_not:
        return Outcome(evaluator, MISSCORE, reasons=reasons, unpredicted=why_not, notes=notes)
    printed = _printed(evaluator, gt, as_taken, ids)
    if unsorted and printed != _printed(evaluator, gt, as_sorted, ids):
        reasons.append(
            f"detections of {quantity(unsorted, 'image')} not in descending score order: it matches "
            "each detection with the overlaps of another of its image"
        )
    if evaluator.prints_recall and printed["recall_all"] is None:
        return Outcome(
            evaluator,
            CRASH,
            Crash(
                "IndexError: list index out of range"
                if printed["MR_all"] == -100.0
                else "IndexError: index -1 is out of bounds for axis 0 with size 0",
                "",
                "no detection it scores lies in an image with a pedestrian that counts, or every one falls in an "
                "ignore region: its curve over all images is empty, and it prints that curve's last recall",
            ),
            notes=notes,
        )
    empty = [name for name, value in printed.items() if value in (-100.0, NO_MATCH)]
    if empty and not any("alone" in r for r in reasons):
        reasons.append(
            f"no detection it scores lies in an image with a pedestrian that counts there: it prints "
            f"{', '.join(f'{name} {value:g}' for name, value in printed.items() if name in empty)}"
        )
    results = []
    if not reasons:
        results = evaluate(gt, as_sorted, LEADERBOARD_SETTINGS, protocols=["leaderboard"])
    return Outcome(
        evaluator, MISSCORE if reasons else CORRECT, reasons=reasons, printed=printed, results=results, notes=notes
    )


def _overlap_rows(image: np.ndarray, order: np.ndarray, by_file: np.ndarray) -> np.ndarray:
    """For each detection in the evaluator's order, the detection whose overlaps it is matched with.

    The evaluator sorts an image's detections and computes their overlaps in that order; it then takes
    the rows of those overlaps in the order of the sort once more, so the detection of rank j is
    matched with the overlaps of the detection of rank inds[j], where inds is the sort (the detection
    itself when the image was sorted)."""
    ranked_image = image[order]
    start = np.searchsorted(ranked_image, ranked_image, side="left")  # where each image's group begins
    file_rank = np.empty(len(order), np.int64)  # each detection's place in its image, in file order
    file_rank[by_file] = np.arange(len(order)) - start
    inds = file_rank[order]  # rank j of an image -> file place of its detection (inds[j])
    return by_file[start + inds[start + inds]]


def _printed(evaluator: Evaluator, gt: GroundTruth, dets: Detections, ids: np.ndarray) -> dict[str, float]:
    """The numbers ``evaluator`` prints for detections in the order it takes them (by image, descending
    score), as it shows them: percent for MR, fractions for AP."""
    if evaluator is CHALLENGE2024_SCRIPT:
        return challenge2024_leaderboard(challenge2024_scores(gt, dets))
    # Its day and night are the first 1,455 images in id order and the rest.
    rank = np.argsort(np.argsort(ids, kind="stable"), kind="stable")
    day = rank < DAY_IMAGES
    evaluation = Evaluation(gt, dets, ["reasonable"])
    printed, recall = {}, None
    for split, mask in (("all", np.ones(gt.n_images, bool)), ("day", day), ("night", ~day)):
        result = evaluation.score("reasonable", mask, LEADERBOARD, split)
        printed[f"MR_{split}"] = 100 * result.lamr if result.n_gt else -100.0
        if split == "all" and result.n_gt and len(result.curve.scores):
            recall = 100 * result.recall
    printed["recall_all"] = recall  # None: the curve is empty, and reading its last point raises
    return printed


def _nan_overlaps(dets: Detections, gt: GroundTruth) -> str:
    """Why the printed numbers cannot be given: a detection whose overlap with a box of its image is
    nan in the evaluator's arithmetic (a nan number, or inf - inf), which its matching takes as a
    match. Empty when there is none."""
    values = np.column_stack([dets.boxes, dets.scores[:, None]])
    odd = np.flatnonzero(~np.isfinite(dets.boxes).all(axis=1) | (np.abs(values[:, :4]) > 1e150).any(axis=1))
    for k in odd:
        image = int(dets.image[k])
        dx, dy, dw, dh = (float(v) for v in dets.boxes[k])
        for g in range(gt.ann_start[image], gt.ann_start[image + 1]):
            gx, gy, gw, gh = (float(v) for v in gt.boxes[g])
            with np.errstate(all="ignore"):
                width = _min(dx + dw, gx + gw) - _max(dx, gx)
                if width <= 0:
                    continue
                height = _min(dy + dh, gy + gh) - _max(dy, gy)
                if height <= 0:
                    continue
                inter, area = width * height, dw * dh
                union = area + gw * gh - inter
                iou = inter / union if union else math.nan
                iod = inter / area if area else math.nan
            if math.isnan(iou) or math.isnan(iod):
                return (
                    "a box with a nan or infinite number overlaps a box of its image by nan, which the evaluator's "
                    "matching takes as a match: the number it prints is not predicted"
                )
    return ""


def _min(a: float, b: float) -> float:
    """Python's min(a, b): a unless b < a (so a nan a stays)."""
    return b if b < a else a


def _max(a: float, b: float) -> float:
    return b if b > a else a
