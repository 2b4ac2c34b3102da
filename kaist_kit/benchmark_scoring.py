"""Scoring result files on any benchmark, as `eval`, `compare`, `diagnose` and `submit` do.

- `open_truth`: the ground truth the verbs score against and the benchmark it is: the file given (its
  benchmark recognised from its content when it can be, `kaist_kit.benchmarks.recognise`), a dataset's
  folder in its native layout, or the benchmark's pinned file; `BenchmarkTruth.line` says which
  benchmark was taken and why, in one line.
- `benchmark_request`: the protocols, metrics, splits and miss-rate options asked for, checked against
  the benchmark (one line naming what to ask instead).
- `read_box_inspected`: a result read and judged against the ground truth before it is scored
  (`kaist_kit.findings.inspect`, the same checks on every benchmark), with what the ground truth's
  reader noted.
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
    BenchmarkProtocol,
    ClassRow,
    ScoringOptions,
    benchmark_protocol,
    evaluate_benchmark,
)
from .benchmarks import KAIST, LLVIP, Benchmark, get_benchmark, recognise
from .data.detections import Detections, ReadOptions, method_name
from .data.groundtruth import GroundTruth, ground_truth_from_bytes, ground_truth_from_coco
from .data.results import load_detections
from .download import Progress
from .errors import InputError, quantity
from .evaluate import unique_method_names
from .files import decode_text, parse_json, read_bytes
from .findings import Finding, ground_truth_notes, inspect, inspect_scores, ordered, read_inspected
from .groundtruth import check_cached_gt, find_gt, is_cached_gt, load_ground_truth
from .metrics.spec import label
from .settings import DEFAULT_FPPI_RANGE
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


def read_box_inspected(
    path: str | os.PathLike,
    truth: BenchmarkTruth,
    request: BenchmarkRequest,
    options: ReadOptions | None = None,
) -> tuple[Detections, list[Finding]]:
    """Read a result of any class as ``options`` say and inspect it for the request's protocols; an
    error finding stops the read unless ``options.as_is`` (see `kaist_kit.findings.refuse_errors`)."""
    settings = request.scoring.settings or truth.benchmark.lamr_settings[:1]
    return read_inspected(path, truth.annotations, settings, request.splits, request.protocols, options)


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
    read = [read_box_inspected(path, truth, request, options) for path in paths]
    rows, findings = [], ground_truth_notes(truth.annotations)
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
        findings += found + inspect_scores([r.result for r in scored if r.result is not None], dets)
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
    settings = request.scoring.settings or truth.benchmark.lamr_settings[:1]
    findings = ordered(
        ground_truth_notes(truth.annotations) + inspect(dets, truth.annotations, settings, ("all",), request.protocols)
    )
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
