"""What is wrong with a result, judged against the ground truth before it is scored.

Every hazard the kit knows is a `Kind`: a stable code, a level, what it detects, what it costs and
the fix. `inspect` turns what a result holds (its detections, and the facts its reader counted)
into `Finding` records of those kinds; `inspect_scores` adds what only the scored curves show.
The library returns findings and prints nothing; the CLI prints them, one line each, and `eval`,
`diagnose`, `compare` and `submit` all take them from here, so that each hazard is worded once.

Three findings are confident: ``corners``, ``id-offset`` and ``wrong-gt`` compare how well the file
matches the ground truth as read with how well another reading matches it (boxes as corners, ids
shifted by one, the detections on randomly chosen images). When the other reading is far better,
the finding is an error: `refuse_errors` stops with the fix unless the user asks for the file as
read (``--as-is``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..data.detections import FAR_LIMIT, GT_IDS, Detections, ReadOptions
from ..data.groundtruth import GroundTruth, switch_origin
from ..data.results import load_detections
from ..errors import InputError, percent, quantity
from ..metrics.evaluate import GRID, Result, ResultFiles, ScoreGrid, SplitSpec, _split
from ..metrics.matching import ignore_masks, overlaps_by_image
from ..metrics.per_class import MEAN, as_printed, benchmark_protocol, benchmark_setting, evaluate_benchmark
from ..metrics.settings import SPLITS, Protocol, get_protocol
from ..metrics.sort_orders import describe_order
from ..metrics.spec import label

ERROR, WARNING, NOTE = "error", "warning", "note"
LEVELS = (ERROR, WARNING, NOTE)
# What the leaderboard's own evaluator does with a file that holds the hazard, as it is.
CRASH, MISSCORE = "crash", "mis-score"

# A lowest score at or above this suggests a detector threshold that cut the curve short.
LOW_SCORE_LIMIT = 0.05
# The confident checks. Another reading is "far better" when its detections overlap pedestrians
# closely (IoU >= CLOSE) at least READING_RATIO times as often as the file as read, and at least
# MIN_HITS times. Neighbouring frames of a KAIST image set share pedestrians at nearby places, so a
# loose overlap would credit a shifted reading with them; a close one does not (docs/evaluation.md
# gives the margins measured on the published files).
CLOSE = 0.7
READING_RATIO = 3
MIN_HITS = 20
# The detections hit pedestrians no more than chance when, on their own images, they overlap
# pedestrians (IoU >= 0.5) fewer than CHANCE_RATIO times as often as on randomly chosen images, and
# those random placements overlap at least MIN_CHANCE_HITS of them (boxes shaped and placed like
# pedestrians, made for other images), and fewer than FEW_HITS of them overlap one at all (images
# so alike that any placement fits, as in some tests, are not a sign of another image set).
CHANCE_RATIO = 5
MIN_CHANCE_HITS = 5
FEW_HITS = 0.1
# Whatever the chance baseline: the detections overlap almost no pedestrian of their images when
# fewer than ALMOST_NONE of them (or of the pedestrians, if fewer) overlap one (IoU >= 0.5), from
# MIN_JUDGED of them on. A working detector's strongest detections overlap many (72 % of MBNet's and
# MLPD's), a very poor one's some (4.4 % at 5 % recall); the same files against a ground truth whose
# boxes lie elsewhere, or a synthetic set's results against the real one, overlap 0 to 0.7 %
# (docs/evaluation.md gives the margins).
ALMOST_NONE = 0.015
MIN_JUDGED = 20
_SHUFFLES = 3
_SHUFFLE_SEED = 20240601


@dataclass(frozen=True)
class Kind:
    """One hazard: what it detects, what it costs in general, and the usual fix."""

    code: str
    level: str  # ERROR: the number would be wrong, WARNING: it probably costs miss rate, NOTE: information
    detects: str
    costs: str  # may be empty for a note
    fix: str  # may be empty when there is nothing to do
    leaderboard: str = ""  # CRASH or MISSCORE: what the leaderboard's evaluator does with such a file


@dataclass(frozen=True)
class Finding:
    """A hazard found in one result: what was found there, and what it costs that result."""

    kind: Kind
    found: str  # what the result holds: counts, and where the first case is
    cost: str = ""  # what it costs this result, measured where it can be; else the kind's
    fix: str = ""  # this result's fix; else the kind's
    source: str = ""  # the result file
    as_is: bool = False  # an error the user chose to score as read anyway

    @property
    def code(self) -> str:
        return self.kind.code

    @property
    def level(self) -> str:
        return WARNING if self.as_is and self.kind.level == ERROR else self.kind.level

    @property
    def leaderboard(self) -> str:
        return self.kind.leaderboard

    @property
    def message(self) -> str:
        cost, fix = self.cost or self.kind.costs, self.fix or self.kind.fix
        text = self.found + (f": {cost}" if cost else "") + (f"; {fix}" if fix else "")
        return text + " (scored as read: --as-is)" if self.as_is else text

    def line(self, with_source: bool = True) -> str:
        where = f"{self.source}: " if with_source and self.source else ""
        return f"[{self.code}] {where}{self.message}"

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "level": self.level,
            "leaderboard": self.leaderboard or None,
            "source": self.source,
            "message": self.message,
        }


# --- the kinds ------------------------------------------------------------------------------------
# Readings of the file: the confident checks.
CORNERS = Kind(
    "corners",
    ERROR,
    "boxes written as corners x1, y1, x2, y2 where x, y, width, height is read (or the reverse)",
    "read this way nearly no box can match a pedestrian",
    "rerun with --corners",
)
ID_OFFSET = Kind(
    "id-offset",
    ERROR,
    "image ids written with the other base (1-based in COCO JSON, 0-based in txt)",
    "every detection is scored against the wrong image",
    "rerun with --id-offset",
)
WRONG_GT = Kind(
    "wrong-gt",
    ERROR,
    "detections whose strongest overlap almost no pedestrian of their images, or no more "
    "than those of randomly chosen images: made for another image set or ground truth",
    "the miss rate says nothing about the detector",
    "score them against the ground truth of the images they "
    "were made for (test-all-20 results against the leaderboard's test-all-20, say)",
)
# What the reader counted.
STRING_VALUES = Kind(
    "string-values",
    WARNING,
    "box, score or category numbers written as JSON strings",
    "the kit reads them as numbers, but the leaderboard's evaluator crashes on a box or score written so (and "
    "never scores a category written so)",
    "write numbers; `kaist-kit submit` packages them as numbers",
    CRASH,
)
FAR_BOXES = Kind(
    "far-boxes",
    WARNING,
    f"boxes with a coordinate or size beyond {FAR_LIMIT:g} pixels",
    "no frame reaches that far, so each is a false positive (and its area overflows the arithmetic)",
    "check the units and the box layout the detector writes",
)
UNKNOWN_FRAMES = Kind(
    "unknown-frames",
    WARNING,
    "per-image files of frames that are not in the ground truth",
    "they are not scored",
    "check that the ground truth is the one of the detected images",
)
MISSING_FILES = Kind(
    "missing-files",
    WARNING,
    "ground-truth images without a per-image file",
    "read as images without detections; the devkit's aggregator would instead shift the id of every later "
    "image and score the folder wrongly",
    "write a file, empty if need be, for every image",
)
# What a lenient read (the packager's) left out or rewrote.
CATEGORY = Kind(
    "category",
    WARNING,
    "category_id other than person (1)",
    "the leaderboard's evaluator scores category 1 alone: it never scores the others (and crashes on a file "
    "with none of category 1)",
    "read and packaged as person, so remove detections of other classes first if that is what they are",
    MISSCORE,
)
CHALLENGE_CATEGORY = Kind(
    "challenge-category",
    NOTE,
    "every detection with category_id 0, the 2024 challenge's category for pedestrians",
    "read as pedestrians; the public leaderboard's evaluator crashes on any category other than person (1)",
    "for the leaderboard, package it with `kaist-kit submit` (category 1)",
    CRASH,
)
UNKNOWN_IDS = Kind(
    "unknown-ids",
    WARNING,
    "image ids that are not in the ground truth",
    "the leaderboard's evaluator crashes on them",
    "left out of what is scored and packaged",
    CRASH,
)
NON_FINITE = Kind(
    "non-finite",
    WARNING,
    "nan or infinite numbers",
    "the leaderboard's evaluator has no defined result for them",
    "left out of what is scored and packaged",
    MISSCORE,
)
NEGATIVE_SIZE = Kind(
    "negative-size",
    WARNING,
    "boxes with a negative width or height",
    "no evaluator scores them meaningfully",
    "left out of what is scored and packaged (boxes are [x, y, width, height])",
    MISSCORE,
)
OTHER_LABELS = Kind(
    "other-labels",
    WARNING,
    "per-image lines labelled other than person",
    "they are not pedestrian detections",
    "left out of what is scored and packaged",
)
# What the detections hold, and what the leaderboard protocol makes of it.
EMPTY = Kind(
    "empty",
    WARNING,
    "a result without detections",
    "scored as miss rate 1 everywhere; the leaderboard's evaluator crashes on an empty result",
    "check that the detector wrote its detections",
    CRASH,
)
ZERO_SIZE = Kind(
    "zero-size",
    WARNING,
    "boxes without area (width or height 0)",
    "they cannot match a pedestrian, so each is a false positive",
    "`kaist-kit submit` leaves them out of the package, which can only lower its miss rate",
)
UNSORTED = Kind(
    "unsorted",
    WARNING,
    "detections of an image not in descending score order",
    "the leaderboard's evaluator scores such a file wrongly, often far above its own miss rate",
    "`kaist-kit eval` scores them sorted, and `kaist-kit submit` packages them sorted, which changes no number "
    "of `kaist-kit eval`",
    MISSCORE,
)
OVER_1000 = Kind(
    "over-1000",
    WARNING,
    "images with more than 1,000 detections",
    "the leaderboard's evaluator crashes on them",
    "the leaderboard protocol scores the 1,000 highest-scoring of each, as `kaist-kit submit` packages them "
    "(the devkit's protocol, which has no cap, can give another number)",
    CRASH,
)
# What the scored curves show.
THRESHOLD = Kind(
    "threshold",
    WARNING,
    "a detector score threshold that cuts the curve short of 1 false positive per image",
    "the log-average miss rate reads the curve up to 1 false positive per image and beyond its end reads its "
    "last point, so detections below the lowest score would lower the miss rate",
    "keep the low-scored detections (no score threshold)",
)
LOWEST_SCORE = Kind(
    "lowest-score",
    NOTE,
    "a high lowest score on a curve that passes 1 false positive per image",
    "lower-scored detections would not change the number",
    "",
)
EMPTY_IMAGES = Kind(
    "empty-images",
    WARNING,
    "images without any detection that hold pedestrians",
    "the leaderboard protocol leaves their pedestrians out of the miss rate, which lowers it; the devkit that "
    "most papers quote counts them as misses",
    "compare with papers under --protocol matlab",
)
NO_PEDESTRIANS = Kind(
    "no-pedestrians",
    WARNING,
    "a split and setting in which no pedestrian counts",
    "its miss rate reads 100.00 whatever the detections (the leaderboard's evaluator prints -1)",
    "leave the number out, or score splits and settings with pedestrians",
)
# A submission's own (`kaist-kit submit`): the package and the file as uploaded.
UPLOAD_LIMIT_BYTES = 30_000_000
SIZE = Kind(
    "size",
    WARNING,
    "an upload larger than the leaderboard reliably takes",
    f"uploads over about {UPLOAD_LIMIT_BYTES / 1e6:.0f} MB are at risk of being refused",
    "fewer low-scored detections per image make it smaller",
)
MANIFEST = Kind("manifest", NOTE, "a submission zip's manifest that matches its results file", "", "")
MANIFEST_MISMATCH = Kind(
    "manifest-mismatch",
    WARNING,
    "a submission zip's manifest that does not match its results file",
    "the results were changed after packaging, and its counts and miss rates do not hold",
    "package the results again with `kaist-kit submit`",
)
NOT_TEST_SET = Kind(
    "not-test-all-20",
    WARNING,
    "a ground truth other than the leaderboard's test-all-20",
    "the package is scored against it, and the public leaderboard would not accept it",
    "package results of test-all-20 against its ground truth for the leaderboard",
)
IDS_REMAPPED = Kind(
    "ids-remapped",
    NOTE,
    "a ground truth whose image ids are not the leaderboard's",
    "the package writes each image's position in name order (the leaderboard's ids)",
    "",
)
NO_GROUND_TRUTH = Kind(
    "no-ground-truth",
    NOTE,
    "a check without ground truth",
    "only the ids (by their range) and the boxes (by their shape) are checked, and no miss rate is predicted",
    "pass --gt FILE (or set KAIST_KIT_GT) for the self-evaluated miss rate and the overlap checks",
)
# The other benchmarks: results of any class, and their ground truths.
CATEGORY_OFFSET = Kind(
    "category-offset",
    ERROR,
    "category ids counted from another base than the ground truth's (class indices "
    "from 0, as YOLOv5's JSON writes them, where the ground truth's ids count from 1, or the reverse)",
    "every detection is scored as another class, or as none",
    "rerun with --category-offset",
)
ORIGIN = Kind(
    "origin",
    ERROR,
    "CVC-14 boxes read with x, y as the centre where the detections were made for x, y as the "
    "top-left corner, or the reverse",
    "nearly no detection can match its pedestrian",
    "rerun with --origin",
)
UNKNOWN_CATEGORIES = Kind(
    "unknown-categories",
    WARNING,
    "detections of categories the ground truth does not list",
    "they score nothing (COCO's evaluator leaves them out)",
    "check the class ids the detector writes",
)
MISSING_CLASSES = Kind(
    "missing-classes",
    WARNING,
    "classes of the ground truth without any detection",
    "their AP is 0, which lowers the mean over the classes",
    "check that the detector writes every class",
)
TIED_SCORES = Kind(
    "tied-scores",
    NOTE,
    "detections of equal score, scored by a protocol that orders them as numpy's unstable argsort does "
    "(ms-detr: as MS-DETR's own number depends on numpy and the CPU under it)",
    "",
    "",
)
GROUND_TRUTH_NOTE = Kind(
    "ground-truth",
    NOTE,
    "what the ground truth's reader left out, renamed or found (dropped classes, names "
    "read as the benchmark's, crowd regions, the annotation release)",
    "",
    "",
)

# Every kind, in the order findings are listed (after their level). A plain declaration: importing
# a module twice (as kaist_kit.submission and as submission, say) declares nothing again.
KINDS: dict[str, Kind] = {
    k.code: k
    for k in (
        CORNERS,
        ID_OFFSET,
        WRONG_GT,
        STRING_VALUES,
        FAR_BOXES,
        UNKNOWN_FRAMES,
        MISSING_FILES,
        CATEGORY,
        CHALLENGE_CATEGORY,
        UNKNOWN_IDS,
        NON_FINITE,
        NEGATIVE_SIZE,
        OTHER_LABELS,
        EMPTY,
        ZERO_SIZE,
        UNSORTED,
        OVER_1000,
        THRESHOLD,
        LOWEST_SCORE,
        EMPTY_IMAGES,
        NO_PEDESTRIANS,
        SIZE,
        MANIFEST,
        MANIFEST_MISMATCH,
        NOT_TEST_SET,
        IDS_REMAPPED,
        NO_GROUND_TRUTH,
        CATEGORY_OFFSET,
        ORIGIN,
        UNKNOWN_CATEGORIES,
        MISSING_CLASSES,
        TIED_SCORES,
        GROUND_TRUTH_NOTE,
    )
}


STRING_VALUES_COST = (
    "the kit reads them as numbers, but pycocotools crashes on a box or score written so and "
    "never scores a category written so"
)


def _first(where: str) -> str:
    return f" (first at {where})" if where else ""


# --- the inspection -------------------------------------------------------------------------------


def inspect(
    dets: Detections,
    gt: GroundTruth,
    settings: Iterable[str] = ("reasonable",),
    splits: Iterable[SplitSpec] = SPLITS,
    protocols: Iterable = ("leaderboard",),
) -> list[Finding]:
    """Everything that is wrong with ``dets`` before they are scored in these settings, splits and
    protocols (names or specs, `kaist_kit.metrics.per_class`), on a ground truth of any benchmark, errors
    first. A ground truth without pedestrians (only images) limits the checks to what the ids and boxes
    show by themselves."""
    settings, splits = list(settings), list(splits)
    specs = [benchmark_protocol(p) for p in protocols]
    found = _reading_findings(dets, gt, specs)
    found += _read_findings(dets, gt)
    found += _structure_findings(dets, gt, settings, splits, specs)
    return ordered([replace(f, source=dets.source) for f in found])


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then what the leaderboard would crash on, then what it would mis-score, each in
    the order the kinds are declared."""
    rank = {code: k for k, code in enumerate(KINDS)}
    return sorted(
        findings,
        key=lambda f: (LEVELS.index(f.level), (CRASH, MISSCORE, "").index(f.leaderboard), rank.get(f.code, len(rank))),
    )


def inspect_scores(results: Sequence[Result], dets: Detections) -> list[Finding]:
    """What the scored curves of one result show: a score threshold that cut them short.

    Read from the first protocol and setting scored, over the splits with pedestrians; with no
    results (no ground truth), from the lowest score alone."""
    if len(dets) == 0:
        return []
    lowest = float(dets.scores.min())
    results = [r for r in results if r.n_gt]
    if results:
        first = (results[0].protocol, results[0].setting)
        ends = {
            r.split: float(r.curve.fppi[-1]) if len(r.curve.fppi) else 0.0
            for r in results
            if (r.protocol, r.setting) == first
        }
        short = {split: end for split, end in ends.items() if end < 1.0}
        if lowest < LOW_SCORE_LIMIT:
            return []
        if short:
            where = ", ".join(f"{split} {end:.2f}" for split, end in short.items())
            found = [
                Finding(
                    THRESHOLD,
                    f"the lowest score is {lowest:.3g} and the curve stops short of 1 false "
                    f"positive per image ({first[1]}: {where})",
                )
            ]
        else:
            found = [
                Finding(
                    LOWEST_SCORE,
                    f"the lowest score is {lowest:.3g}, but the curve passes 1 false positive per image in every split",
                )
            ]
    elif lowest >= LOW_SCORE_LIMIT:
        found = [Finding(THRESHOLD, f"the lowest score is {lowest:.3g}, the mark of a score threshold")]
    else:
        found = []
    return [replace(f, source=dets.source) for f in found]


def refuse_errors(findings: list[Finding], as_is: bool = False) -> list[Finding]:
    """The findings, once none is an error: the first error stops with an `InputError` that names
    it and its fix, unless ``as_is``, which keeps each error as a warning that says so."""
    errors = [f for f in findings if f.level == ERROR]
    if errors and not as_is:
        first = errors[0]
        raise InputError(
            f"[{first.code}] {first.message}; or pass --as-is to score the file as read", first.source or None
        )
    return [replace(f, as_is=True) if f.level == ERROR else f for f in findings]


def read_inspected(
    path: str | os.PathLike,
    gt: GroundTruth,
    settings: Iterable[str] = ("reasonable",),
    splits: Iterable[SplitSpec] = SPLITS,
    protocols: Iterable[str] = ("leaderboard",),
    options: ReadOptions | None = None,
) -> tuple[Detections, list[Finding]]:
    """Read a result as ``options`` say and inspect it for scoring in these settings, splits and
    protocols; an error finding stops the read unless ``options.as_is`` (see `refuse_errors`)."""
    options = options or ReadOptions()
    dets = load_detections(path, gt, options)
    return dets, refuse_errors(inspect(dets, gt, settings, splits, protocols), options.as_is)


def ground_truth_notes(gt: GroundTruth) -> list[Finding]:
    """What the ground truth's reader noted (annotation ids that pycocotools mis-reads), once per
    command. Not on the leaderboard's own file: its id 0 is the rule the leaderboard protocol keeps
    (docs/evaluation.md)."""
    if gt.is_leaderboard_file:
        return []
    return [Finding(GROUND_TRUTH_NOTE, note, source=gt.path or "") for note in gt.notes]


@dataclass
class Inspected:
    """Results of several files, and what was found in them."""

    results: list[Result]
    findings: list[Finding]


def evaluate_inspected(files: ResultFiles, gt: GroundTruth, grid: ScoreGrid = GRID) -> Inspected:
    """`evaluate_files` with the inspection: every file is read and inspected before any is scored,
    so that an error finding stops the call before the work (see `refuse_errors`)."""
    named = files.named()
    read = [read_inspected(path, gt, grid.settings, grid.splits, grid.protocols, files.options) for path, _ in named]
    results, findings = [], ground_truth_notes(gt)
    for (_, name), (dets, found) in zip(named, read):
        scored = grid.score(gt, dets, name)
        results += scored
        findings += found + inspect_scores(scored, dets)
    return Inspected(results, findings)


# --- readings: corners, ids shifted by one, another ground truth ---------------------------------


def pedestrians_hit(image: np.ndarray, boxes: np.ndarray, gt: GroundTruth, iou: float = 0.5) -> int:
    """How many detections overlap a pedestrian of their image at ``iou`` or more (a plausibility test)."""
    return pedestrians_hit_at(image, boxes, gt, (iou,))[0]


def pedestrians_hit_at(image: np.ndarray, boxes: np.ndarray, gt: GroundTruth, ious: Sequence[float]) -> list[int]:
    """`pedestrians_hit` at each of ``ious``, the overlaps computed once."""
    inside = (image >= 0) & (image < gt.n_images)
    with np.errstate(over="ignore", invalid="ignore"):  # boxes beyond any frame: a finding of their own
        pairs = overlaps_by_image(image[inside], boxes[inside], gt, min_overlap=0.5)
    person = ~gt.ignore[pairs.gt]
    counts = []
    for iou in ious:
        hit = np.zeros(int(inside.sum()), bool)  # each detection counted once, however many it overlaps
        hit[pairs.det[person & (pairs.iou >= iou)]] = True
        counts.append(int(np.count_nonzero(hit)))
    return counts


def _strongest(dets: Detections, gt: GroundTruth) -> np.ndarray:
    """The highest-scored detections, as many as the ground truth has pedestrians (100 at least):
    a real detector's surest detections, and a bounded cost on files of millions of detections."""
    k = min(len(dets), max(100, int((~gt.ignore).sum())))
    if k == len(dets):
        return np.arange(k)
    return np.argpartition(-dets.scores, k - 1)[:k]


@dataclass
class Readings:
    """How well a result matches the ground truth as read, and read other ways (the confident checks).

    Measured on the ``considered`` highest-scored detections: pedestrians they overlap closely (IoU >=
    CLOSE) as read and in each other reading ("corners", or the ids moved by -1 or +1), and
    pedestrians they overlap (IoU >= 0.5) as read and, on average, on randomly chosen images.
    """

    considered: int
    close: int
    others: dict  # reading -> close hits
    hits: int
    chance: float
    pedestrians: int = 0  # in the ground truth (boxes not flagged ignore)

    @property
    def judged(self) -> int:
        """How many hits there could be: the detections considered, or the pedestrians if fewer."""
        return min(self.considered, self.pedestrians)

    @property
    def almost_none(self) -> bool:
        return self.judged >= MIN_JUDGED and self.hits < ALMOST_NONE * self.judged

    @property
    def best(self):
        """The other reading with the most close hits, or None."""
        return max(self.others, key=self.others.get) if self.others else None

    def far_better(self, reading) -> bool:
        if reading is None:
            return False
        hits = self.others[reading]
        return hits >= MIN_HITS and hits >= READING_RATIO * max(self.close, 1)

    @property
    def at_chance(self) -> bool:
        return (
            self.chance >= MIN_CHANCE_HITS
            and self.hits < CHANCE_RATIO * self.chance
            and self.hits < FEW_HITS * self.considered
        )

    def margins(self) -> dict[str, float]:
        """How far the result is from each check's verdict flipping, as a factor (>= 1): the change of
        the measure (the best other reading's close hits, the hits as read) that would flip it."""

        def ratio(a: float, b: float) -> float:
            return a / b if b else float("inf")

        best = self.others.get(self.best, 0)
        reading = (ratio(MIN_HITS, best), ratio(READING_RATIO * max(self.close, 1), best))
        chance = (
            ratio(self.chance, MIN_CHANCE_HITS),
            ratio(CHANCE_RATIO * self.chance, self.hits),
            ratio(FEW_HITS * self.considered, self.hits),
        )
        few = ratio(ALMOST_NONE * self.judged, self.hits)
        return {
            "reading": min(ratio(1, r) for r in reading) if self.far_better(self.best) else max(reading),
            "chance": min(chance) if self.at_chance else max(ratio(1, c) for c in chance),
            "almost_none": few if self.almost_none else ratio(1, few),
        }


def readings(dets: Detections, gt: GroundTruth, shifts: bool = True) -> Readings:
    """Measure ``dets`` against ``gt`` as read and read the other plausible ways (see `Readings`);
    ``shifts``: the ids moved by one are among them (not for ids that are strings)."""
    strongest = _strongest(dets, gt)
    image, boxes = dets.image[strongest], dets.boxes[strongest]
    others = {}
    if dets.format.rereadable:
        others["corners"] = pedestrians_hit(image, _corner_boxes(boxes, not dets.facts.corners), gt, CLOSE)
        for shift in (-1, 1) if shifts else ():
            others[shift] = pedestrians_hit(dets.format.shifted(image, shift, gt), boxes, gt, CLOSE)
    # numpy's legacy generator: the same stream in every numpy version (a platform's worker has its own).
    rng = np.random.RandomState(_SHUFFLE_SEED)
    chance = float(np.mean([pedestrians_hit(rng.permutation(gt.n_images)[image], boxes, gt) for _ in range(_SHUFFLES)]))
    close, hits = pedestrians_hit_at(image, boxes, gt, (CLOSE, 0.5))
    return Readings(len(strongest), close, others, hits, chance, int((~gt.ignore).sum()))


def _reading_findings(dets: Detections, gt: GroundTruth, specs: Sequence) -> list[Finding]:
    if len(dets) == 0:
        return []
    if gt.box_origin:
        check = origin_check(gt, dets)
        if check.far_better:
            return [Finding(ORIGIN, check.line(), fix=f"rerun with --origin {check.other}")]
    if not (~gt.ignore).any():
        return _shape_findings(dets, gt)
    measured = readings(dets, gt, shifts=not gt.string_ids)
    for reading in measured.others:
        if measured.far_better(reading):
            return [_better_reading(dets, gt, specs, reading, measured)]
    one_class = gt.benchmark.truth_rules.one_class
    noun = "pedestrians" if one_class else "boxes"
    says_nothing = "" if one_class else "every AP and miss rate says nothing about the detector"
    images = len(np.unique(dets.image))
    where = f"they lie in {images} of the ground truth's {gt.n_images} images ({gt.describe()})"
    if measured.at_chance:
        found = (
            f"the {measured.considered} highest-scored detections overlap {measured.hits} {noun} of "
            f"their images, and {measured.chance:.0f} on average when each image's detections are moved to "
            f"a randomly chosen image; {where}"
        )
        return [Finding(WRONG_GT, found, says_nothing)]
    if measured.almost_none:
        found = (
            f"the {measured.considered} highest-scored detections overlap {measured.hits} {noun} of their "
            f"images (IoU >= 0.5), fewer than {100 * ALMOST_NONE:g} % of "
            f"{'them' if measured.considered <= measured.pedestrians else 'the ' + noun}, where a "
            f"detector's strongest detections overlap many; {where}"
        )
        return [
            Finding(
                WRONG_GT, found, says_nothing or "the miss rate reads about 100.00 and says nothing about the detector"
            )
        ]
    shift = 0 if one_class else _category_shift(dets, gt)
    if shift:
        base = "from 0" if shift > 0 else "from 1"
        moved = dets.facts.category_offset + shift
        found = (
            f"the category ids look counted {base}: with --category-offset {moved}, the "
            f"{len(_strongest(dets, gt))} highest-scored detections overlap boxes of their class far more often"
        )
        return [Finding(CATEGORY_OFFSET, found, fix=f"rerun with --category-offset {moved}")]
    return []


def _category_shift(dets: Detections, gt: GroundTruth) -> int:
    """The shift of the category ids (-1 or 1) that makes the strongest detections overlap boxes of
    their own class closely far more often than as read; 0 when none does."""
    strongest = _strongest(dets, gt)
    pairs = overlaps_by_image(dets.image[strongest], dets.boxes[strongest], gt, min_overlap=0.5)
    close = (pairs.iou >= CLOSE) & ~gt.ignore[pairs.gt]
    class_ids = np.array([c.id for c in gt.classes], np.int64)
    det, gt_class = strongest[pairs.det[close]], class_ids[gt.ann_class[pairs.gt[close]]]

    def hits(shift: int) -> int:
        return int(np.unique(det[dets.category[det] + shift == gt_class]).size)

    as_read = hits(0)
    best = max((-1, 1), key=hits)
    return best if hits(best) >= MIN_HITS and hits(best) >= READING_RATIO * max(as_read, 1) else 0


def _corner_boxes(boxes: np.ndarray, to_corners: bool) -> np.ndarray:
    """The boxes read the other way: as corners (``to_corners``), or back as x, y, width, height."""
    other = boxes.copy()
    if to_corners:
        other[:, 2:] -= other[:, :2]
    else:
        other[:, 2:] += other[:, :2]
    return other


def _reread(dets: Detections, gt: GroundTruth, reading) -> Detections:
    if reading == "corners":
        return replace(dets, boxes=_corner_boxes(dets.boxes, not dets.facts.corners))
    image = dets.format.shifted(dets.image, reading, gt)
    return dets.taking(image >= 0, image=image)


def _better_reading(dets: Detections, gt: GroundTruth, specs: Sequence, reading, measured: Readings) -> Finding:
    """The finding for a reading far better than the file as read, measured on the file itself."""
    if reading == "corners":
        option = "without --corners" if dets.facts.corners else "with --corners"
        layout = "x, y, width, height" if dets.facts.corners else "corners x1, y1, x2, y2"
        found = f"the boxes look like {layout}"
        kind_, fix = CORNERS, f"rerun {option}"
    else:
        offset = dets.facts.id_offset + reading
        found = f"the image ids look written {dets.format.other_base(reading)}"
        option = f"with --id-offset {offset}"
        kind_, fix = ID_OFFSET, f"rerun {option}"
    noun = "pedestrians" if gt.benchmark.truth_rules.one_class else "boxes"
    found += (
        f": {option}, the {measured.considered} highest-scored detections overlap {measured.others[reading]} "
        f"{noun} closely (IoU >= {CLOSE}) instead of {measured.close}"
    )
    return Finding(kind_, found, _measured(dets, _reread(dets, gt, reading), gt, specs, option), fix)


def _measured(dets: Detections, other: Detections, gt: GroundTruth, specs: Sequence, option: str) -> str:
    """What a file scores as written and read the other way, by the first protocol's headline number (the
    benchmark's first metric it computes, on all images, of the mean over the classes or the one class)."""
    spec = (list(specs) or [benchmark_protocol(gt.benchmark.protocols[0])])[0]
    metric = next((m for m in gt.benchmark.metrics if m in spec.computes), spec.metrics[0])
    values = []
    for which in (dets, other):
        rows = evaluate_benchmark(gt, which, gt.benchmark, [spec], [metric])
        row = next((r for r in rows if r.category == MEAN), rows[0])
        values.append(row.value(metric))
    if row.setting:
        what = f"{row.setting}, {row.split}, {row.protocol} protocol"
    else:
        what = f"{row.protocol}, {row.split}, {label(metric)} of {'the mean' if row.category == MEAN else row.category}"
    return f"measured ({what}): {percent(values[0])} as written, {percent(values[1])} {option}"


def _shape_findings(dets: Detections, gt: GroundTruth) -> list[Finding]:
    """Without pedestrians to overlap, what the boxes and ids show by themselves."""
    found = []
    x, y, w, h = dets.boxes.T
    width, height = gt.image_sizes[dets.image].T
    corner_like = float(np.mean((w > x) & (h > y)))
    outside = float(np.mean((x + w > width) | (y + h > height)))
    if corner_like >= 0.8 and outside >= 0.2 and not dets.facts.corners and dets.format.rereadable:
        found.append(
            Finding(
                CORNERS,
                f"the boxes look like corners x1, y1, x2, y2: "
                f"{100 * corner_like:.0f}% of them have a width above their x and a height "
                f"above their y, and {100 * outside:.0f}% reach past the frame",
            )
        )
    dropped = dets.dropped
    if dropped is None or not dropped.unknown_ids or gt.n_images < 2:
        return found
    # Ids written with the other base (1-based where the format's are 0-based, or the reverse)
    # leave exactly one id outside the ground truth's, and no detection on the image at the other end.
    fmt = dets.format
    unknown = {i + dets.facts.id_offset for i in dropped.unknown_ids}
    first, last = (int(gt.image_ids[0]), int(gt.image_ids[-1])) if fmt.image_ids == GT_IDS else (1, gt.n_images)
    if fmt.id_base == 0 and unknown == {last + 1} and not (dets.image == 0).any():
        span, fix = f"{first + 1}..{last + 1}", dets.facts.id_offset - 1
    elif fmt.id_base == 1 and unknown == {first - 1} and not (dets.image == gt.n_images - 1).any():
        span, fix = f"{first - 1}..{last - 1}", dets.facts.id_offset + 1
    else:
        return found
    found.append(
        Finding(
            ID_OFFSET,
            f"the image ids run {span}, but this format's ids are {fmt.written_ids(gt)}",
            fix=f"rerun with --id-offset {fix}",
        )
    )
    return found


# --- what the reader counted ----------------------------------------------------------------------


def _read_findings(dets: Detections, gt: GroundTruth) -> list[Finding]:
    facts, found = dets.facts, []
    if facts.string_values:
        # Other benchmarks' scripts are not the KAIST leaderboard's: pycocotools' loadRes multiplies a
        # box's strings, its evaluate negates a score's, and a category id "1" is no category.
        cost, fix = ("", "") if gt.benchmark.truth_rules.one_class else (STRING_VALUES_COST, "write numbers")
        found.append(
            Finding(
                STRING_VALUES,
                f"{quantity(facts.string_values, 'detection')} with numbers written as "
                f"text{_first(facts.first.get('string_values', ''))}",
                cost,
                fix,
            )
        )
    if facts.far_boxes:
        found.append(
            Finding(
                FAR_BOXES,
                f"{quantity(facts.far_boxes, 'box', 'boxes')} with a number beyond "
                f"{FAR_LIMIT:g} pixels{_first(facts.first.get('far_boxes', ''))}",
            )
        )
    if facts.unknown_frames:
        found.append(
            Finding(
                UNKNOWN_FRAMES,
                f"{quantity(len(facts.unknown_frames), 'per-image file')} of frames "
                f"that are not in the ground truth (first: {facts.unknown_frames[0]})",
            )
        )
    if facts.images_without_file:
        found.append(
            Finding(
                MISSING_FILES,
                f"{facts.images_without_file} of the {gt.n_images} ground-truth images have no per-image file",
            )
        )
    if facts.challenge_category:
        found.append(Finding(CHALLENGE_CATEGORY, "every detection has category_id 0"))
    dropped = dets.dropped
    if dropped is None:
        return found
    first = dropped.first
    if dropped.recategorised and not facts.challenge_category:
        kinds = ", ".join(
            f"{quantity(n, 'detection')} with category_id {c!r}" for c, n in dropped.recategorised.items()
        )
        found.append(Finding(CATEGORY, f"{kinds}{_first(first['recategorised'])}"))
    if dropped.unknown_ids:
        ids = sorted(dropped.unknown_ids)
        shown = ", ".join(map(str, ids[:3])) + (", ..." if len(ids) > 3 else "")
        found.append(
            Finding(
                UNKNOWN_IDS,
                f"{quantity(dropped.unknown_image, 'detection')} with an image id that "
                f"is not in the ground truth ({shown}; first at {first['unknown_ids']})",
            )
        )
    if dropped.non_finite:
        found.append(
            Finding(
                NON_FINITE,
                f"{quantity(dropped.non_finite, 'detection')} with a nan or infinite "
                f"number{_first(first['non_finite'])}",
            )
        )
    if dropped.negative_size:
        found.append(
            Finding(
                NEGATIVE_SIZE,
                f"{quantity(dropped.negative_size, 'box', 'boxes')} with a negative "
                f"width or height{_first(first['negative_size'])}",
            )
        )
    if dropped.other_labels:
        labels = ", ".join(f"{n} {label!r}" for label, n in dropped.other_labels.items())
        found.append(
            Finding(OTHER_LABELS, f"lines labelled other than person ({labels}; first at {first['other_labels']})")
        )
    return found


# --- the detections, and the leaderboard protocol ------------------------------------------------


def images_not_sorted(dets: Detections) -> np.ndarray:
    """Indices of the images whose detections, in file order, do not descend in score.

    The leaderboard's evaluator scores such a file wrongly.
    """
    file_order = np.argsort(dets.image, kind="stable")
    image, scores = dets.image[file_order], dets.scores[file_order]
    rising = (image[1:] == image[:-1]) & (scores[1:] > scores[:-1])
    return np.unique(image[1:][rising])


def _structure_findings(
    dets: Detections, gt: GroundTruth, settings: list[str], splits: list[SplitSpec], specs: list
) -> list[Finding]:
    """What the detections' layout costs under the protocols asked for (each protocol's evaluator as its
    spec describes it), and where a miss rate cannot mean anything."""
    one_class = gt.benchmark.truth_rules.one_class
    found = []
    if len(dets) == 0 and not (dets.dropped and dets.dropped.total):
        found.append(
            Finding(EMPTY, "no detections", "" if one_class else "every AP reads 0 and every miss rate 100.00")
        )
    without_area = int(((dets.boxes[:, 2] <= 0) | (dets.boxes[:, 3] <= 0)).sum())
    if without_area:
        found.append(Finding(ZERO_SIZE, f"{quantity(without_area, 'box', 'boxes')} without area"))
    if not one_class:
        found += _class_findings(dets, gt)
    sorted_by = [spec for spec in specs if spec.needs_sorted]
    if sorted_by and len(dets) and dets.format.uploadable:
        unsorted = len(images_not_sorted(dets))
        if unsorted:
            names = ", ".join(spec.name for spec in sorted_by)
            cost, fix = (
                ("", "")
                if one_class
                else (f"the {names} protocol's evaluator scores such a file wrongly", "the kit scores them sorted")
            )
            found.append(
                Finding(
                    UNSORTED,
                    f"detections of {quantity(unsorted, 'image')} are not sorted by descending score",
                    cost,
                    fix,
                )
            )
    found += _tied_findings(dets, specs)
    miss_rates = [(spec, _kaist_protocol(spec)) for spec in specs if spec.miss_rate]
    if not miss_rates:
        return found
    per_image = np.bincount(dets.image, minlength=gt.n_images)
    cap = min((p.max_detections_per_image for _, p in miss_rates if p.max_detections_per_image), default=None)
    crowded = per_image > (cap or np.inf)
    if crowded.any():
        over = int((per_image[crowded] - cap).sum())
        found.append(
            Finding(
                OVER_1000,
                f"{quantity(int(crowded.sum()), 'image')} with more than {cap:,} "
                f"detections (most: {int(per_image.max()):,}; {over:,} beyond the "
                f"{cap:,} highest-scoring)",
            )
        )
    if not settings:
        return found
    # The miss rate's boxes: the pedestrians and their ignore regions. A ground truth without a single
    # pedestrian still gets the no-pedestrians finding below: its number is never left bare.
    view = gt.class_view("person") if not one_class or len(gt.classes) > 1 else gt
    ignored = ignore_masks(view, [benchmark_setting(s, gt.benchmark, miss_rates[0][0]) for s in settings])
    masks = [(name, view.split_mask(selection)) for name, selection in map(_split, splits)]
    scored = np.logical_or.reduce([m for _, m in masks]) if masks else np.zeros(view.n_images, bool)
    without = per_image[view.ann_image] == 0
    if any(p.skips_images_without_detections for _, p in miss_rates) and len(dets) and (~view.ignore).any():
        parts = []
        for row, setting in enumerate(settings):
            lost = without & ~ignored[row] & scored[view.ann_image]
            if lost.any():
                parts.append(
                    f"{setting} {quantity(int(lost.sum()), 'pedestrian')} in "
                    f"{quantity(len(np.unique(view.ann_image[lost])), 'image')}"
                )
        if parts:
            found.append(
                Finding(EMPTY_IMAGES, "images without any detection hold pedestrians that count: " + ", ".join(parts))
            )
    empty = []
    for spec, protocol in miss_rates:
        for row, setting in enumerate(settings):
            for name, mask in masks:
                present = ~ignored[row] & mask[view.ann_image]
                if not present.any():
                    empty.append(f"{setting} {name} ({spec.name}: the ground truth has none there)")
                elif protocol.skips_images_without_detections and not (present & ~without).any():
                    empty.append(
                        f"{setting} {name} ({spec.name}: its {quantity(int(present.sum()), 'pedestrian')} "
                        "are all in images without detections, which this protocol leaves out)"
                    )
    if empty:
        cost = "" if one_class else "its miss rate is left empty"
        found.append(Finding(NO_PEDESTRIANS, "no pedestrian counts in " + "; ".join(empty), cost))
    return found


def _kaist_protocol(spec) -> Protocol:
    """The KAIST evaluator's protocol a miss-rate protocol runs (its rules on the machine's numpy)."""
    return get_protocol(spec.kaist())


def _class_findings(dets: Detections, gt: GroundTruth) -> list[Finding]:
    """Detections of classes the ground truth does not list, and classes with boxes but no detection."""
    found = []
    known = np.isin(dets.category, [c.id for c in gt.classes])
    if len(dets) and not known.all():
        values, counts = np.unique(dets.category[~known], return_counts=True)
        shown = ", ".join(f"{quantity(int(n), 'detection')} of category {int(v)}" for v, n in zip(values, counts))
        listed = ", ".join(f"{c.id} {c.name}" for c in gt.classes)
        found.append(Finding(UNKNOWN_CATEGORIES, f"{shown} (the ground truth's: {listed})"))
    present = set(dets.category[known].tolist())
    missing = [c for k, c in enumerate(gt.classes) if c.id not in present and np.any((gt.ann_class == k) & ~gt.iscrowd)]
    if len(dets) and missing:
        found.append(Finding(MISSING_CLASSES, "no detection of " + ", ".join(f"{c.name} ({c.id})" for c in missing)))
    return found


def _tied_findings(dets: Detections, specs: Sequence) -> list[Finding]:
    """Detections of equal score under a protocol whose evaluator orders them as numpy's unstable sort."""
    numpy_sorted = [spec for spec in specs if spec.numpy_protocol]
    if not (len(dets) and numpy_sorted):
        return []
    printed = numpy_sorted[0].printed  # the scores its evaluator reads
    _, counts = np.unique(as_printed(dets.scores, printed[1]) if printed else dets.scores, return_counts=True)
    tied = int(counts[counts > 1].sum())
    if not tied:
        return []
    order = describe_order(numpy_sorted[0].kaist().tie_order)
    return [
        Finding(
            TIED_SCORES,
            f"{quantity(tied, 'detection')} share their score with another",
            f"{', '.join(p.name for p in numpy_sorted)} orders them as {order} does, the order its "
            "evaluator's own number depends on",
        )
    ]


# --- CVC-14: which origin the detections fit ----------------------------------------------------


@dataclass(frozen=True)
class OriginCheck:
    """How well detections fit CVC-14 boxes read with their x, y as the centre and as the corner."""

    origin: str  # the reading used
    considered: int  # the highest-scored detections measured
    close: int  # pedestrians they overlap closely (IoU >= 0.7) as read
    close_other: int  # and with the other reading

    @property
    def other(self) -> str:
        return "corner" if self.origin == "centre" else "centre"

    @property
    def far_better(self) -> bool:
        """Whether the other reading fits far better: the rule of the kit's `corners` finding."""
        return self.close_other >= MIN_HITS and self.close_other >= READING_RATIO * max(self.close, 1)

    def line(self) -> str:
        return (
            f"CVC-14 boxes read with x, y as the {self.origin}: the {self.considered} highest-scored detections "
            f"overlap {self.close} pedestrians closely (IoU >= 0.7), and {self.close_other} with x, y read as the "
            f"{self.other}"
        )


def origin_check(annotations: GroundTruth, detections: Detections) -> OriginCheck:
    """Measure the detections against CVC-14 boxes as read and read with the other origin."""

    other = switch_origin(annotations)
    counts = []
    for which in (annotations, other):
        gt = which.class_view("person", None, ())
        dets = detections.of_classes([which.classes[which.class_index("person")].id])
        k = min(len(dets), max(100, int((~gt.ignore).sum())))
        strongest = np.argsort(-dets.scores, kind="stable")[:k]
        counts.append(pedestrians_hit(dets.image[strongest], dets.boxes[strongest], gt, CLOSE))
        considered = k
    return OriginCheck(annotations.box_origin, considered, counts[0], counts[1])
