"""Scoring result files on any benchmark, as `eval`, `compare`, `diagnose` and `submit --check` do.

- `open_truth`: the ground truth the verbs score against and the benchmark it is: the file given (its
  benchmark recognised from its content when it can be, `kaist_kit.datasets.recognise`), a dataset's
  folder in its native layout, or the benchmark's pinned file; `BenchmarkTruth.line` says which
  benchmark was taken and why, in one line.
- `make_request`: the protocols, metrics, splits and options asked for, checked against the benchmark
  and its layout (one line naming what to ask instead): a `ScoringRequest`.
- `evaluate_files`, `compare_files`, `diagnose_file`, `check_benchmark_file`: the verbs' one call each.
  Every file is read and judged against the ground truth before any is scored (`kaist_kit.scoring.findings`, the
  same checks on every benchmark), then scored by `kaist_kit.metrics.per_class` and reported in the
  benchmark's `Layout`: KAIST's "splits" (miss-rate tables with splits as columns, curves, bootstrap
  intervals, the full diagnosis) or "classes" (`BenchmarkReport`, a row per class).
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..data.detections import Detections, ReadOptions, method_name
from ..data.groundtruth import GroundTruth, ground_truth_from_bytes
from ..data.results import load_detections
from ..datasets import DEFAULT_BENCHMARK, KAIST, Benchmark, get_benchmark, recognise
from ..datasets.kaist_truth import check_cached_gt, is_cached_gt
from ..errors import InputError, percent, quantity
from ..io.download import Progress
from ..io.read import read_bytes
from ..io.text import decode_text, parse_json
from ..metrics.bootstrap import RESAMPLING, Resampling
from ..metrics.evaluate import unique_method_names
from ..metrics.per_class import BenchmarkProtocol, ClassRow, ScoringOptions, benchmark_protocol, evaluate_benchmark
from ..metrics.settings import DEFAULT_FPPI_RANGE, get_protocol, with_fppi_range
from ..metrics.spec import iou_conflict, label
from ..output.plots import check_figure_path, plot_results
from ..output.tables import Table, markdown_sections
from .findings import Finding, ground_truth_notes, inspect, inspect_scores, ordered, read_inspected

Echo = Callable[[str], None]


# --- the ground truth and its benchmark -----------------------------------------------------------


@dataclass
class BenchmarkTruth:
    """A ground truth, the benchmark it is scored as, and why."""

    benchmark: Benchmark
    why: str  # why this benchmark: named, recognised, the default
    annotations: GroundTruth
    path: Path | None = None

    @property
    def line(self) -> str:
        """The line the verbs print: which benchmark was taken, and why."""
        return f"benchmark: {self.benchmark.name} ({self.why})"

    @property
    def announced(self) -> bool:
        """Whether the verbs print `line`: for every benchmark but the kit's default (KAIST), whose output
        stays as it always was."""
        return not self.benchmark.quiet

    def describe(self) -> str:
        return self.annotations.describe()

    @property
    def notes(self) -> list[str]:
        return list(self.annotations.notes)


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
    if origin is not None and not (folder and named is not None and named.box_origins):
        raise InputError(
            "--origin applies to CVC-14's annotation files, read from the dataset's folder "
            "(--gt FOLDER --benchmark cvc-14)"
        )
    if path is None:
        bench = named or DEFAULT_BENCHMARK
        rules = bench.pinned_rules
        if rules is not None:  # the dataset's own (KAIST's: $KAIST_KIT_GT, a changed cache refused)
            found = rules.find(echo=echo, progress=progress)
            gt = rules.read(found)
            why = "its pinned ground truth" if gt.is_pinned_file else f"the default ground truth {found}"
        else:
            from ..datasets.pinned import find_pinned

            found = find_pinned(bench, echo=echo, progress=progress)
            gt = _read_truth(read_bytes(found), found, bench)
            why = f"its pinned ground truth, {Path(found).name}"
        return BenchmarkTruth(bench, why if named else f"the default; {why}", gt, path=Path(found))
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
        bench = found.benchmark if found else DEFAULT_BENCHMARK
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
    return BenchmarkTruth(bench, why, _read_truth(raw, path, bench, data, text, md5), path=path)


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


def _read_truth(raw: bytes, path, bench: Benchmark, data=None, text=None, md5=None) -> GroundTruth:
    """The ground truth of a file's bytes read by the benchmark's rules (``data``, ``text`` and ``md5``: the
    file already parsed and its MD5 already computed), with what the dataset's quirks say of it."""
    annotations = ground_truth_from_bytes(raw, path, data, text, md5, benchmark=bench)
    if bench.truth_notes is not None:  # a dataset's quirk: LLVIP's annotation release
        annotations.notes.extend(bench.truth_notes(annotations))
    return annotations


def _native_truth(root: Path, named: Benchmark | None, split: str, origin: str) -> BenchmarkTruth:
    from ..datasets.readers import read_benchmark

    if named is None or named.read_native is None:
        raise InputError(
            "a folder: name the benchmark whose layout it is (--benchmark flir-aligned, llvip, cvc-14 "
            "or m3fd); KAIST's annotation folders are converted with `kaist-kit convert`",
            root,
        )
    options = {"origin": origin} if named.box_origins else {}
    try:
        annotations = read_benchmark(named, root, split, **options)
    except ValueError as exc:
        raise InputError(str(exc), root) from None
    return BenchmarkTruth(
        named, f"as named; its {split} annotations read from the dataset's folder", annotations, path=root
    )


# --- what is asked --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """How a benchmark's numbers are reported, and the analyses that come with it."""

    name: str
    description: str  # what it offers, as a refusal of one of its options says
    report: Callable  # (request, rows, findings) -> what `eval` prints, in every output format
    # What it offers; each is off unless a layout says so.
    curves: bool = False  # MR-FPPI curves in JSON (--curves) and figures (--plot)
    intervals: bool = False  # compare: bootstrap intervals and paired tests of the miss rate
    diagnosis: bool = False  # diagnose: the full diagnosis of the miss rate (false positives, misses, oracles)
    other_ap: bool = False  # COCO's and YOLOv5's AP asked for beside the benchmark's own protocols
    every_protocol: bool = False  # scored by default by every protocol of the benchmark's, else by its first
    periods_always: bool = False  # day and night scored by default even where the images have one of them


OTHER_AP = ("coco", "yolov5")


class OptionError(InputError):
    """An option given where it does not apply, or with a value it cannot take: its line names the option
    as the command line's own errors do."""

    def __init__(self, option: str, reason: str):
        self.option = option
        super().__init__(f"{option}: {reason}")


@dataclass(frozen=True)
class ScoringRequest:
    """What to compute on a benchmark, checked against its spec (`make_request`): protocols, metrics (None:
    each protocol's own), splits (names or (name, images)), the miss rates' options, how results are read,
    their methods' names, and the JSON's curves."""

    truth: BenchmarkTruth
    protocols: tuple[BenchmarkProtocol, ...]
    metrics: tuple[str, ...] | None
    splits: tuple
    scoring: ScoringOptions = ScoringOptions()
    read: ReadOptions = ReadOptions()
    names: tuple[str, ...] | None = None
    curves: bool = False

    @property
    def layout(self) -> Layout:
        return LAYOUTS[self.truth.benchmark.layout]

    @property
    def settings(self) -> tuple[str, ...]:
        return self.scoring.settings or self.truth.benchmark.lamr_settings[:1]


def make_request(
    truth: BenchmarkTruth,
    *,
    protocols: Sequence[str] = (),
    metrics: Sequence[str] = (),
    splits: Sequence[str] = (),
    images: Sequence[str | os.PathLike] = (),
    scoring: ScoringOptions | None = None,
    read: ReadOptions | None = None,
    names: Sequence[str] | None = None,
    curves: bool = False,
) -> ScoringRequest:
    """The request checked against the benchmark and its ground truth: protocols it can be scored by
    (its own; COCO's and YOLOv5's AP where its layout shows them), metrics one of them computes, splits
    its images name (default: all, and day and night where its images have both; ``images``: list files,
    each an extra split), options that apply to what is asked. Anything else is an `InputError` saying
    what to ask instead."""
    from ..data.imagesets import list_split_names, select_images

    bench, gt = truth.benchmark, truth.annotations
    layout = LAYOUTS[bench.layout]
    default = bench.protocols if layout.every_protocol else bench.protocols[:1]
    specs = tuple(dict.fromkeys(_protocol(name, bench, layout) for name in protocols or default))
    computed = {m for spec in specs for m in spec.computes}
    for name in metrics:
        if name not in computed:
            raise InputError(
                f"--metric {name}: the protocols asked for ({', '.join(s.name for s in specs)}) "
                f"compute {', '.join(sorted(computed))}"
            )
    scoring = scoring or ScoringOptions()
    read = read or ReadOptions()
    for name in scoring.settings or ():
        _setting_of(name, bench)
    _check_options(bench, layout, specs, scoring, read, curves)
    conflict = iou_conflict(metrics or [m for spec in specs for m in spec.metrics], scoring.ious)
    if conflict:
        raise InputError(conflict)
    scenes = set(gt.image_scenes)
    both = layout.periods_always or {"day", "night"} <= scenes
    chosen = list(dict.fromkeys(splits)) or (["all", "day", "night"] if both else ["all"])
    for name in chosen:
        gt.split_mask(name)  # one line naming the ground truth's splits
    lists = [(name, select_images(path, gt)) for path, name in zip(images, list_split_names(images, chosen))]
    metrics = tuple(dict.fromkeys(metrics)) or None  # None: each protocol's own
    return ScoringRequest(truth, specs, metrics, tuple(chosen) + tuple(lists), scoring, read, names, curves)


def _protocol(name: str, bench: Benchmark, layout: Layout) -> BenchmarkProtocol:
    spec = benchmark_protocol(name)
    if name not in bench.protocols and not (layout.other_ap and name in OTHER_AP):
        others = " (and COCO's or YOLOv5's AP: coco, yolov5)" if layout.other_ap else ""
        raise OptionError(f"--protocol {name}", f"{bench.title} is scored by {' or '.join(bench.protocols)}{others}")
    return spec


def _setting_of(name: str, bench: Benchmark) -> None:
    """Refuse a setting that only another benchmark's protocol names (MS-DETR's 'Scale=far' on KAIST)."""
    from ..datasets import BENCHMARKS
    from ..metrics.per_class import protocols_of
    from ..metrics.settings import get_setting

    if any(s.name == name for p in protocols_of(bench) for s in p.settings):
        return
    try:
        get_setting(name)
    except ValueError as exc:
        owners = [
            (b, p) for b in BENCHMARKS.values() for p in protocols_of(b) if any(s.name == name for s in p.settings)
        ]
        if not owners:  # no protocol's name either: the kit's own message says what it takes
            raise OptionError("--setting", str(exc)) from None
        owner, protocol = owners[0]
        raise OptionError(
            "--setting",
            f"{name!r} is a setting of {owner.title} as the {protocol.name} protocol names it "
            f"(--benchmark {owner.name}), not {bench.title}'s: {exc}",
        ) from None


def _check_options(
    bench: Benchmark,
    layout: Layout,
    specs: Sequence[BenchmarkProtocol],
    scoring: ScoringOptions,
    read: ReadOptions,
    curves: bool,
) -> None:
    """Options that apply to none of what is asked: one line naming the first."""
    miss_rates = [spec for spec in specs if spec.miss_rate]
    scored_as = f"the ground truth is scored as {bench.name}"
    for option, given in (
        ("--setting", bool(scoring.settings)),
        ("--iou", scoring.ious != (0.5,)),
        ("--fppi-range", scoring.fppi_range != DEFAULT_FPPI_RANGE),
        ("--llvip-bounds", scoring.llvip_bounds != "frame" and bench.image_size != KAIST.image_size),
    ):
        if given and not miss_rates:
            raise InputError(
                f"{option} applies to the miss rate, which the protocols asked for "
                f"({', '.join(s.name for s in specs)}) do not compute"
            )
    if curves and not layout.curves:
        raise OptionError("--curves", f"applies to {LAYOUTS['splits'].description}; {scored_as}")
    if not read.devkit_shift and bench.flat_pattern is None:
        raise OptionError("--no-devkit-shift", f"applies to {LAYOUTS['splits'].description}; {scored_as}")
    if read.category_offset and bench.truth_rules.one_class:
        raise OptionError("--category-offset", f"applies to {LAYOUTS['classes'].description}; {scored_as}")
    if scoring.llvip_bounds != "frame":
        if bench.image_size == KAIST.image_size:  # the scripts' fixed bounds are its own frame
            raise OptionError("--llvip-bounds", f"applies to {LAYOUTS['classes'].description}; {scored_as}")
        if not any(spec.fixed_bounds for spec in miss_rates):
            raise InputError(
                f"--llvip-bounds applies to the KAIST scripts' miss rate (leaderboard, matlab), not "
                f"{', '.join(spec.name for spec in miss_rates)}"
            )


def analysis_options(layout: Layout, **given) -> None:
    """Options of an analysis the benchmark's layout does not offer (``given``: option -> (whether it was
    given, the capability it needs: 'curves', 'intervals' or 'diagnosis')): one line naming the first."""
    for option, (value, needs) in given.items():
        if value and not getattr(layout, needs):
            offered = next(other for other in LAYOUTS.values() if getattr(other, needs))
            raise OptionError(option, f"applies to {offered.description}; it is not offered on {layout.description}")


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

    def said(self) -> list[str]:
        return []  # it writes no file

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


def evaluate_files(request: ScoringRequest, paths: Sequence[str | os.PathLike], plot: str | os.PathLike | None = None):
    """`eval`: every file read and inspected before any is scored (an error finding stops the call before
    the work), then scored as asked, in the benchmark's layout (its `Layout.report`); with ``plot``, the
    MR-FPPI curves drawn there too."""
    if plot is not None:
        analysis_options(request.layout, **{"--plot": (True, "curves")})
        check_figure_path(plot)
    names = list(request.names) if request.names else unique_method_names(paths)
    rows, findings = _scored(request, paths, names)
    report = request.layout.report(request, rows, findings)
    if plot is not None:
        plot_results([row.result for row in _in_table_order(rows, request)], plot)
    return report


def _scored(request: ScoringRequest, paths: Sequence, names: Sequence[str]) -> tuple[list[ClassRow], list[Finding]]:
    gt = request.truth.annotations
    read = [
        read_inspected(path, gt, request.settings, request.splits, request.protocols, request.read) for path in paths
    ]
    rows, findings = [], ground_truth_notes(gt)
    for name, (dets, found) in zip(names, read):
        scored = evaluate_benchmark(
            gt, dets, request.truth.benchmark, request.protocols, request.metrics, request.splits, name,
            options=request.scoring,
        )  # fmt: skip
        rows += scored
        findings += found + inspect_scores([r.result for r in scored if r.result is not None], dets)
    return rows, findings


def _in_table_order(rows: Sequence[ClassRow], request: ScoringRequest) -> list[ClassRow]:
    """Miss-rate rows by method, protocol, setting, IoU and split (the order of a table of splits as
    columns), from the rows' order of method, split and protocol."""
    protocols = [spec.name for spec in request.protocols]
    splits = [split if isinstance(split, str) else split[0] for split in request.splits]
    methods = list(dict.fromkeys(row.method for row in rows))
    settings = list(dict.fromkeys(row.setting for row in rows))
    ious = list(request.scoring.ious)
    return sorted(
        (row for row in rows if row.result is not None),
        key=lambda r: (
            methods.index(r.method),
            protocols.index(r.protocol),
            settings.index(r.setting),
            ious.index(r.iou),
            splits.index(r.split),
        ),
    )


def _splits_report(request: ScoringRequest, rows: Sequence[ClassRow], findings: list[Finding]):
    from .report import EvalReport

    results = [row.result for row in _in_table_order(rows, request)]
    return EvalReport(results, findings, request.truth.describe(), request.curves)


def _classes_report(request: ScoringRequest, rows: Sequence[ClassRow], findings: list[Finding]) -> BenchmarkReport:
    return BenchmarkReport(request.truth.benchmark, list(rows), ordered(findings), request.truth.describe())


def compare_files(
    request: ScoringRequest,
    paths: Sequence[str | os.PathLike],
    resampling: Resampling = RESAMPLING,
    plot: str | os.PathLike | None = None,
):
    """`compare`: two or more methods side by side, with bootstrap intervals and paired tests of their
    miss rates where the benchmark's layout offers them (``resampling``; ``plot``: the curves),
    else their rows side by side."""
    from . import comparison

    layout = request.layout
    changed = resampling != RESAMPLING
    analysis_options(layout, **{"--resamples/--seed": (changed, "intervals"), "--plot": (plot is not None, "curves")})
    if len(paths) < 2:
        raise OptionError("RESULT", "give at least two results to compare")
    names = list(request.names) if request.names else unique_method_names(paths)
    if len(names) != len(paths) or len(set(names)) < len(names):
        raise OptionError("--name", "two results have the same name; name them with --name")
    if plot is not None:
        check_figure_path(plot)
    if not layout.intervals:
        rows, findings = _scored(request, paths, names)
        report = _classes_report(request, rows, findings)
        report.by_method, report.light = True, True
        report.after = [
            f"{request.truth.benchmark.title}: per-class numbers side by side; bootstrap intervals and paired "
            "tests are computed for KAIST's miss rate (`kaist-kit compare` without --benchmark)"
        ]
        return report
    protocol = with_fppi_range(get_protocol(request.protocols[0].kaist()), request.scoring.fppi_range)
    splits = [split for split in request.splits if isinstance(split, str)]
    found = comparison.compare_files(
        paths, request.truth.annotations, names, protocol, request.scoring.settings, splits, resampling,
        request.scoring.ious[0], request.read,
    )  # fmt: skip
    if plot is not None:
        plot_results(found.comparison.results(), plot)
    return found


def diagnose_file(
    request: ScoringRequest,
    path: str | os.PathLike,
    params=None,
    *,
    out_dir: str | os.PathLike | None = None,
    pictures: Sequence[str | os.PathLike] = (),
    matches: str | os.PathLike | None = None,
):
    """`diagnose`: one method, diagnosed as the benchmark's layout offers (the full diagnosis of the miss
    rate, `kaist_kit.diagnosis`, with ``params`` and its files; else per-class rows of every protocol and
    split, and what each class's strongest detections are)."""
    from ..diagnosis import DiagnosisParams
    from ..diagnosis.run import diagnose_file as diagnose_curve

    params = params or DiagnosisParams()
    given = {option: (True, "diagnosis") for option in params.options_given()}
    given.update({"--out": (out_dir is not None, "diagnosis"), "--matches": (matches is not None, "diagnosis")})
    given["--images"] = (bool(pictures), "diagnosis")
    analysis_options(request.layout, **given)
    name = request.names[0] if request.names else None
    if request.layout.diagnosis:
        params = replace(
            params,
            protocol=request.protocols[0].kaist(),
            splits=tuple(split for split in request.splits if isinstance(split, str)),
            iou=request.scoring.ious[0],
            fppi_range=request.scoring.fppi_range,
        )
        gt_path = request.truth.path
        pictures = pictures or ([gt_path.parent / "images", gt_path.parent] if gt_path else [])
        return diagnose_curve(
            path, request.truth.annotations, params, request.read, name, out_dir=out_dir, pictures=pictures,
            matches=matches,
        )  # fmt: skip
    return diagnose_benchmark_file(path, request.truth, request, name)


def diagnose_benchmark_file(path: str | os.PathLike, truth: BenchmarkTruth, request: ScoringRequest, name=None):
    """One method on a benchmark reported by class: per-class rows of every protocol the benchmark's
    papers use, in every split its ground truth names, and per class what the detections at IoU 0.5
    are (the highest-scored as many as the class has boxes): correct, on a box of another class, near
    a box of their class (IoU 0.1 to 0.5), duplicated, or on the background."""
    splits = ["all"] + sorted({s for s in truth.annotations.image_scenes if s})
    request = replace(request, splits=tuple(dict.fromkeys([*request.splits, *splits])))
    rows, findings = _scored(request, [path], [name or method_name(path)])
    report = _classes_report(request, rows, findings)
    dets = load_detections(path, truth.annotations, request.read)
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


def check_benchmark_file(path: str | os.PathLike, request: ScoringRequest) -> BenchmarkCheck:
    """A result of any class checked as it is (no error finding stops it) and, when nothing says it
    is misread, scored on every image by the benchmark's protocols."""
    truth = request.truth
    dets = load_detections(path, truth.annotations, replace(request.read, as_is=False))
    findings = ordered(
        ground_truth_notes(truth.annotations)
        + inspect(dets, truth.annotations, request.settings, ("all",), request.protocols)
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


LAYOUTS = {
    layout.name: layout
    for layout in (
        Layout(
            name="splits",
            description="KAIST's scoring (its settings, curves and figures)",
            report=_splits_report,
            curves=True,
            intervals=True,
            diagnosis=True,
            periods_always=True,
        ),
        Layout(
            name="classes",
            description="the other benchmarks (--benchmark)",
            report=_classes_report,
            other_ap=True,
            every_protocol=True,
        ),
    )
}
