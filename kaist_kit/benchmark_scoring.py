"""Scoring result files on any benchmark, as `eval`, `compare`, `diagnose` and `submit` do.

- `open_truth`: the ground truth the verbs score against and the benchmark it is: the file given (its
  benchmark recognised from its content when it can be, `kaist_kit.benchmarks.recognise`), a dataset's
  folder in its native layout, or the benchmark's pinned file; `BenchmarkTruth.line` says which
  benchmark was taken and why, in one line.
- `benchmark_request`: the protocols, metrics, splits and miss-rate options asked for, checked against
  the benchmark (one line naming what to ask instead).
- `inspect_boxes`: what is wrong with a result of any class, judged against the ground truth before it
  is scored (the same confident checks as KAIST's: boxes as corners, ids off by one, another ground
  truth; and the benchmarks' own: category ids counted from another base, CVC-14's box origin), with
  what the ground truth's reader noted.
- `evaluate_benchmark_files`, `compare_benchmark_files`, `diagnose_benchmark_file`: per-class rows
  (`kaist_kit.benchmark_eval.ClassRow`) of several files, side by side, or of one with every split and
  protocol, and what was found in them; each in every output format (`BenchmarkReport`).

KAIST itself is scored by `kaist_kit.evaluate` and its verbs' own paths (occlusion labels, settings,
curves); `open_truth` hands its ground truth over as a `GroundTruth`.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .benchmark_eval import (
    MEAN,
    BenchmarkProtocol,
    ClassRow,
    ScoringOptions,
    as_printed,
    benchmark_protocol,
    evaluate_benchmark,
    origin_check,
)
from .benchmarks import KAIST, LLVIP, Benchmark, get_benchmark, recognise
from .data.detections import GT_IDS, Detections, ReadOptions, method_name
from .data.groundtruth import GroundTruth, ground_truth_from_bytes, ground_truth_from_coco
from .data.results import load_detections
from .download import Progress
from .errors import InputError, quantity
from .evaluate import unique_method_names
from .files import decode_text, parse_json, read_bytes
from .findings import (
    ALMOST_NONE,
    CATEGORY_OFFSET,
    CLOSE,
    CORNERS,
    EMPTY,
    GROUND_TRUTH_NOTE,
    ID_OFFSET,
    MIN_HITS,
    MISSING_CLASSES,
    NO_PEDESTRIANS,
    ORIGIN,
    READING_RATIO,
    STRING_VALUES,
    TIED_SCORES,
    UNKNOWN_CATEGORIES,
    UNSORTED,
    WRONG_GT,
    Finding,
    _corner_boxes,
    _read_findings,
    _strongest,
    images_not_sorted,
    ordered,
    readings,
    refuse_errors,
)
from .groundtruth import check_cached_gt, find_gt, is_cached_gt, load_ground_truth
from .matching import overlaps_by_image
from .metrics.spec import label
from .settings import DEFAULT_FPPI_RANGE
from .sort_orders import describe_order
from .tables import Table, markdown_sections, percent

Echo = Callable[[str], None]


# --- the ground truth and its benchmark -----------------------------------------------------------


@dataclass
class BenchmarkTruth:
    """A ground truth and the benchmark it is scored as: KAIST's as a `GroundTruth` (``kaist``), any
    other's as `Annotations` (``annotations``)."""

    benchmark: Benchmark
    why: str  # why this benchmark: named, recognised, the default
    annotations: GroundTruth | None = None
    kaist: GroundTruth | None = None
    path: Path | None = None

    @property
    def line(self) -> str:
        """The line the verbs print: which benchmark was taken, and why."""
        return f"benchmark: {self.benchmark.name} ({self.why})"

    @property
    def announced(self) -> bool:
        """Whether the verbs print `line`: for every benchmark but KAIST, the kit's default, whose
        output stays as it always was."""
        return self.kaist is None

    def describe(self) -> str:
        return (self.kaist or self.annotations).describe()

    @property
    def notes(self) -> list[str]:
        return list(self.annotations.notes) if self.annotations is not None else []


def open_truth(
    path: str | os.PathLike | None = None,
    benchmark: str | Benchmark | None = None,
    *,
    split: str = "test",
    origin: str | None = None,
    echo: Echo | None = None,
    progress: Progress | None = None,
) -> BenchmarkTruth:
    """The ground truth to score against and its benchmark.

    ``path`` a COCO ground truth (its benchmark recognised from its content when ``benchmark`` is not
    named; a ground truth recognised as none is KAIST's, the kit's default), or a dataset's folder in
    its native layout (``benchmark`` named; ``split`` and, for CVC-14, ``origin`` as its reader takes
    them); None: the benchmark's pinned ground truth (KAIST's: $KAIST_KIT_GT, the cache, downloaded on
    first use), or an error saying where to download the dataset when it has none."""
    named = get_benchmark(benchmark) if benchmark is not None else None
    if origin not in (None, "centre", "corner"):
        raise InputError(f"unknown box origin {origin!r}; use centre or corner")
    folder = path is not None and Path(path).is_dir()
    if origin is not None and not (folder and named is not None and named.annotation_format == "cvc-14"):
        raise InputError(
            "--origin applies to CVC-14's annotation files, read from the dataset's folder "
            "(--gt FOLDER --benchmark cvc-14)"
        )
    if path is None:
        bench = named or KAIST
        if bench is KAIST:
            found = find_gt(None, echo=echo, progress=progress)
            gt = load_ground_truth(found)
            why = "its pinned ground truth" if gt.is_leaderboard_file else f"the default ground truth {found}"
            return BenchmarkTruth(bench, why if named else f"the default; {why}", kaist=gt, path=Path(found))
        from .pinned import find_pinned

        found = find_pinned(bench, echo=echo, progress=progress)
        annotations = _annotations(read_bytes(found), found, bench)
        return BenchmarkTruth(bench, f"its pinned ground truth, {Path(found).name}", annotations, path=Path(found))
    path = Path(path)
    if folder:
        return _native_truth(path, named, split, origin or "centre")
    raw = read_bytes(path)
    if is_cached_gt(path):  # a changed cache is refused before it is read as anything
        check_cached_gt(path, raw)
    text = decode_text(raw, path)
    data = parse_json(text, path)
    md5 = hashlib.md5(raw).hexdigest()
    found = _recognised(data, md5)
    if named is None:
        bench = found.benchmark if found else KAIST
        why = (
            f"recognised from the ground truth: {found.reason}"
            if found
            else "the default: the ground truth is not recognised as any benchmark's; --benchmark names another"
        )
    else:
        if found and found.benchmark is not named:  # scored by another benchmark's rules, no number would mean much
            raise InputError(
                f"the ground truth is {found.benchmark.title}'s ({found.reason}), not {named.title}'s: "
                f"pass {named.title}'s ground truth, or --benchmark {found.benchmark.name}",
                path,
            )
        bench = named
        why = "as named" + (f", and recognised from the ground truth: {found.reason}" if found else "")
    if bench is KAIST:
        return BenchmarkTruth(bench, why, kaist=ground_truth_from_bytes(raw, path, data, text, md5), path=path)
    return BenchmarkTruth(bench, why, _annotations(raw, path, bench, data, text), path=path)


def _recognised(data: object, md5: str):
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        return recognise([], md5=md5)  # a malformed file: its reader says what is wrong
    names = [
        str(image.get("im_name") or image.get("file_name") or image.get("id"))
        for image in data["images"]
        if isinstance(image, dict)
    ]
    categories = (
        [c.get("name", "") for c in data.get("categories", []) or [] if isinstance(c, dict)]
        if isinstance(data.get("categories"), list)
        else []
    )
    return recognise(names, categories, md5)


def _annotations(raw: bytes, path, bench: Benchmark, data=None, text=None) -> GroundTruth:
    if data is None:
        text = decode_text(raw, path)
        data = parse_json(text, path)
    annotations = ground_truth_from_coco(data, path, text, benchmark=bench)
    if bench is LLVIP:  # which annotation release, where the split is whole
        from .benchmark_readers import llvip_release

        for split in ("test", "train"):
            release = llvip_release(annotations, split)
            if release.name != "unknown":
                annotations.notes.append(f"annotation release: {release.name} ({release.reason})")
                break
    return annotations


def _native_truth(root: Path, named: Benchmark | None, split: str, origin: str) -> BenchmarkTruth:
    from .benchmark_readers import read_benchmark

    if named is None or named is KAIST:
        raise InputError(
            "a folder: name the benchmark whose layout it is (--benchmark flir-aligned, llvip, cvc-14 "
            "or m3fd); KAIST's annotation folders are converted with `kaist-kit convert`",
            root,
        )
    options = {"origin": origin} if named.annotation_format == "cvc-14" else {}
    try:
        annotations = read_benchmark(named, root, split, **options)
    except ValueError as exc:
        raise InputError(str(exc), root) from None
    return BenchmarkTruth(
        named, f"as named; its {split} annotations read from the dataset's folder", annotations, path=root
    )


# --- what is asked --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BenchmarkRequest:
    """What to compute on a benchmark other than KAIST: protocols, metrics (None: each protocol's of
    the benchmark's metrics), splits (names or (name, images)), and the miss rates' options."""

    protocols: tuple[BenchmarkProtocol, ...]
    metrics: tuple[str, ...] | None
    splits: tuple
    scoring: ScoringOptions = ScoringOptions()


def benchmark_request(
    truth: BenchmarkTruth,
    protocols: Sequence[str] = (),
    metrics: Sequence[str] = (),
    splits: Sequence[str] = (),
    lists: Sequence[tuple[str, Sequence]] = (),
    scoring: ScoringOptions | None = None,
) -> BenchmarkRequest:
    """The request checked against the benchmark and its ground truth: protocols it can be scored by
    (its own; COCO's and YOLOv5's AP on any), metrics one of them computes, splits its images name
    (default: all, and day and night where its images have both). Anything else is an `InputError`
    saying what to ask instead."""
    bench, annotations = truth.benchmark, truth.annotations
    specs = []
    for name in protocols or bench.protocols:
        spec = benchmark_protocol(name)
        if spec.miss_rate and name not in bench.protocols:
            raise InputError(
                f"--protocol {name}: {bench.title} is scored by "
                f"{', '.join(bench.protocols)} (and COCO's or YOLOv5's AP: coco, yolov5)"
            )
        specs.append(spec)
    specs = tuple(dict.fromkeys(specs))
    computed = {m for spec in specs for m in spec.computes}
    if metrics:
        for name in metrics:
            if name not in computed:
                raise InputError(
                    f"--metric {name}: the protocols asked for ({', '.join(s.name for s in specs)}) "
                    f"compute {', '.join(sorted(computed))}"
                )
        wanted = tuple(dict.fromkeys(metrics))
    else:
        wanted = None  # each protocol's own (kaist_kit.benchmark_eval.evaluate_benchmark)
    scoring = scoring or ScoringOptions()
    miss_rates = [spec for spec in specs if spec.miss_rate]
    if not miss_rates:
        for option, given in (
            ("--setting", scoring.settings),
            ("--iou", scoring.ious != (0.5,)),
            ("--fppi-range", scoring.fppi_range != DEFAULT_FPPI_RANGE),
            ("--llvip-bounds", scoring.llvip_bounds != "frame"),
        ):
            if given:
                raise InputError(
                    f"{option} applies to the miss rate, which the protocols asked for "
                    f"({', '.join(s.name for s in specs)}) do not compute"
                )
    elif scoring.llvip_bounds != "frame" and not any(spec.fixed_bounds for spec in miss_rates):
        raise InputError(
            f"--llvip-bounds applies to the KAIST scripts' miss rate (leaderboard, matlab), not "
            f"{', '.join(spec.name for spec in miss_rates)}"
        )
    scenes = set(annotations.image_scenes) if annotations is not None else set()
    chosen = list(splits) or (["all", "day", "night"] if {"day", "night"} <= scenes else ["all"])
    for name in chosen:
        annotations.split_mask(name)  # one line naming the ground truth's splits
    return BenchmarkRequest(specs, wanted, tuple(dict.fromkeys(chosen)) + tuple(lists), scoring)


def select_images(path: str | os.PathLike, annotations: GroundTruth) -> list:
    """The image ids a list file names (ids as the ground truth writes them, or frame names), in order;
    an entry the ground truth lacks stops with the list file and its line."""
    from .imagesets import _numbered_items

    by_name = {name: image_id for name, image_id in zip(annotations.image_names, annotations.image_ids) if name}
    chosen = []
    for number, item in _numbered_items(path):
        if item in annotations.index_of_id:
            chosen.append(item)
        elif item.lstrip("-").isdigit() and int(item) in annotations.index_of_id:
            chosen.append(int(item))
        elif (annotations.benchmark and annotations.benchmark.frame(item) in by_name) or item in by_name:
            chosen.append(by_name.get(item) or by_name[annotations.benchmark.frame(item)])
        else:
            raise InputError(
                f"{item[:80]!r} is not an image of the ground truth ({annotations.describe()})", path, number
            )
    return chosen


# --- what is wrong with a result ------------------------------------------------------------------


def ground_truth_findings(truth: BenchmarkTruth) -> list[Finding]:
    """What the ground truth's reader noted (dropped classes, names read as the benchmark's, crowd
    regions, LLVIP's annotation release), one note each."""
    source = str(truth.path) if truth.path else ""
    return [Finding(GROUND_TRUTH_NOTE, note, source=source) for note in truth.notes]


@dataclass
class _Blind:
    """The ground truth's boxes of every class as the KAIST evaluator's `GroundTruth` (images in id
    order where the ids are integers), and the detections of every class on it: what the confident
    checks of `kaist_kit.findings` measure."""

    gt: GroundTruth
    dets: Detections
    gt_class: np.ndarray  # each box's class id, in gt's order
    det_class: np.ndarray  # each detection's category as read
    integer_ids: bool


def _blind(dets: Detections, annotations: GroundTruth) -> _Blind:
    sizes = annotations.image_sizes.copy()
    sizes[np.isnan(sizes)] = np.inf  # no border rule: the checks only overlap boxes
    gt = replace(annotations, image_sizes=sizes)
    blind = Detections(dets.image, dets.boxes, dets.scores, dets.source, dets.format, dets.dropped, dets.facts)
    class_ids = np.array([c.id for c in annotations.classes], np.int64)
    return _Blind(gt, blind, class_ids[annotations.ann_class], dets.category, not annotations.string_ids)


# What numbers written as text cost on these benchmarks: their scripts are not the KAIST leaderboard's
# (pycocotools' loadRes multiplies the box's strings, its evaluate negates the score's; a category id
# "1" is no category of the ground truth's).
STRING_VALUES_COST = (
    "the kit reads them as numbers, but pycocotools crashes on a box or score written so and "
    "never scores a category written so"
)


def inspect_boxes(
    dets: Detections, truth: BenchmarkTruth, protocols: Sequence[BenchmarkProtocol] = ()
) -> list[Finding]:
    """Everything that is wrong with a result of any class before it is scored by these protocols,
    errors first (see the module's docstring)."""
    annotations = truth.annotations
    blind = _blind(dets, annotations)
    found = []
    if len(dets) and (~blind.gt.ignore).any():
        found += _reading_findings(dets, blind, truth, protocols)
    found += [
        replace(f, cost=STRING_VALUES_COST, fix="write numbers") if f.kind is STRING_VALUES else f
        for f in _read_findings(blind.dets, blind.gt)
    ]
    if len(dets) == 0 and not (dets.dropped and dets.dropped.total):
        found.append(Finding(EMPTY, "no detections", "every AP reads 0 and every miss rate 100.00"))
    known = np.isin(dets.category, [c.id for c in annotations.classes])
    if len(dets) and not known.all():
        values, counts = np.unique(dets.category[~known], return_counts=True)
        shown = ", ".join(f"{quantity(int(n), 'detection')} of category {int(v)}" for v, n in zip(values, counts))
        listed = ", ".join(f"{c.id} {c.name}" for c in annotations.classes)
        found.append(Finding(UNKNOWN_CATEGORIES, f"{shown} (the ground truth's: {listed})"))
    present = set(dets.category[known].tolist())
    missing = [
        c
        for c in annotations.classes
        if c.id not in present
        and np.any((annotations.ann_class == annotations.classes.index(c)) & ~annotations.iscrowd)
    ]
    if len(dets) and missing:
        found.append(Finding(MISSING_CLASSES, "no detection of " + ", ".join(f"{c.name} ({c.id})" for c in missing)))
    if len(dets) and dets.format.uploadable and any(p.needs_sorted for p in protocols):
        unsorted = len(images_not_sorted(blind.dets))
        if unsorted:
            names = ", ".join(p.name for p in protocols if p.needs_sorted)
            found.append(
                Finding(
                    UNSORTED,
                    f"detections of {quantity(unsorted, 'image')} are not sorted by descending score",
                    f"the {names} protocol's evaluator scores such a file wrongly",
                    "the kit scores them sorted",
                )
            )
    numpy_sorted = [p for p in protocols if p.numpy_protocol]
    if len(dets) and numpy_sorted:
        printed = numpy_sorted[0].printed  # the scores its evaluator reads
        _, counts = np.unique(as_printed(dets.scores, printed[1]) if printed else dets.scores, return_counts=True)
        tied = int(counts[counts > 1].sum())
        if tied:
            order = describe_order(numpy_sorted[0].kaist().tie_order)
            found.append(
                Finding(
                    TIED_SCORES,
                    f"{quantity(tied, 'detection')} share their score with another",
                    f"{', '.join(p.name for p in numpy_sorted)} orders them as {order} does, the order its "
                    "evaluator's own number depends on",
                )
            )
    return ordered([replace(f, source=dets.source) for f in found])


def _reading_findings(
    dets: Detections, blind: _Blind, truth: BenchmarkTruth, protocols: Sequence[BenchmarkProtocol]
) -> list[Finding]:
    annotations = truth.annotations
    if annotations.box_origin:
        check = origin_check(annotations, dets)
        if check.far_better:
            return [Finding(ORIGIN, check.line(), fix=f"rerun with --origin {check.other}")]
    measured = readings(blind.dets, blind.gt, shifts=blind.integer_ids)
    for reading in measured.others:
        if measured.far_better(reading):
            return [_better_reading(dets, truth, protocols, reading, measured)]
    if measured.at_chance or measured.almost_none:
        images = len(np.unique(dets.image))
        found = (
            f"the {measured.considered} highest-scored detections overlap {measured.hits} boxes of their images"
            + (
                f", and {measured.chance:.0f} on average when each image's detections are moved to a randomly "
                "chosen image"
                if measured.at_chance
                else f" (IoU >= 0.5), fewer than {100 * ALMOST_NONE:g} %"
            )
            + f"; they lie in {images} of the ground truth's {annotations.n_images} images "
            f"({annotations.describe()})"
        )
        return [Finding(WRONG_GT, found, "every AP and miss rate says nothing about the detector")]
    shift = _category_shift(dets, blind)
    if shift:
        base = "from 0" if shift > 0 else "from 1"
        moved = dets.facts.category_offset + shift
        found = (
            f"the category ids look counted {base}: with --category-offset {moved}, the "
            f"{len(_strongest(blind.dets, blind.gt))} highest-scored detections overlap boxes of their class "
            "far more often"
        )
        return [Finding(CATEGORY_OFFSET, found, fix=f"rerun with --category-offset {moved}")]
    return []


def _category_shift(dets: Detections, blind: _Blind) -> int:
    """The shift of the category ids (-1 or 1) that makes the strongest detections overlap boxes of
    their own class closely far more often than as read; 0 when none does."""
    strongest = _strongest(blind.dets, blind.gt)
    pairs = overlaps_by_image(blind.dets.image[strongest], blind.dets.boxes[strongest], blind.gt, min_overlap=0.5)
    close = (pairs.iou >= CLOSE) & ~blind.gt.ignore[pairs.gt]
    det, gt_class = strongest[pairs.det[close]], blind.gt_class[pairs.gt[close]]

    def hits(shift: int) -> int:
        return int(np.unique(det[blind.det_class[det] + shift == gt_class]).size)

    as_read = hits(0)
    best = max((-1, 1), key=hits)
    return best if hits(best) >= MIN_HITS and hits(best) >= READING_RATIO * max(as_read, 1) else 0


def _better_reading(
    dets: Detections, truth: BenchmarkTruth, protocols: Sequence[BenchmarkProtocol], reading, measured
) -> Finding:
    """The corners or id-offset finding, with what it costs the first protocol's headline number."""
    if reading == "corners":
        option = "without --corners" if dets.facts.corners else "with --corners"
        layout = "x, y, width, height" if dets.facts.corners else "corners x1, y1, x2, y2"
        found, kind = f"the boxes look like {layout}", CORNERS
        other = replace(dets, boxes=_corner_boxes(dets.boxes, not dets.facts.corners))
    else:
        offset = dets.facts.id_offset + reading
        found = f"the image ids look written {dets.format.other_base(reading)}"
        option, kind = f"with --id-offset {offset}", ID_OFFSET
        other = _shifted(dets, truth.annotations, reading)
    found += (
        f": {option}, the {measured.considered} highest-scored detections overlap {measured.others[reading]} "
        f"boxes closely (IoU >= {CLOSE}) instead of {measured.close}"
    )
    spec = (list(protocols) or [benchmark_protocol(truth.benchmark.protocols[0])])[0]
    metric = next((m for m in truth.benchmark.metrics if m in spec.metrics), spec.metrics[0])
    values = []
    for which in (dets, other):
        rows = evaluate_benchmark(truth.annotations, which, truth.benchmark, [spec], [metric])
        row = next((r for r in rows if r.category == MEAN), rows[0])
        values.append(percent(row.value(metric)))
    cost = (
        f"measured ({spec.name}, all, {label(metric)} of "
        f"{'the mean' if len(truth.annotations.classes) > 1 else truth.annotations.classes[0].name}): "
        f"{values[0]} as written, {values[1]} {option}"
    )
    return Finding(kind, found, cost, f"rerun {option}")


def _shifted(dets: Detections, annotations: GroundTruth, shift: int) -> Detections:
    if dets.format.image_ids == GT_IDS:
        written = np.array(annotations.image_ids, np.int64)[dets.image] + shift
        lookup = annotations.index_of_id
        image = np.array([lookup.get(int(i), -1) for i in written], np.int64)
    else:  # positions in id order
        order = sorted(range(annotations.n_images), key=annotations.image_ids.__getitem__)
        rank = np.empty(annotations.n_images, np.int64)
        rank[order] = np.arange(annotations.n_images)
        moved = rank[dets.image] + shift
        inside = (moved >= 0) & (moved < annotations.n_images)
        image = np.where(inside, np.array(order, np.int64)[np.clip(moved, 0, annotations.n_images - 1)], -1)
    keep = image >= 0
    return replace(
        dets, image=image[keep], category=dets.category[keep], boxes=dets.boxes[keep], scores=dets.scores[keep]
    )


def score_findings(rows: Sequence[ClassRow], source: str = "") -> list[Finding]:
    """Miss rates that cannot mean anything: a split and setting in which no pedestrian counts."""
    empty = [
        f"{r.setting} {r.split} ({r.protocol}: the ground truth has none there)"
        for r in rows
        if r.setting and r.n_gt == 0
    ]
    if not empty:
        return []
    return [
        Finding(
            NO_PEDESTRIANS,
            "no pedestrian counts in " + "; ".join(dict.fromkeys(empty)),
            "its miss rate is left empty",
            source=source,
        )
    ]


def read_box_inspected(
    path: str | os.PathLike,
    truth: BenchmarkTruth,
    protocols: Sequence[BenchmarkProtocol] = (),
    options: ReadOptions | None = None,
) -> tuple[Detections, list[Finding]]:
    """Read a result of any class as ``options`` say and inspect it; an error finding stops the read
    unless ``options.as_is`` (see `kaist_kit.findings.refuse_errors`)."""
    options = options or ReadOptions()
    dets = load_detections(path, truth.annotations, options)
    return dets, refuse_errors(inspect_boxes(dets, truth, protocols), options.as_is)


# --- rows of several files, and their output ------------------------------------------------------


@dataclass
class BenchmarkReport:
    """Per-class rows of one or more methods, what was found in their files, and the lines printed
    after the tables: the output of `eval`, `compare` and `diagnose` on a benchmark other than KAIST."""

    benchmark: Benchmark
    rows: list[ClassRow]
    findings: list[Finding] = field(default_factory=list)
    ground_truth: str = ""
    after: list[str] = field(default_factory=list)
    by_method: bool = False  # a column per method (compare), else a row per method and class
    errors: dict = field(default_factory=dict)  # diagnose: class -> what its strongest detections are
    light: bool = field(default=False, repr=False)

    def to_json(self) -> dict:
        found = {
            "benchmark": self.benchmark.name,
            "ground_truth": self.ground_truth,
            "results": [r.to_dict() for r in self.rows],
            "findings": [f.to_dict() for f in self.findings],
        }
        if self.errors:
            found["detections_by_type"] = self.errors
        return found

    def to_csv(self) -> str:
        dicts = [r.to_dict() for r in self.rows]
        headers = list(dict.fromkeys(key for d in dicts for key in d))
        cells = [
            [
                "" if d.get(key) is None else repr(d[key]) if isinstance(d[key], float) else str(d[key])
                for key in headers
            ]
            for d in dicts
        ]
        return Table("", headers, cells).to_csv()

    def to_markdown(self) -> str:
        return "\n".join(markdown_sections(self.tables())) + "\n"

    def tables(self) -> list[Table]:
        made = []
        groups = list(dict.fromkeys((r.protocol, r.split) for r in self.rows))
        for protocol, split in groups:
            rows = [r for r in self.rows if (r.protocol, r.split) == (protocol, split)]
            made.append(self._by_method(rows) if self.by_method else self._by_class(rows))
        if made:
            made[-1].note = "\n".join(filter(None, [made[-1].note, f"ground truth: {self.ground_truth}"]))
        if self.errors:
            made.append(error_table(self.errors))
        return made

    def lines(self) -> list[str]:
        return self.after

    def _title(self, rows: Sequence[ClassRow]) -> str:
        first = rows[0]
        spec = benchmark_protocol(first.protocol)
        lower = spec.miss_rate
        what = "Log-average miss rate" if lower else "Average precision"
        return (
            f"{self.benchmark.title}: {what} (%, {'lower' if lower else 'higher'} is better), "
            f"{first.protocol} protocol, {first.split}"
        )

    def _by_class(self, rows: Sequence[ClassRow]) -> Table:
        metrics = list(dict.fromkeys(m for r in rows for m in r.values))
        settings = len({(r.setting, r.iou) for r in rows}) > 1
        labels = ["method", "class"] + (["setting"] if settings else [])
        body = [
            [r.method, r.category] + ([_setting(r)] if settings else []) + [percent(r.value(m)) for m in metrics]
            for r in rows
        ]
        note = "" if settings or not rows[0].setting else f"setting: {_setting(rows[0])}"
        return Table(
            self._title(rows),
            labels + [label(m) for m in metrics],
            body,
            note,
            label_columns=len(labels),
        )

    def _by_method(self, rows: Sequence[ClassRow]) -> Table:
        methods = list(dict.fromkeys(r.method for r in rows))
        keys = list(dict.fromkeys((r.category, _setting(r), m) for r in rows for m in r.values))
        cells = {(r.method, r.category, _setting(r), m): r.value(m) for r in rows for m in r.values}
        settings = len({k[1] for k in keys}) > 1
        labels = ["class"] + (["setting"] if settings else []) + ["metric"]
        body = [
            [category]
            + ([setting] if settings else [])
            + [label(metric)]
            + [percent(cells.get((m, category, setting, metric), math.nan)) for m in methods]
            for category, setting, metric in keys
        ]
        return Table(self._title(rows), labels + methods, body, label_columns=len(labels))


def _setting(row: ClassRow) -> str:
    if not row.setting:
        return ""
    return row.setting + (f" IoU {row.iou:g}" if row.iou not in (None, 0.5) else "")


def evaluate_benchmark_files(
    paths: Sequence[str | os.PathLike],
    truth: BenchmarkTruth,
    request: BenchmarkRequest,
    names: Sequence[str] | None = None,
    options: ReadOptions | None = None,
) -> BenchmarkReport:
    """Per-class rows of every file on a benchmark other than KAIST; every file is read and inspected
    before any is scored, so that an error finding stops the call before the work."""
    names = list(names) if names else unique_method_names(paths)
    read = [read_box_inspected(path, truth, request.protocols, options) for path in paths]
    rows, findings = [], ground_truth_findings(truth)
    for name, (dets, found) in zip(names, read):
        scored = evaluate_benchmark(
            truth.annotations,
            dets,
            truth.benchmark,
            request.protocols,
            request.metrics,
            request.splits,
            name,
            options=request.scoring,
        )
        rows += scored
        findings += found + score_findings(scored, dets.source)
    return BenchmarkReport(truth.benchmark, rows, ordered(findings), truth.describe())


def compare_benchmark_files(
    paths: Sequence[str | os.PathLike],
    truth: BenchmarkTruth,
    request: BenchmarkRequest,
    names: Sequence[str] | None = None,
    options: ReadOptions | None = None,
) -> BenchmarkReport:
    """Two or more methods side by side on a benchmark other than KAIST: a column per method, a row
    per class (and the mean) and metric, for each protocol and split."""
    if len(paths) < 2:
        raise ValueError("compare at least two results")
    names = list(names) if names else unique_method_names(paths)
    if len(names) != len(paths) or len(set(names)) < len(names):
        raise ValueError("give each result a name of its own")
    report = evaluate_benchmark_files(paths, truth, request, names, options)
    report.by_method, report.light = True, True
    report.after = [
        f"{truth.benchmark.title}: per-class numbers side by side; bootstrap intervals and paired tests "
        "are computed for KAIST's miss rate (`kaist-kit compare` without --benchmark)"
    ]
    return report


def diagnose_benchmark_file(
    path: str | os.PathLike,
    truth: BenchmarkTruth,
    request: BenchmarkRequest,
    name: str | None = None,
    options: ReadOptions | None = None,
) -> BenchmarkReport:
    """One method on a benchmark other than KAIST: per-class rows of every protocol the benchmark's
    papers use, in every split its ground truth names, and per class what the detections at IoU 0.5
    are (the highest-scored as many as the class has boxes): correct, on a box of another class, near
    a box of their class (IoU 0.1 to 0.5), duplicated, or on the background."""
    splits = ["all"] + sorted({s for s in truth.annotations.image_scenes if s})
    request = replace(request, splits=tuple(dict.fromkeys([*request.splits, *splits])))
    report = evaluate_benchmark_files([path], truth, request, [name or method_name(path)], options)
    dets = load_detections(path, truth.annotations, options or ReadOptions())
    report.errors = error_counts(dets, truth.annotations)
    report.light = True
    return report


ERROR_TYPES = ("correct", "other class", "localisation", "duplicate", "background")


def error_counts(dets: Detections, annotations: GroundTruth) -> dict[str, dict[str, int]]:
    """Per class, what its highest-scored detections (as many as it has boxes) are at IoU 0.5: see
    `diagnose_benchmark_file`. Crowd and ignored boxes take no part."""
    counted = {}
    usable = ~(annotations.iscrowd | annotations.ignore)
    for k, info in enumerate(annotations.classes):
        of_class = usable & (annotations.ann_class == k)
        n_boxes = int(of_class.sum())
        mine = np.flatnonzero(dets.category == info.id)
        mine = mine[np.argsort(-dets.scores[mine], kind="stable")][:n_boxes]
        counts = dict.fromkeys(ERROR_TYPES, 0)
        taken = np.zeros(len(annotations.ann_ids), bool)
        for d in mine:
            boxes = np.flatnonzero((annotations.ann_image == dets.image[d]) & usable)
            if not len(boxes):
                counts["background"] += 1
                continue
            iou = _iou(dets.boxes[d], annotations.boxes[boxes])
            same = annotations.ann_class[boxes] == k
            free = same & ~taken[boxes] & (iou >= 0.5)
            if free.any():
                taken[boxes[np.flatnonzero(free)[np.argmax(iou[free])]]] = True
                counts["correct"] += 1
            elif (same & (iou >= 0.5)).any():
                counts["duplicate"] += 1
            elif (~same & (iou >= 0.5)).any():
                counts["other class"] += 1
            elif (same & (iou >= 0.1)).any():
                counts["localisation"] += 1
            else:
                counts["background"] += 1
        counts["missed"] = n_boxes - counts["correct"]
        counted[info.name] = counts
    return counted


def _iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """The IoU of a box (x, y, w, h) with each of ``boxes``."""
    with np.errstate(over="ignore", invalid="ignore"):
        iw = np.minimum(box[0] + box[2], boxes[:, 0] + boxes[:, 2]) - np.maximum(box[0], boxes[:, 0])
        ih = np.minimum(box[1] + box[3], boxes[:, 1] + boxes[:, 3]) - np.maximum(box[1], boxes[:, 1])
        inter = np.clip(iw, 0, None) * np.clip(ih, 0, None)
        union = box[2] * box[3] + boxes[:, 2] * boxes[:, 3] - inter
        return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def error_table(counted: dict[str, dict[str, int]]) -> Table:
    """`error_counts` as a table: a row per class."""
    keys = [*ERROR_TYPES, "missed"]
    rows = [[name] + [str(c[k]) for k in keys] for name, c in counted.items()]
    return Table(
        "Each class's highest-scored detections (as many as its boxes) at IoU 0.5",
        ["class", "correct", "other", "loc", "dup", "bg", "missed"],
        rows,
        "other: on a box of another class; loc: IoU 0.1 to 0.5 with a box of its class; dup: on a box of "
        "its class already found; bg: on the background; missed: boxes not found",
    )


# --- a result checked as it is (submit --check) ---------------------------------------------------


@dataclass
class BenchmarkCheck:
    """A result file on a benchmark other than KAIST as `submit --check` reports it: what it holds,
    what is wrong with it, and its self-evaluated headline numbers (none when it looks misread)."""

    benchmark: Benchmark
    source: str
    summary: str
    ground_truth: str
    findings: list[Finding]
    rows: list[ClassRow]

    @property
    def ok(self) -> bool:
        """No finding that says the file is misread."""
        return not any(f.kind.level == "error" for f in self.findings)

    def lines(self) -> list[str]:
        made = [self.summary, f"ground truth: {self.ground_truth}"]
        made += [f"{f.level}: {f.line(with_source=False)}" for f in self.findings]
        if not self.ok:
            made.append(
                f"{self.benchmark.title}: this file looks misread; its numbers would say nothing about the "
                "detector (the fix is above)"
            )
            return made
        for protocol in dict.fromkeys(r.protocol for r in self.rows):
            rows = [r for r in self.rows if r.protocol == protocol]
            metrics = list(dict.fromkeys(m for r in rows for m in r.values))
            made.append(f"self-evaluated ({protocol} protocol, all, %): " + ", ".join(f"{label(m)}" for m in metrics))
            made += [f"  {r.category:<12}" + "".join(f"{percent(r.value(m)):>8}" for m in metrics) for r in rows]
        return made


def check_benchmark_file(
    path: str | os.PathLike, truth: BenchmarkTruth, request: BenchmarkRequest, options: ReadOptions | None = None
) -> BenchmarkCheck:
    """A result of any class checked as it is (no error finding stops it) and, when nothing says it
    is misread, scored on every image by the benchmark's protocols."""
    options = options or ReadOptions()
    dets = load_detections(path, truth.annotations, replace(options, as_is=False))
    findings = ordered(ground_truth_findings(truth) + inspect_boxes(dets, truth, request.protocols))
    categories = len(np.unique(dets.category))
    summary = (
        f"{Path(str(path)).name}: {dets.format.title}, {quantity(len(dets), 'detection')} of "
        f"{quantity(categories, 'category', 'categories')} on {quantity(len(np.unique(dets.image)), 'image')}"
    )
    check = BenchmarkCheck(truth.benchmark, dets.source, summary, truth.describe(), findings, [])
    if check.ok:
        check.rows = evaluate_benchmark(
            truth.annotations,
            dets,
            truth.benchmark,
            request.protocols,
            request.metrics,
            ("all",),
            method_name(path),
            options=request.scoring,
        )
    return check
