"""Scoring a method on any benchmark: per-class rows of COCO's AP, YOLOv5's AP and the miss rate.

`evaluate_benchmark` is the one call: it runs each protocol the benchmark's papers use on each split
and returns `ClassRow`s, one per class and split (and one for the mean over the classes, ``category``
``mean``, where there is more than one class). A row's JSON (`ClassRow.to_dict`) is the shape every
verb writes for the other benchmarks::

    {"method": "m", "benchmark": "flir-aligned", "protocol": "coco", "split": "all", "category": "car",
     "ap": 0.41, "ap50": 0.73, "ap75": 0.40, "n_images": 1013, "n_gt": 4124}

Metrics are fractions; a metric that is undefined (no ground truth of the class counts) is ``null``.
Miss-rate rows add ``setting`` and ``iou``.

The miss rate is the KAIST evaluator's (`kaist_kit.metrics.evaluate`), run on the benchmark's person boxes
with its frame size and ignore rules:

- CVC-14 (protocol ``ms-detr``): the devkit's rules as MS-DETR's evaluation of CVC-14 applies them
  (eval/kaist_eval_full.py with eval/bbGt.py): its settings under its names (``Reasonable``, height >=
  55, no or partial occlusion, by default; `kaist_kit.metrics.ms_detr`), boxes closer than 5 pixels to the
  640 x 471 visible frame ignored (its xRng [5, 635], yRng [5, 466]), every test frame counted, recall
  0 below the curve's first FPPI, miss rates floored at 1e-10, the nine log miss rates averaged by
  numpy's mean (``np.mean``, pairwise) where the devkit sums them in order, and the reference FPPIs and
  the order of tied scores as numpy 1.26 gives them on this machine (``ScoringOptions.tie_order`` names
  another). ``matlab`` is the clean reading: exact powers, stable sorts, the devkit's own sum.
- LLVIP (protocol ``leaderboard``): the KAIST leaderboard's evaluator, which the papers reporting a
  miss rate on LLVIP run on an LLVIP ground truth in its JSON format: reasonable, images without
  detections leave out their pedestrians, the rounded reference FPPIs. That script's border bounds
  are fixed at KAIST's [5, 5, 635, 507]; ``llvip_bounds='frame'`` (the default) applies the 5-pixel
  border to LLVIP's 1280 x 1024 frame instead, ``'kaist'`` reproduces the script run unchanged (which
  ignores every box reaching past x = 635 or y = 507).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..data.detections import Detections
from ..data.groundtruth import GroundTruth
from ..datasets import KAIST, Benchmark, get_benchmark
from .cocoeval import COCO_METRICS, coco_evaluate
from .evaluate import Result, is_log_average
from .ms_detr import RESULT_KEYS as MS_DETR_RESULT_KEYS
from .ms_detr import SETTINGS as MS_DETR_SETTINGS
from .ms_detr import ms_detr_protocol
from .settings import DEFAULT_FPPI_RANGE, Protocol, Setting, get_setting
from .spec import COCO, LAMR, MISS_RATE, names_of
from .spec import YOLOV5 as YOLOV5_READS
from .yolov5 import Yolov5Protocol, yolov5_evaluate

MEAN = "mean"
YOLOV5_METRICS = names_of(YOLOV5_READS)
YOLOV5 = Yolov5Protocol()
BOUNDS = ("frame", "kaist")


@dataclass
class ClassRow:
    """One method's numbers for one class (or the mean over classes), split and protocol."""

    method: str
    benchmark: str
    protocol: str
    split: str
    category: str  # the class's name, or 'mean'
    values: dict[str, float]  # metric -> fraction; nan where undefined
    n_images: int
    n_gt: int | None  # ground truths that count (None for the mean)
    setting: str = ""  # miss-rate rows: the setting
    iou: float | None = None  # miss-rate rows: the matching threshold
    extra: dict = field(default_factory=dict)
    # Miss-rate rows: the KAIST evaluator's result (its curve, miss rates and reference FPPIs).
    result: Result | None = field(default=None, repr=False, compare=False)

    def value(self, metric: str) -> float:
        return self.values[metric]

    def to_dict(self) -> dict:
        out = {
            "method": self.method,
            "benchmark": self.benchmark,
            "protocol": self.protocol,
            "split": self.split,
            "category": self.category,
        }
        if self.setting:
            out.update(setting=self.setting, iou=self.iou)
        out.update({name: None if math.isnan(value) else value for name, value in self.values.items()})
        out.update(n_images=self.n_images, n_gt=self.n_gt, **self.extra)
        return out


@dataclass(frozen=True)
class ScoringOptions:
    """What the protocols read besides the ground truth and the detections (each protocol reads its own)."""

    yolov5: Yolov5Protocol = YOLOV5  # yolov5: conf_thres and max_det
    # Miss rates: the settings (default: the benchmark's first), the matching thresholds and the
    # reference FPPI range.
    settings: tuple[str, ...] | None = None
    ious: tuple[float, ...] = (0.5,)
    fppi_range: tuple[float, float] = DEFAULT_FPPI_RANGE
    # The border of the KAIST scripts' miss rate ('leaderboard', 'matlab') on another benchmark:
    # 'frame', 5 pixels from the benchmark's own frame; 'kaist', the scripts' fixed bounds, KAIST's
    # [5, 5, 635, 507], as they run unchanged (what LLVIP papers that report a miss rate ran).
    llvip_bounds: str = "frame"
    # A protocol that reproduces an evaluator on numpy (ms-detr): the numpy and CPU whose reference
    # points and order of tied scores it takes ('' numpy 1.26 on this machine; kaist_kit.metrics.sort_orders).
    tie_order: str = ""

    def __post_init__(self) -> None:
        if self.llvip_bounds not in BOUNDS:
            raise ValueError(f"llvip_bounds must be 'frame' or 'kaist', not {self.llvip_bounds!r}")


@dataclass(frozen=True)
class BenchmarkProtocol:
    """How one community scores a benchmark: the metrics it computes and its evaluator, with what
    sets its rules apart. The verbs and the findings ask the spec, never the protocol's name."""

    name: str  # as --protocol and the rows name it
    description: str
    metrics: tuple[str, ...]  # what its tables report, by the kit's names (the default of a request)
    # (SplitScoring, protocol) -> rows
    rows: Callable[..., list[ClassRow]]
    evaluator: str = MISS_RATE  # the evaluator it runs (kaist_kit.metrics.spec): what it can compute
    # Miss-rate protocols: the KAIST evaluator's protocol it runs (kaist_kit.metrics.settings.PROTOCOLS), or,
    # for an evaluator whose numbers depend on the numpy it runs on, the protocol for a numpy and CPU
    # (ScoringOptions.tie_order); and whether the nine log miss rates are averaged by numpy's mean
    # (MS-DETR) instead of the devkit's sum.
    kaist_protocol: str = ""
    numpy_protocol: Callable[[str], Protocol] | None = None
    numpy_mean: bool = False
    # The settings it names itself (a kit setting with the same rules takes its name), and the key its
    # evaluator reports each (setting, split) under.
    settings: tuple[Setting, ...] = ()
    result_keys: tuple[tuple[tuple[str, str], str], ...] = ()
    # The printf formats its evaluator writes a detection's x, y, w, h and score with before it reads
    # them back (MS-DETR's aggregate_detections: '%.4f', '%.8f'), so rounds them to; () for none.
    printed: tuple[str, str] = ()
    # Whether its script's border is KAIST's fixed bounds when run unchanged (ScoringOptions.llvip_bounds).
    fixed_bounds: bool = False
    # Whether its evaluator scores an image's detections in file order, so that a file not sorted by
    # descending score is mis-scored (the `unsorted` finding).
    needs_sorted: bool = False

    @property
    def miss_rate(self) -> bool:
        return bool(self.kaist_protocol or self.numpy_protocol)

    @property
    def computes(self) -> tuple[str, ...]:
        """Every metric it can compute: those its evaluator reads (kaist_kit.metrics.spec)."""
        return names_of(self.evaluator)

    def kaist(self, tie_order: str = "") -> str | Protocol:
        """The KAIST evaluator's protocol it runs (for the numpy of ``tie_order`` where that matters)."""
        return self.numpy_protocol(tie_order) if self.numpy_protocol else self.kaist_protocol

    def result_key(self, setting: str, split: str) -> str:
        """The key its evaluator reports this setting and split under ('' for none)."""
        return dict(self.result_keys).get((setting, split), "")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class SplitScoring:
    """One split of a scoring request, as a protocol's rows are computed from it (`BenchmarkProtocol.rows`)."""

    annotations: GroundTruth
    detections: Detections
    images: np.ndarray  # the split's images (a mask of the ground truth's)
    metrics: Sequence[str]
    bench: Benchmark
    split: str
    method: str = ""
    options: ScoringOptions | None = None

    def row(self, protocol: str, klass: str, values: dict, n_images: int, n_gt: int | None) -> ClassRow:
        return ClassRow(self.method, self.bench.name, protocol, self.split, klass, values, n_images, n_gt)


def coco_rows(scoring: SplitScoring, protocol: BenchmarkProtocol | None = None) -> list[ClassRow]:
    name = (protocol or COCO_AP).name
    metrics = scoring.metrics
    result = coco_evaluate(scoring.annotations, scoring.detections, scoring.images)
    rows = [
        scoring.row(name, klass, result.summaries(metrics, k), result.n_images, int(result.n_gt[k, 0]))
        for k, klass in enumerate(result.class_names)
    ]
    if len(rows) > 1:
        rows.append(scoring.row(name, MEAN, result.summaries(metrics), result.n_images, None))
    return rows


def yolov5_rows(scoring: SplitScoring, protocol: BenchmarkProtocol | None = None) -> list[ClassRow]:
    name = (protocol or YOLOV5_AP).name
    options, metrics = scoring.options, scoring.metrics
    settings = options.yolov5 if isinstance(options, ScoringOptions) else options or YOLOV5
    result = yolov5_evaluate(scoring.annotations, scoring.detections, scoring.images, settings)
    scored = {class_id: k for k, class_id in enumerate(result.class_ids)}
    rows = []
    for info in scoring.annotations.classes:
        k = scored.get(info.id)
        values = {m: result.summary(m, k) if k is not None else float("nan") for m in metrics}
        rows.append(
            scoring.row(name, info.name, values, result.n_images, int(result.n_labels[k]) if k is not None else 0)
        )
    if len(rows) > 1:
        rows.append(scoring.row(name, MEAN, {m: result.summary(m) for m in metrics}, result.n_images, None))
    return rows


def lamr_rows(
    annotations: GroundTruth,
    detections: Detections,
    images: np.ndarray,
    bench: Benchmark,
    split: str,
    method: str = "",
    protocol: str | BenchmarkProtocol = "leaderboard",
    settings: Sequence[str] | None = None,
    llvip_bounds: str = "frame",
    klass: str = "person",
    options: ScoringOptions | None = None,
) -> list[ClassRow]:
    """The log-average miss rate of one class on one split (see the module's docstring for each
    benchmark's rules)."""
    spec = benchmark_protocol(protocol)
    if not spec.miss_rate:
        raise ValueError(f"the {spec.name} protocol computes no miss rate")
    options = options or ScoringOptions(settings=tuple(settings) if settings else None, llvip_bounds=llvip_bounds)
    rows = miss_rate_rows(annotations, detections, [(split, images)], [spec], None, bench, method, options, klass)
    return rows[split, spec.name]


def miss_rate_rows(
    annotations: GroundTruth,
    detections: Detections,
    splits: Sequence[tuple[str, object]],
    specs: Sequence[BenchmarkProtocol],
    metrics: Sequence[str] | None,
    bench: Benchmark,
    method: str = "",
    options: ScoringOptions | None = None,
    klass: str = "person",
) -> dict[tuple[str, str], list[ClassRow]]:
    """The miss-rate rows of the ``specs`` (miss-rate protocols) on every split (name, selection), by
    (split, protocol): one matching per view of the class (the protocols that read it alike share it),
    each protocol's settings, IoUs and metrics (default: its own) scored from it. A row holds the
    evaluator's `Result`."""
    from .evaluate import evaluate

    options = options or ScoringOptions()
    if not specs:
        return {}
    name = annotations.classes[annotations.class_index(klass)].name
    wanted = list(options.settings or bench.lamr_settings[:1] or ("reasonable",))
    views: dict[tuple, list[BenchmarkProtocol]] = {}
    for spec in specs:
        views.setdefault((_frame(bench, spec, options.llvip_bounds), spec.printed), []).append(spec)
    rows: dict[tuple[str, str], list[ClassRow]] = {}
    for (frame, printed), group in views.items():
        gt = annotations.class_view(klass, frame, bench.ignore_labels)
        dets = detections.of_classes([annotations.classes[annotations.class_index(klass)].id])
        if printed:
            dets = replace(dets, boxes=as_printed(dets.boxes, printed[0]), scores=as_printed(dets.scores, printed[1]))
        for spec in group:
            asked = [m for m in (metrics or spec.metrics) if m in spec.computes]
            results = evaluate(
                gt,
                dets,
                [benchmark_setting(setting, bench, spec) for setting in wanted],
                splits,
                [spec.kaist(options.tie_order)],
                method,
                options.ious,
                asked,
                options.fppi_range,
            )
            for result in results:
                rows.setdefault((result.split, spec.name), []).append(_miss_rate_row(result, spec, bench, name))
    return rows


def _frame(bench: Benchmark, spec: BenchmarkProtocol, bounds: str) -> tuple[int, int] | None:
    """The frame whose border the protocol's miss rate ignores boxes near: each image's own, or the KAIST
    scripts' fixed bounds where they run unchanged (``llvip_bounds='kaist'``)."""
    if bounds not in BOUNDS:
        raise ValueError(f"llvip_bounds must be 'frame' or 'kaist', not {bounds!r}")
    if bounds == "frame":
        return None
    if not spec.fixed_bounds:
        raise ValueError(
            f"the {spec.name} protocol's border is the benchmark's frame: llvip_bounds='kaist' "
            "applies to the KAIST scripts' miss rate (leaderboard, matlab)"
        )
    return KAIST.image_size  # the scripts' fixed bounds [5, 5, 635, 507]


def _miss_rate_row(result: Result, spec: BenchmarkProtocol, bench: Benchmark, name: str) -> ClassRow:
    lamr = result.lamr if result.n_gt else float("nan")
    if spec.numpy_mean and result.n_gt:
        lamr = float(np.exp(np.mean(np.log(np.maximum(np.array(result.miss_rates), 1e-10)))))
    values = {m: lamr if is_log_average(m) else result.value(m) for m in result.metrics}
    recall = None if math.isnan(result.recall) else result.recall
    key = spec.result_key(result.setting, result.split)
    return ClassRow(
        result.method,
        bench.name,
        spec.name,
        result.split,
        name,
        values,
        result.n_images,
        result.n_gt,
        result.setting,
        result.iou,
        {"recall": recall, **({"reported_as": key} if key else {})},
        result,
    )


def as_printed(values: np.ndarray, form: str) -> np.ndarray:
    """The numbers as Python's ``form % value`` prints them and ``float`` reads them back."""
    if not values.size:
        return values.copy()
    return np.char.mod(form, values).astype(np.float64).reshape(values.shape)


def protocol_setting_names() -> tuple[str, ...]:
    """The settings the benchmarks' protocols name themselves (MS-DETR's on CVC-14)."""
    return tuple(dict.fromkeys(s.name for p in BENCHMARK_PROTOCOLS.values() for s in p.settings))


def benchmark_setting(name: str | Setting, bench: Benchmark, spec: BenchmarkProtocol) -> Setting:
    """A setting asked for on a benchmark: one its protocols name (MS-DETR's 'all' on CVC-14), else the
    kit's; under a protocol that names its settings, a setting with the same rules takes its name."""
    if isinstance(name, str):
        own = {s.name: s for p in protocols_of(bench) for s in p.settings}
        found = own.get(name) or get_setting(name)
    else:
        found = name
    rules = (found.height, found.occlusions, found.border, found.squarify)
    return next((s for s in spec.settings if (s.height, s.occlusions, s.border, s.squarify) == rules), found)


def _lamr_rows(scoring: SplitScoring, protocol: BenchmarkProtocol) -> list[ClassRow]:
    s = scoring
    rows = miss_rate_rows(
        s.annotations, s.detections, [(s.split, s.images)], [protocol], s.metrics, s.bench, s.method, s.options
    )
    return rows[s.split, protocol.name]


COCO_AP = BenchmarkProtocol(
    "coco", "COCO's AP and AR as pycocotools computes them", COCO_METRICS, coco_rows, evaluator=COCO
)
YOLOV5_AP = BenchmarkProtocol(
    "yolov5", "AP as YOLOv5's val.py computes it", YOLOV5_METRICS, yolov5_rows, evaluator=YOLOV5_READS
)
LEADERBOARD_LAMR = BenchmarkProtocol(
    "leaderboard",
    "the log-average miss rate as the KAIST leaderboard's evaluator computes it",
    (LAMR.name,),
    _lamr_rows,
    kaist_protocol="leaderboard",
    fixed_bounds=True,
    needs_sorted=True,
)
MATLAB_LAMR = BenchmarkProtocol(
    "matlab",
    "the log-average miss rate as the KAIST MATLAB devkit computes it",
    (LAMR.name,),
    _lamr_rows,
    kaist_protocol="matlab",
    fixed_bounds=True,
)
MS_DETR_LAMR = BenchmarkProtocol(
    "ms-detr",
    "the log-average miss rate as MS-DETR's evaluation of CVC-14 computes it on numpy 1.26",
    (LAMR.name,),
    _lamr_rows,
    numpy_protocol=ms_detr_protocol,
    numpy_mean=True,
    settings=MS_DETR_SETTINGS,
    result_keys=tuple(MS_DETR_RESULT_KEYS.items()),
    printed=("%.4f", "%.8f"),
)
BENCHMARK_PROTOCOLS = {p.name: p for p in (COCO_AP, YOLOV5_AP, LEADERBOARD_LAMR, MATLAB_LAMR, MS_DETR_LAMR)}
# Kept for the first wave's callers: the metrics each protocol computes, by name.
PROTOCOL_METRICS = {name: p.metrics for name, p in BENCHMARK_PROTOCOLS.items()}
LAMR_PROTOCOLS = tuple(name for name, p in BENCHMARK_PROTOCOLS.items() if p.miss_rate)
ALL_METRICS = tuple(dict.fromkeys(m for p in BENCHMARK_PROTOCOLS.values() for m in p.metrics))


def benchmark_protocol(name: str | BenchmarkProtocol | Protocol) -> BenchmarkProtocol:
    """The protocol of this name (or of the KAIST evaluator's protocol it runs, with its options:
    `kaist_protocol` and `kaist` give that back)."""
    if isinstance(name, BenchmarkProtocol):
        return name
    if isinstance(name, Protocol):
        spec = benchmark_protocol(name.name)
        return replace(spec, kaist_protocol=name) if spec.kaist_protocol else spec
    try:
        return BENCHMARK_PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}; choose from {', '.join(BENCHMARK_PROTOCOLS)}") from None


def protocols_of(bench: Benchmark) -> tuple[BenchmarkProtocol, ...]:
    """The protocols a benchmark's papers use, its default first."""
    return tuple(benchmark_protocol(name) for name in bench.protocols)


def evaluate_benchmark(
    annotations: GroundTruth,
    detections: Detections,
    benchmark: Benchmark | str | None = None,
    protocols: Iterable[str | BenchmarkProtocol] | None = None,
    metrics: Iterable[str] | None = None,
    splits: Iterable[str | tuple[str, Sequence]] = ("all",),
    method: str = "",
    yolov5: Yolov5Protocol = YOLOV5,
    llvip_bounds: str = "frame",
    options: ScoringOptions | None = None,
) -> list[ClassRow]:
    """Rows for every split, protocol (default: the benchmark's) and class, in that order; each protocol
    reports the asked ``metrics`` it computes (default: those the benchmark's papers report with it,
    else all it reports: COCO's twelve, YOLOv5's three, the LAMR)."""
    bench = get_benchmark(benchmark or annotations.benchmark or KAIST)
    specs = [benchmark_protocol(p) for p in (protocols or bench.protocols)]
    options = options or ScoringOptions(yolov5=yolov5, llvip_bounds=llvip_bounds)
    wanted = list(metrics) if metrics is not None else None
    named = [(split, split) if isinstance(split, str) else (split[0], split[1]) for split in splits]
    masks = [(name, annotations.split_mask(selection)) for name, selection in named]
    asked = {spec.name: _asked(spec, wanted, bench) for spec in specs}
    miss_rates = [spec for spec in specs if spec.miss_rate and asked[spec.name]]
    by_split = miss_rate_rows(annotations, detections, masks, miss_rates, wanted, bench, method, options)
    rows = []
    for name, images in masks:
        for spec in specs:
            if spec.miss_rate:
                rows += by_split.get((name, spec.name), [])
            elif asked[spec.name]:
                scoring = SplitScoring(annotations, detections, images, asked[spec.name], bench, name, method, options)
                rows += spec.rows(scoring, spec)
    return rows


def _asked(spec: BenchmarkProtocol, wanted: Sequence[str] | None, bench: Benchmark) -> list[str]:
    """The metrics a protocol scores: those asked that it computes; none asked, those the benchmark's
    papers report with it, else all it reports."""
    if wanted is not None:
        return [m for m in wanted if m in spec.computes]
    return [m for m in bench.metrics if m in spec.metrics] or list(spec.metrics)
