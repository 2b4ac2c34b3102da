"""Every metric the kit reports, as one `Metric` spec each, in one registry.

A metric is what its number means (its name, label, description, direction, the IoUs it is defined
at, its column text on a hosted leaderboard) and how each evaluator that can compute it reads it off
that evaluator's own accumulation: a `Reading`, plain data that the evaluator interprets. The
evaluators are the kit's three families:

- ``MISS_RATE``: the KAIST evaluator (the leaderboard's and the devkit's matching, on one class of any
  benchmark): its MR-FPPI curve, and COCO's accumulation of its matching as the 2024 challenge runs it;
- ``COCO``: pycocotools' evaluation (`kaist_kit.metrics.cocoeval`);
- ``YOLOV5``: YOLOv5's val.py (`kaist_kit.metrics.yolov5`).

A protocol computes a metric when its evaluator has a reading for it. Settings, reports, hosting
columns, ``--metric`` and the mmengine metrics read the specs here, never a metric's name spelled
elsewhere (tests/test_structure.py checks it). A new metric is one `Metric` in `BUILTIN` (or, from
outside the kit, `register`).

This module is part of the scoring core that runs on the challenge platforms' workers: plain Python
3.7 and numpy, nothing more.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from ..errors import by_name

MISS_RATE, COCO, YOLOV5 = "miss-rate", "coco", "yolov5"
EVALUATORS = (MISS_RATE, COCO, YOLOV5)


@dataclass(frozen=True)
class LogAverageMissRate:
    """The geometric mean of the miss rates at the protocol's reference FPPIs."""


@dataclass(frozen=True)
class MissRateAt:
    """The miss rate at one false-positive rate per image, read as the protocol reads its curve."""

    fppi: float


@dataclass(frozen=True)
class Precision:
    """Average precision: COCO's precision at its 101 recall points, averaged; at one IoU threshold, or
    over the ten of 0.50:0.05:0.95 (``iou`` None); in an area range; with at most ``max_dets`` detections
    per image (None: the evaluator's own rule)."""

    iou: float | None = None
    area: str = "all"
    max_dets: int | None = None


@dataclass(frozen=True)
class Recall:
    """Average recall: the final recall, at one IoU threshold or averaged over the ten (``iou`` None)."""

    iou: float | None = None
    area: str = "all"
    max_dets: int | None = None


Reading = Union[LogAverageMissRate, MissRateAt, Precision, Recall]


@dataclass(frozen=True)
class Metric:
    """One metric: what its number means, and how each evaluator that computes it reads it."""

    name: str  # as --metric, JSON keys and configs name it
    label: str  # its column in the kit's tables: 'AP50'
    description: str  # one line, for --metric's help
    lower_is_better: bool
    ious: str  # the IoU thresholds it is defined at, as messages say them
    column: str  # what a hosted leaderboard's column of it shows
    readings: tuple[tuple[str, Reading], ...]  # (evaluator, its reading of the metric)

    def reading(self, evaluator: str) -> Reading | None:
        """How ``evaluator`` reads this metric; None where it does not compute it."""
        for name, reading in self.readings:
            if name == evaluator:
                return reading
        return None

    @property
    def uses_iou_option(self) -> bool:
        """Whether the metric is read at the matching threshold chosen with --iou (the miss rates),
        rather than at IoUs of its own."""
        return any(isinstance(r, (LogAverageMissRate, MissRateAt)) for _, r in self.readings)

    def __str__(self) -> str:
        return self.name


def _coco_areas(kind, label: str, what: str) -> tuple[Metric, ...]:
    words = {"small": "small objects (area below 32^2)", "medium": "medium objects", "large": "large objects"}
    made = []
    for area in ("small", "medium", "large"):
        name = f"{label.lower()}_{area}"
        made.append(
            Metric(
                name,
                f"{label}{area[0]}",
                f"COCO's {what} over IoU 0.50:0.05:0.95, {words[area]}",
                False,
                "0.50:0.05:0.95",
                f"COCO {what} of {words[area]}, mean over IoU 0.50:0.05:0.95",
                ((COCO, kind(None, area, 100)),),
            )
        )
    return tuple(made)


BUILTIN: tuple[Metric, ...] = (
    Metric(
        "lamr",
        "LAMR",
        "log-average miss rate",
        True,
        "the one chosen with --iou",
        "log-average miss rate over 10^-2 to 10^0 false positives per image",
        ((MISS_RATE, LogAverageMissRate()),),
    ),
    Metric(
        "ap",
        "AP",
        "average precision, mean over IoU 0.50:0.05:0.95",
        False,
        "0.50:0.05:0.95",
        "COCO average precision, mean over IoU 0.50:0.05:0.95",
        ((MISS_RATE, Precision()), (COCO, Precision(None, "all", 100)), (YOLOV5, Precision())),
    ),
    Metric(
        "ap50",
        "AP50",
        "average precision at IoU 0.5",
        False,
        "0.5",
        "COCO average precision at IoU 0.5",
        ((MISS_RATE, Precision(0.5)), (COCO, Precision(0.5, "all", 100)), (YOLOV5, Precision(0.5))),
    ),
    Metric(
        "ap75",
        "AP75",
        "average precision at IoU 0.75",
        False,
        "0.75",
        "COCO average precision at IoU 0.75",
        ((MISS_RATE, Precision(0.75)), (COCO, Precision(0.75, "all", 100)), (YOLOV5, Precision(0.75))),
    ),
    *_coco_areas(Precision, "AP", "average precision"),
    *(
        Metric(
            f"ar{n}",
            f"AR{n}",
            f"COCO's average recall over IoU 0.50:0.05:0.95 with {n} detection{'s' * (n > 1)} per image",
            False,
            "0.50:0.05:0.95",
            f"COCO average recall, mean over IoU 0.50:0.05:0.95, {n} detection{'s' * (n > 1)} per image",
            ((COCO, Recall(None, "all", n)),),
        )
        for n in (1, 10, 100)
    ),
    *_coco_areas(Recall, "AR", "average recall"),
    Metric(
        "ar",
        "AR",
        "average recall, mean over IoU 0.50:0.05:0.95 of the final recall",
        False,
        "0.50:0.05:0.95",
        "COCO average recall, mean over IoU 0.50:0.05:0.95 of the final recall",
        ((MISS_RATE, Recall()),),
    ),
)

_REGISTRY: dict[str, Metric] = {}


def register(metric: Metric) -> Metric:
    """Add a metric (or replace the one of its name); every verb, report and hosting column sees it."""
    for evaluator, _ in metric.readings:
        if evaluator not in EVALUATORS:
            raise ValueError(f"metric {metric.name!r}: no evaluator {evaluator!r}; choose from {', '.join(EVALUATORS)}")
    _REGISTRY[metric.name] = metric
    return metric


def unregister(name: str) -> None:
    """Take a metric added by `register` away again (the built-in ones stay)."""
    if name in {m.name for m in BUILTIN}:
        raise ValueError(f"{name!r} is one of the kit's own metrics")
    _REGISTRY.pop(name, None)


for _metric in BUILTIN:
    register(_metric)

# The metrics the kit's own code names: read through these, never by a name spelled elsewhere.
LAMR, AP, AP50, AP75 = BUILTIN[:4]
AR = BUILTIN[-1]


def all_metrics() -> tuple[Metric, ...]:
    return tuple(_REGISTRY.values())


def get_metric(name: str | Metric) -> Metric:
    return by_name(name, Metric, _REGISTRY, "metric")


def metrics_of(evaluator: str) -> tuple[Metric, ...]:
    """The metrics an evaluator computes, in the registry's order."""
    return tuple(m for m in _REGISTRY.values() if m.reading(evaluator) is not None)


def names_of(evaluator: str) -> tuple[str, ...]:
    return tuple(m.name for m in metrics_of(evaluator))


def label(name: str) -> str:
    """A metric's column label; a name the registry does not know is shown as it is."""
    found = _REGISTRY.get(name)
    return found.label if found else name


def iou_conflict(metrics: Sequence[str], ious: Sequence[float]) -> str:
    """Why these matching thresholds would go unused by these metrics ('' when they are used): a
    threshold other than 0.5 sets the miss rates' matching alone, and AP and AR are computed at their own."""
    moved = [iou for iou in ious if iou != 0.5]
    specs = [get_metric(m) for m in metrics]
    if any(m.uses_iou_option for m in specs) or not moved:
        return ""
    asked = ", ".join(f"{m.name} at IoU {m.ious}" for m in specs)
    return (
        f"--iou {' '.join(f'{t:g}' for t in moved)} sets the matching threshold of the log-average miss rate "
        f"alone, which is not asked for, and the metrics asked for are defined at their own thresholds "
        f"({asked}): add --metric {LAMR.name}, or leave --iou out"
    )
