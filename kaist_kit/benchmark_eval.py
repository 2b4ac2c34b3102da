"""Scoring a method on any benchmark: per-class rows of COCO's AP, YOLOv5's AP and the miss rate.

`evaluate_benchmark` is the one call: it runs each protocol the benchmark's papers use on each split
and returns `ClassRow`s, one per class and split (and one for the mean over the classes, ``category``
``mean``, where there is more than one class). A row's JSON (`ClassRow.to_dict`) is the shape every
verb writes for the other benchmarks::

    {"method": "m", "benchmark": "flir-aligned", "protocol": "coco", "split": "all", "category": "car",
     "ap": 0.41, "ap50": 0.73, "ap75": 0.40, "n_images": 1013, "n_gt": 4124}

Metrics are fractions; a metric that is undefined (no ground truth of the class counts) is ``null``.
Miss-rate rows add ``setting`` and ``iou``.

The miss rate is the KAIST evaluator's (`kaist_kit.evaluate`), run on the benchmark's person boxes
with its frame size and ignore rules:

- CVC-14 (protocol ``ms-detr``): the devkit's rules as MS-DETR's evaluation of CVC-14 applies them
  (eval/kaist_eval_full.py with eval/bbGt.py): reasonable (height >= 55, no or partial occlusion),
  boxes closer than 5 pixels to the 640 x 471 visible frame ignored (its xRng [5, 635], yRng [5, 466]),
  every test frame counted, recall 0 below the curve's first FPPI, miss rates floored at 1e-10, and
  the nine log miss rates averaged by numpy's mean (``np.mean``, pairwise) where the devkit sums them
  in order (``matlab`` gives the devkit's own sum).
- LLVIP (protocol ``leaderboard``): the KAIST leaderboard's evaluator, which the papers reporting a
  miss rate on LLVIP run on an LLVIP ground truth in its JSON format: reasonable, images without
  detections leave out their pedestrians, the rounded reference FPPIs. That script's border bounds
  are fixed at KAIST's [5, 5, 635, 507]; ``llvip_bounds='frame'`` (the default) applies the 5-pixel
  border to LLVIP's 1280 x 1024 frame instead, ``'kaist'`` reproduces the script run unchanged (which
  ignores every box reaching past x = 635 or y = 507).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .annotations import Annotations, BoxDetections, as_detections, as_ground_truth
from .benchmarks import KAIST, Benchmark, get_benchmark
from .cocoeval import COCO_METRICS, coco_evaluate
from .yolov5 import Yolov5Protocol, yolov5_evaluate

MEAN = "mean"
LAMR_PROTOCOLS = ("leaderboard", "matlab", "ms-detr")
YOLOV5_METRICS = ("ap", "ap50", "ap75")
YOLOV5 = Yolov5Protocol()
PROTOCOL_METRICS = {"coco": COCO_METRICS, "yolov5": YOLOV5_METRICS, **{p: ("lamr",) for p in LAMR_PROTOCOLS}}


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

    def value(self, metric: str) -> float:
        return self.values[metric]

    def to_dict(self) -> dict:
        out = {"method": self.method, "benchmark": self.benchmark, "protocol": self.protocol, "split": self.split,
               "category": self.category}
        if self.setting:
            out.update(setting=self.setting, iou=self.iou)
        out.update({name: None if math.isnan(value) else value for name, value in self.values.items()})
        out.update(n_images=self.n_images, n_gt=self.n_gt, **self.extra)
        return out


def evaluate_benchmark(annotations: Annotations, detections: BoxDetections, benchmark: Benchmark | str | None = None,
                       protocols: Iterable[str] | None = None, metrics: Iterable[str] | None = None,
                       splits: Iterable[str | tuple[str, Sequence]] = ("all",), method: str = "",
                       yolov5: Yolov5Protocol = YOLOV5, llvip_bounds: str = "frame") -> list[ClassRow]:
    """Rows for every protocol (default: the benchmark's), split and class; each protocol reports the
    asked ``metrics`` it computes (default: all of them: COCO's twelve, YOLOv5's three, the LAMR)."""
    bench = get_benchmark(benchmark or annotations.benchmark or "kaist")
    protocols = list(protocols or bench.protocols)
    wanted = list(metrics) if metrics is not None else None
    rows = []
    for split in splits:
        name, selection = (split, split) if isinstance(split, str) else split
        images = annotations.split_mask(selection)
        for protocol in protocols:
            if protocol not in PROTOCOL_METRICS:
                raise ValueError(f"unknown protocol {protocol!r}; choose from {', '.join(PROTOCOL_METRICS)}")
            names = [m for m in (wanted or PROTOCOL_METRICS[protocol]) if m in PROTOCOL_METRICS[protocol]]
            if not names:
                continue
            if protocol == "coco":
                rows += coco_rows(annotations, detections, images, names, bench, name, method)
            elif protocol == "yolov5":
                rows += yolov5_rows(annotations, detections, images, names, bench, name, method, yolov5)
            else:
                rows += lamr_rows(annotations, detections, images, bench, name, method, protocol,
                                  llvip_bounds=llvip_bounds)
    return rows


def coco_rows(annotations: Annotations, detections: BoxDetections, images: np.ndarray, metrics: Sequence[str],
              bench: Benchmark, split: str, method: str = "") -> list[ClassRow]:
    result = coco_evaluate(annotations, detections, images)
    rows = [ClassRow(method, bench.name, "coco", split, name, result.summaries(metrics, k), result.n_images,
                     int(result.n_gt[k, 0])) for k, name in enumerate(result.class_names)]
    if len(rows) > 1:
        rows.append(ClassRow(method, bench.name, "coco", split, MEAN, result.summaries(metrics), result.n_images, None))
    return rows


def yolov5_rows(annotations: Annotations, detections: BoxDetections, images: np.ndarray, metrics: Sequence[str],
                bench: Benchmark, split: str, method: str = "", protocol: Yolov5Protocol = YOLOV5) -> list[ClassRow]:
    result = yolov5_evaluate(annotations, detections, images, protocol)
    scored = {class_id: k for k, class_id in enumerate(result.class_ids)}
    rows = []
    for info in annotations.classes:
        k = scored.get(info.id)
        values = {m: result.summary(m, k) if k is not None else float("nan") for m in metrics}
        rows.append(ClassRow(method, bench.name, "yolov5", split, info.name, values, result.n_images,
                             int(result.n_labels[k]) if k is not None else 0))
    if len(rows) > 1:
        rows.append(ClassRow(method, bench.name, "yolov5", split, MEAN, {m: result.summary(m) for m in metrics},
                             result.n_images, None))
    return rows


def lamr_rows(annotations: Annotations, detections: BoxDetections, images: np.ndarray, bench: Benchmark,
              split: str, method: str = "", protocol: str = "leaderboard", settings: Sequence[str] | None = None,
              llvip_bounds: str = "frame", klass: str = "person") -> list[ClassRow]:
    """The log-average miss rate of one class (see the module's docstring for each benchmark's rules)."""
    from .evaluate import evaluate

    if bench.name == "kaist":
        raise ValueError("KAIST's miss rate needs its occlusion labels: score it with kaist_kit.evaluate")
    gt, dets = miss_rate_inputs(annotations, detections, bench, llvip_bounds, klass)
    kit_protocol = "matlab" if protocol == "ms-detr" else protocol
    name = annotations.classes[annotations.class_index(klass)].name
    rows = []
    for result in evaluate(gt, dets, list(settings or bench.lamr_settings[:1] or ("reasonable",)),
                           [("split", images)], [kit_protocol], method):
        lamr = result.lamr
        if protocol == "ms-detr" and result.n_gt:
            lamr = float(np.exp(np.mean(np.log(np.maximum(np.array(result.miss_rates), 1e-10)))))
        recall = None if math.isnan(result.recall) else result.recall
        rows.append(ClassRow(method, bench.name, protocol, split, name, {"lamr": lamr if result.n_gt else float("nan")},
                             result.n_images, result.n_gt, result.setting, result.iou, {"recall": recall}))
    return rows


def miss_rate_inputs(annotations: Annotations, detections: BoxDetections, bench: Benchmark,
                     llvip_bounds: str = "frame", klass: str = "person"):
    """The KAIST evaluator's ground truth and detections of one class, with the benchmark's frame and
    ignore rules (see the module's docstring)."""
    if llvip_bounds not in ("frame", "kaist"):
        raise ValueError(f"llvip_bounds must be 'frame' or 'kaist', not {llvip_bounds!r}")
    frame = bench.image_size
    if bench.name == "llvip" and llvip_bounds == "kaist":
        frame = KAIST.image_size  # the leaderboard script's fixed bounds [5, 5, 635, 507]: KAIST's frame
    gt = as_ground_truth(annotations, [klass], frame, bench.ignore_labels)
    return gt, as_detections(detections, annotations, [klass])


# ------------------------------------------------------------------------------------------------
# CVC-14: which origin the detections fit

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
        from .findings import MIN_HITS, READING_RATIO

        return self.close_other >= MIN_HITS and self.close_other >= READING_RATIO * max(self.close, 1)

    def line(self) -> str:
        return (f"CVC-14 boxes read with x, y as the {self.origin}: the {self.considered} highest-scored detections "
                f"overlap {self.close} pedestrians closely (IoU >= 0.7), and {self.close_other} with x, y read as the "
                f"{self.other}")


def origin_check(annotations: Annotations, detections: BoxDetections) -> OriginCheck:
    """Measure the detections against CVC-14 boxes as read and read with the other origin."""
    from .benchmark_readers import switch_origin
    from .findings import CLOSE, pedestrians_hit

    other = switch_origin(annotations)
    counts = []
    for which in (annotations, other):
        gt = as_ground_truth(which, ["person"], None, ())
        dets = as_detections(detections, which, ["person"])
        k = min(len(dets), max(100, int((~gt.ignore).sum())))
        strongest = np.argsort(-dets.scores, kind="stable")[:k]
        counts.append(pedestrians_hit(dets.image[strongest], dets.boxes[strongest], gt, CLOSE))
        considered = k
    return OriginCheck(annotations.box_origin, considered, counts[0], counts[1])
