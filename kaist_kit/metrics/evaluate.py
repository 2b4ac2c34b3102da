"""Log-average miss rate, AP and AR: curves and scores per method, protocol, setting, split and IoU.

`Evaluation` matches one method's detections once per IoU threshold, for every setting, and then
scores any split, protocol and metric from those matchings. `evaluate` is the one-call entry point.
"""

from __future__ import annotations

import math
import os
import typing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data.detections import Detections, ReadOptions, method_name
from ..data.groundtruth import GroundTruth
from ..data.results import load_detections
from . import coco
from .matching import (
    IGNORED,
    MATCH_THRESHOLD,
    TRUE_POSITIVE,
    Matches,
    Pairs,
    greedy_match,
    ignore_masks,
    merge_pairs,
    overlaps_by_image,
    squarified,
)
from .settings import (
    DEFAULT_FPPI_RANGE,
    SETTINGS,
    SPLITS,
    Protocol,
    Setting,
    get_protocol,
    get_setting,
    with_fppi_range,
)
from .sort_orders import STABLE, argsort
from .spec import LAMR, MISS_RATE, LogAverageMissRate, MissRateAt, Precision, Recall, get_metric, names_of


@dataclass
class Curve:
    """The MR-FPPI curve: one point per scored detection, in descending score.

    It keeps what each point is (a true positive or not) and works out its FPPI and miss rate when
    they are read, so that the curves of millions of detections take a ninth of the memory."""

    scores: np.ndarray
    positive: np.ndarray  # (len(scores),) bool: a true positive as the protocol counts it
    n_gt: int
    n_images: int

    @property
    def fppi(self) -> np.ndarray:
        return np.cumsum(~self.positive, dtype=np.float64) / max(self.n_images, 1)

    @property
    def miss_rate(self) -> np.ndarray:
        """1 - recall at each point; nan when no pedestrian counts (or no image is scored)."""
        if self.n_gt == 0 or self.n_images == 0:
            return np.full(len(self.positive), np.nan)
        return 1.0 - np.cumsum(self.positive, dtype=np.float64) / self.n_gt


@dataclass
class Result:
    method: str
    protocol: str
    setting: str
    split: str
    lamr: float  # a fraction
    miss_rates: tuple[float, ...]  # at fppi_refs
    fppi_refs: tuple[float, ...]
    recall: float  # at the end of the curve; nan when no pedestrian counts
    n_images: int
    n_gt: int  # pedestrians that count (non-ignored)
    curve: Curve = field(repr=False)
    iou: float = MATCH_THRESHOLD  # the matching threshold of the curve and the LAMR
    metrics: tuple[str, ...] = (LAMR.name,)  # the metrics asked for, in order (kaist_kit.metrics.spec)
    # Every metric asked for but the LAMR (AP and AR, COCO's at their own thresholds; a miss rate read
    # off the curve), as fractions; nan when no pedestrian counts. The LAMR and the curve are always
    # computed.
    values: dict[str, float] = field(default_factory=dict)

    def value(self, metric: str) -> float:
        """A metric of this row, as a fraction."""
        return self.lamr if is_log_average(metric) else self.values[metric]

    def to_dict(self, with_curve: bool = False) -> dict:
        out = {
            "method": self.method,
            "protocol": self.protocol,
            "setting": self.setting,
            "split": self.split,
            "iou": self.iou,
        }
        for name in filter(is_log_average, self.metrics):
            out.update({name: self.lamr, "miss_rates": list(self.miss_rates), "fppi_refs": list(self.fppi_refs)})
        out.update(
            {
                "recall": None if math.isnan(self.recall) else self.recall,
                "n_images": self.n_images,
                "n_gt": self.n_gt,
            }
        )
        for name in self.metrics:
            if not is_log_average(name):
                value = self.values[name]
                out[name] = None if math.isnan(value) else value
        if with_curve:
            out["curve"] = {
                "score": self.curve.scores.tolist(),
                "fppi": self.curve.fppi.tolist(),
                "miss_rate": [None if math.isnan(v) else v for v in self.curve.miss_rate.tolist()],
            }
        return out


class Evaluation:
    """One method's detections matched against the ground truth in every requested setting.

    The matching at ``iou`` (0.5 unless given; `matches`, and what `score` and `curve_terms` read
    unless told otherwise) is made at once; any other threshold is matched on first use and kept, so
    that every setting, split, protocol and metric shares one matching per threshold. Settings that
    squarify the pedestrians share a matching of their own (their boxes differ).

    ``tie_order`` (`kaist_kit.metrics.sort_orders`) orders what has equal keys: an image's detections of equal
    score, its ground truths when a detection overlaps two of them equally, and the curve's detections
    of equal score; the protocols scored must order them alike (`Protocol.tie_order`).
    """

    def __init__(
        self,
        gt: GroundTruth,
        dets: Detections,
        settings: Iterable[str | Setting] = tuple(SETTINGS),
        method: str = "",
        iou: float = MATCH_THRESHOLD,
        tie_order: str = STABLE,
    ):
        self.gt = gt
        self.method = method
        self.iou = iou
        self.tie_order = tie_order
        resolved = list({s.name: s for s in map(get_setting, settings)}.values())
        self.setting_objects = resolved
        self.settings = [s.name for s in resolved]
        self.setting_row = {name: k for k, name in enumerate(self.settings)}

        # Evaluation order: by image, then by descending score; ties keep file order. A file written
        # in that order (as the leaderboard asks) is taken as it is.
        if in_evaluation_order(dets.image, dets.scores):
            self.file_index = np.arange(len(dets))
            self.image, self.boxes, self.scores = dets.image, dets.boxes, dets.scores
        else:
            order = np.lexsort((-dets.scores, dets.image))
            self.file_index = order
            self.image = dets.image[order]
            self.boxes = dets.boxes[order]
            self.scores = dets.scores[order]
        if tie_order != STABLE:
            order = ties_ordered(self.file_index, dets.image, dets.scores, tie_order)
            self.file_index = order
            self.image, self.boxes, self.scores = dets.image[order], dets.boxes[order], dets.scores[order]
        image_start = np.searchsorted(self.image, np.arange(gt.n_images + 1))
        self.rank = np.arange(len(self.image)) - image_start[self.image]
        self.dets_per_image = np.diff(image_start)

        self.ignored = ignore_masks(gt, resolved)
        self._pairs: dict[float | None, tuple[float, Pairs]] = {}  # squarify ratio -> (min overlap, pairs)
        self._matches: dict[float, Matches] = {}
        self._flags: dict[tuple[float, bool], tuple[np.ndarray, np.ndarray]] = {}
        self.matches = self.matches_at(iou)
        # The curve concatenates images in id order and stable-sorts by descending score.
        self.score_order = np.argsort(-self.scores, kind="stable")

    def row(self, setting: str | Setting) -> int:
        """The row of a setting (by name, or spelled as a custom setting) in the matchings."""
        name = setting if isinstance(setting, str) and setting in self.setting_row else get_setting(setting).name
        if name not in self.setting_row:
            raise ValueError(
                f"setting {name!r} is not among this evaluation's ({', '.join(self.settings)}); "
                "pass it to Evaluation(gt, dets, settings)"
            )
        return self.setting_row[name]

    @property
    def matched_thresholds(self) -> tuple[float, ...]:
        """The IoU thresholds matched so far, ascending."""
        return tuple(sorted(self._matches))

    def matches_at(self, iou: float) -> Matches:
        """The matching at IoU threshold ``iou`` for every setting (made once, then kept)."""
        if iou in self._matches:
            return self._matches[iou]
        if not 0 < iou < 1:
            raise ValueError(f"IoU threshold {iou!r} must lie between 0 and 1")
        groups: dict[float | None, list[int]] = {}
        for k, setting in enumerate(self.setting_objects):
            groups.setdefault(setting.squarify, []).append(k)
        if len(groups) == 1:
            (ratio,) = groups
            pairs = self.pairs_at(iou, ratio)
            matches = greedy_match(self.image, pairs, self.ignored, iou, self._gt_rank(pairs, iou, self.ignored))
        else:
            n_det = len(self.image)
            matches = Matches(
                np.empty((len(self.settings), n_det), np.int8), np.empty((len(self.settings), n_det), np.int32)
            )
            for ratio, rows in groups.items():
                pairs = self.pairs_at(iou, ratio)
                ignored = self.ignored[rows]
                part = greedy_match(self.image, pairs, ignored, iou, self._gt_rank(pairs, iou, ignored))
                matches.status[rows], matches.matched_gt[rows] = part.status, part.matched_gt
        self._matches[iou] = matches
        return matches

    def _gt_rank(self, pairs: Pairs, iou: float, ignored: np.ndarray) -> np.ndarray | None:
        """Where ties are not stable: each ground truth's place in the order the evaluator walks its image's
        boxes, by an unstable sort of their ignore flags in each setting (None: file order). It matters
        only in an image where a detection overlaps two boxes exactly alike, so only those are sorted."""
        if self.tie_order == STABLE:
            return None
        strong = pairs.iou >= iou
        det, gt, value = pairs.det[strong], pairs.gt[strong], pairs.iou[strong]
        by = np.lexsort((value, det))
        alike = (det[by][1:] == det[by][:-1]) & (value[by][1:] == value[by][:-1])
        images = np.unique(self.gt.ann_image[gt[by][1:][alike]])
        if not len(images):
            return None
        rank = np.tile(np.arange(len(self.gt.ann_ids)), (len(ignored), 1))
        for image in images:
            members = np.flatnonzero(self.gt.ann_image == image)
            for row in range(len(ignored)):
                walk = argsort(ignored[row, members].astype(np.float64), self.tie_order)
                rank[row, members[walk]] = np.arange(len(members))
        return rank

    def pairs_at(self, min_overlap: float, squarify: float | None = None) -> Pairs:
        """Overlapping pairs for a matching at ``min_overlap``; with ``squarify``, the IoU is taken with
        the squarified boxes and the intersection over the detection with the boxes as annotated."""
        regions = self._overlaps(min_overlap, None)
        if squarify is None:
            return regions
        return merge_pairs(self._overlaps(min_overlap, squarify), regions, len(self.gt.ann_ids))

    def _overlaps(self, min_overlap: float, squarify: float | None) -> Pairs:
        # Pairs are computed once at 0.5 (or the lowest threshold asked for) and filtered for higher ones.
        if squarify in self._pairs and self._pairs[squarify][0] <= min_overlap:
            computed_at, pairs = self._pairs[squarify]
            return pairs if computed_at == min_overlap else pairs.at_least(min_overlap)
        computed_at = min(min_overlap, MATCH_THRESHOLD)
        gt_boxes = None if squarify is None else squarified(self.gt.boxes, squarify)
        pairs = overlaps_by_image(self.image, self.boxes, self.gt, computed_at, gt_boxes)
        self._pairs[squarify] = (computed_at, pairs)
        return pairs if computed_at == min_overlap else pairs.at_least(min_overlap)

    def score(
        self,
        setting: str | Setting,
        split: str | Sequence = "all",
        protocol: str | Protocol = "leaderboard",
        split_name: str | None = None,
        iou: float | None = None,
    ) -> Result:
        """The LAMR and curve of a setting and split under a protocol, matched at ``iou`` (default: the
        evaluation's own)."""
        iou = self.iou if iou is None else iou
        proto = get_protocol(protocol)
        name = split_name or (split if isinstance(split, str) else "subset")
        terms = self.curve_terms(setting, split, proto, iou)
        result = score_curve(
            terms.positive,
            self.scores[terms.sequence],
            terms.n_gt,
            terms.n_images,
            proto,
            self.method,
            self.settings[self.row(setting)],
            name,
        )
        result.iou = iou
        return result

    def curve_terms(
        self,
        setting: str | Setting,
        split: str | Sequence = "all",
        protocol: str | Protocol = "leaderboard",
        iou: float | None = None,
    ) -> CurveTerms:
        """What the curve of a setting and split is built from, under a protocol's rules."""
        row = self.row(setting)
        matches = self.matches_at(self.iou if iou is None else iou)
        return self.curve_terms_of(
            matches.status[row], matches.matched_gt[row], self.ignored[row], self.gt.split_mask(split), protocol
        )

    def curve_terms_of(
        self,
        status: np.ndarray,
        matched_gt: np.ndarray,
        ignored: np.ndarray,
        images: np.ndarray,
        protocol: str | Protocol = "leaderboard",
    ) -> CurveTerms:
        """Curve terms of one matching of these detections (a row of `greedy_match`) on an image mask.

        The diagnosis uses it for matchings of its own (the foreground, every person box).
        """
        proto = get_protocol(protocol)
        if proto.tie_order != self.tie_order:
            raise ValueError(
                f"the {proto.name} protocol orders ties {proto.tie_order}, this evaluation {self.tie_order}: "
                f"score it on Evaluation(..., tie_order={proto.tie_order!r})"
            )
        kept = self._scored(images, proto) & (status != IGNORED)
        if proto.tie_order == STABLE:
            sequence = self.score_order[kept[self.score_order]]
        else:  # the kept detections in evaluation order, sorted by descending score as the evaluator sorts
            chosen = np.flatnonzero(kept)
            sequence = chosen[argsort(-self.scores[chosen], proto.tie_order)]
        positive = self._positive(status, matched_gt, sequence, proto)
        return CurveTerms(sequence, positive, self._counted(ignored, images, proto), int(images.sum()))

    def _scored(self, images: np.ndarray, proto: Protocol) -> np.ndarray:
        """(D,) bool: the detections a protocol scores on these images (the leaderboard keeps 1,000 per image)."""
        kept = images[self.image]
        if proto.max_detections_per_image is not None:
            kept &= self.rank < proto.max_detections_per_image
        return kept

    def _positive(
        self, status: np.ndarray, matched_gt: np.ndarray, sequence: np.ndarray, proto: Protocol
    ) -> np.ndarray:
        """Whether each detection of ``sequence`` is a true positive as the protocol counts it."""
        positive = status[sequence] == TRUE_POSITIVE
        if proto.id_zero_is_unmatched:
            taken = matched_gt[sequence[positive]]
            positive[positive] = self.gt.ann_ids[taken] != 0
        return positive

    def _counted(self, ignored: np.ndarray, images: np.ndarray, proto: Protocol) -> np.ndarray:
        """(N,) bool: the pedestrians in the recall denominator."""
        counted_images = images
        if proto.skips_images_without_detections:
            counted_images = images & (self.dets_per_image > 0)
        return ~ignored & counted_images[self.gt.ann_image]

    def precision_recall(
        self,
        setting: str | Setting,
        split: str | Sequence = "all",
        protocol: str | Protocol = "leaderboard",
        thresholds: Sequence[float] = coco.IOU_THRESHOLDS,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """COCO's accumulation at each IoU threshold: precision at the 101 recall points (T, 101),
        final recall (T,), and the number of pedestrians that count (see `coco.precision_recall`);
        nan when none counts."""
        proto = get_protocol(protocol)
        row = self.row(setting)
        images = self.gt.split_mask(split)
        n_gt = int(self._counted(self.ignored[row], images, proto).sum())
        if n_gt == 0:
            return (np.full((len(thresholds), len(coco.RECALL_POINTS)), np.nan), np.full(len(thresholds), np.nan), 0)
        # COCO's curve: every scored detection of the split, in curve order; those matched to an ignore
        # region are neither true nor false positives.
        in_curve = self._scored(images, proto)[self.score_order]
        flags = [self._curve_flags(iou, proto.id_zero_is_unmatched) for iou in thresholds]
        tp = np.stack([positive[row][in_curve] for positive, _ in flags])
        fp = np.stack([negative[row][in_curve] for _, negative in flags])
        precision, recall = coco.precision_recall(tp, fp, n_gt)
        return precision, recall, n_gt

    def _curve_flags(self, iou: float, id_zero_is_unmatched: bool) -> tuple[np.ndarray, np.ndarray]:
        """(S, D) bool each, in curve order (`score_order`): the true and the false positives of the
        matching at ``iou``, as a protocol counts them (kept for the other settings and splits)."""
        key = (iou, id_zero_is_unmatched)
        if key not in self._flags:
            matches = self.matches_at(iou)
            status = matches.status[:, self.score_order]
            positive = status == TRUE_POSITIVE
            if id_zero_is_unmatched and len(self.gt.ann_ids):
                matched = matches.matched_gt[:, self.score_order]
                positive &= self.gt.ann_ids[np.maximum(matched, 0)] != 0
            self._flags[key] = (positive, (status != IGNORED) & ~positive)
        return self._flags[key]

    def metric_values(
        self,
        metrics: Iterable[str],
        setting: str | Setting,
        split: str | Sequence = "all",
        protocol: str | Protocol = "leaderboard",
    ) -> dict[str, float]:
        """The metrics read off COCO's accumulation of the matching (AP and AR: ap50, ap75, ap, ar) of a
        setting and split; nan when no pedestrian counts. Metrics read off the curve are left out."""
        readings = {}
        for name in metrics:
            reading = get_metric(name).reading(MISS_RATE)
            if reading is None:
                raise ValueError(f"the KAIST evaluator computes {', '.join(names_of(MISS_RATE))}, not {name!r}")
            if isinstance(reading, (Precision, Recall)):
                readings[name] = reading
        if not readings:
            return {}
        thresholds = coco.thresholds_for(readings.values())
        precision, recall, _ = self.precision_recall(setting, split, protocol, thresholds)
        return coco.summarize(readings, thresholds, precision, recall)


def ties_ordered(order: np.ndarray, image: np.ndarray, scores: np.ndarray, tie_order: str) -> np.ndarray:
    """``order`` (detections by image, then by descending score, stably) with the detections of equal
    score in an image ordered as an evaluator that sorts each image's detections, taken in file order,
    with ``tie_order`` orders them."""
    img, score = image[order], scores[order]
    tied = np.unique(img[1:][(img[1:] == img[:-1]) & (score[1:] == score[:-1])])
    if not len(tied):
        return order
    order = order.copy()
    for start, stop in zip(np.searchsorted(img, tied), np.searchsorted(img, tied, side="right")):
        in_file = np.sort(order[start:stop])
        order[start:stop] = in_file[argsort(-scores[in_file], tie_order)]
    return order


def in_evaluation_order(image: np.ndarray, scores: np.ndarray) -> bool:
    """Whether detections come by image, and within an image by descending score: the order a
    stable sort would give them."""
    if len(image) < 2:
        return True
    same = image[1:] == image[:-1]
    return bool(np.all(image[1:] >= image[:-1]) and np.all(scores[1:][same] <= scores[:-1][same]))


@dataclass
class CurveTerms:
    """The inputs of one MR-FPPI curve under a protocol."""

    sequence: np.ndarray  # detections scored, as indices into the evaluation order, in curve order
    positive: np.ndarray  # (len(sequence),) bool: a true positive as the protocol counts it
    counted: np.ndarray  # (N,) bool over the ground truth: the pedestrians in the recall denominator
    n_images: int

    @property
    def n_gt(self) -> int:
        return int(self.counted.sum())


def score_curve(
    positive: np.ndarray,
    scores: np.ndarray,
    n_gt: int,
    n_images: int,
    proto: Protocol,
    method: str = "",
    setting: str = "",
    split: str = "",
) -> Result:
    """Score a sequence of true/false positives (in descending score) under a protocol."""
    refs = np.array(proto.fppi_refs, np.float64)
    curve = Curve(scores, positive, n_gt, n_images)
    if n_gt == 0 or n_images == 0:
        # No pedestrian counts: the devkit reads miss rate 1 everywhere; the leaderboard prints -1.
        miss = np.ones(len(refs))
        recall = float("nan")
        return Result(
            method,
            proto.name,
            setting,
            split,
            1.0,
            tuple(miss.tolist()),
            proto.fppi_refs,
            recall,
            n_images,
            n_gt,
            curve,
        )

    recall_curve = np.cumsum(positive, dtype=np.float64) / n_gt
    fppi = curve.fppi
    if len(recall_curve) == 0:
        at_refs = np.zeros(len(refs))
    else:
        index = np.searchsorted(fppi, refs, side="right") - 1
        below = recall_curve[-1] if proto.below_first_reads_last else 0.0
        at_refs = np.where(index >= 0, recall_curve[np.maximum(index, 0)], below)
    miss = 1.0 - at_refs
    lamr = log_average(miss, proto)
    recall = float(recall_curve[-1]) if len(recall_curve) else 0.0
    return Result(
        method, proto.name, setting, split, lamr, tuple(miss.tolist()), proto.fppi_refs, recall, n_images, n_gt, curve
    )


def curve_values(result: Result, metrics: Iterable[str], proto: Protocol) -> dict[str, float]:
    """The metrics read off a result's curve at one false-positive rate (`MissRateAt`), each read as the
    protocol reads its reference points; nan when no pedestrian counts."""
    values = {}
    for name in metrics:
        reading = get_metric(name).reading(MISS_RATE)
        if isinstance(reading, MissRateAt):
            values[name] = miss_rate_at(result.curve, reading.fppi, proto) if result.n_gt else float("nan")
    return values


def miss_rate_at(curve: Curve, fppi: float, proto: Protocol) -> float:
    """The miss rate of a curve at a false-positive rate per image, read as the protocol reads its
    reference points (the last point at or below it; below the first point, the protocol's rule)."""
    if not len(curve.positive):
        return 1.0
    index = int(np.searchsorted(curve.fppi, fppi, side="right")) - 1
    if index >= 0:
        return float(curve.miss_rate[index])
    return float(curve.miss_rate[-1]) if proto.below_first_reads_last else 1.0


def is_log_average(metric: str) -> bool:
    """Whether a metric is the curve's log-average miss rate (the `Result.lamr` of every row)."""
    return isinstance(get_metric(metric).reading(MISS_RATE), LogAverageMissRate)


def log_average(miss: np.ndarray, proto: Protocol) -> float:
    """Geometric mean of the miss rates, with each reference implementation's arithmetic.

    The logarithms and the exponential are the C library's (`math`), not numpy's: numpy's differ in the
    last bit between its versions and with the CPU (SIMD), and a challenge platform's worker scores with
    its own numpy; the mean is numpy's, the same sum in every version."""
    if proto.miss_rate_floor > 0:
        # The devkit: exp(mean(log(max(1e-10, mr)))), its mean summing left to right.
        total = 0.0
        for value in np.maximum(proto.miss_rate_floor, miss).tolist():
            total += _log(value)
        return math.exp(total / len(miss))
    return math.exp(float(np.mean(np.array([_log(value) for value in miss.tolist()], np.float64))))


def _log(value: float) -> float:
    """math.log, with numpy's log(0) = -inf (and log(nan) = nan)."""
    return -math.inf if value == 0 else math.log(value)


SplitSpec = typing.Union[str, typing.Tuple[str, Sequence]]  # noqa: UP006, UP007 - the core runs on Python 3.7 too


def _split(spec: SplitSpec) -> tuple[str, str | Sequence]:
    """(name, selection) of a split given by name ('all', 'day', 'campus', 'set06', ...) or as
    (name, image names or ids)."""
    return (spec, spec) if isinstance(spec, str) else (spec[0], spec[1])


def evaluate(
    gt: GroundTruth,
    dets: Detections,
    settings: Iterable[str | Setting] = ("reasonable",),
    splits: Iterable[SplitSpec] = SPLITS,
    protocols: Iterable[str] = ("leaderboard",),
    method: str = "",
    ious: Iterable[float] = (MATCH_THRESHOLD,),
    metrics: Iterable[str] = (LAMR.name,),
    fppi_range: tuple[float, float] = DEFAULT_FPPI_RANGE,
) -> list[Result]:
    """Score one method in each protocol, setting, IoU threshold and split (`kaist_kit.scoring.findings` says
    what in the input a protocol mishandles). Results come in that order; each holds the requested
    ``metrics``."""
    settings = list(settings)
    evaluations: dict[str, Evaluation] = {}  # one per order of ties the protocols ask for
    ious = list(dict.fromkeys(ious))
    metrics = list(dict.fromkeys(metrics))
    for name in metrics:
        if get_metric(name).reading(MISS_RATE) is None:
            raise ValueError(f"unknown metric {name!r}; choose from {', '.join(names_of(MISS_RATE))}")
    splits = [_split(spec) for spec in splits]
    masks = [gt.split_mask(selection) for _, selection in splits]
    results = []
    for protocol in protocols:
        proto = with_fppi_range(get_protocol(protocol), fppi_range)
        if proto.tie_order not in evaluations:
            evaluations[proto.tie_order] = Evaluation(gt, dets, settings, method, tie_order=proto.tie_order)
        evaluation = evaluations[proto.tie_order]
        for setting in evaluation.settings:
            extra = [evaluation.metric_values(metrics, setting, mask, proto) for mask in masks]
            for iou in ious:
                for (name, _), mask, values in zip(splits, masks, extra):
                    result = evaluation.score(setting, mask, proto, name, iou)
                    result.metrics = tuple(metrics)
                    result.values = {**values, **curve_values(result, metrics, proto)}
                    results.append(result)
    return results


@dataclass(frozen=True)
class ScoreGrid:
    """What `evaluate` scores each result file on: every protocol, setting, IoU and split, each result
    holding the metrics, read at the reference FPPI range."""

    settings: tuple[str | Setting, ...] = ("reasonable",)
    splits: tuple[SplitSpec, ...] = SPLITS
    protocols: tuple[str, ...] = ("leaderboard",)
    ious: tuple[float, ...] = (MATCH_THRESHOLD,)
    metrics: tuple[str, ...] = (LAMR.name,)
    fppi_range: tuple[float, float] = DEFAULT_FPPI_RANGE

    def score(self, gt: GroundTruth, dets: Detections, method: str) -> list[Result]:
        return evaluate(
            gt, dets, self.settings, self.splits, self.protocols, method, self.ious, self.metrics, self.fppi_range
        )


GRID = ScoreGrid()  # the leaderboard's reasonable miss rate on all, day and night


@dataclass(frozen=True)
class ResultFiles:
    """Result files to score: their paths, their methods' names (default: the files' names, told apart
    where two are alike) and how they are read."""

    paths: tuple[str | os.PathLike, ...]
    names: tuple[str, ...] | None = None
    options: ReadOptions | None = None

    def named(self) -> list[tuple[str | os.PathLike, str]]:
        """Each file's path and its method's name."""
        return list(zip(self.paths, self.names or unique_method_names(self.paths)))


def evaluate_files(files: ResultFiles, gt: GroundTruth, grid: ScoreGrid = GRID) -> list[Result]:
    """Read and score several result files."""
    return [
        result
        for path, name in files.named()
        for result in grid.score(gt, load_detections(path, gt, files.options), name)
    ]


def unique_method_names(paths: Sequence[str | os.PathLike]) -> list[str]:
    names = [method_name(p) for p in paths]
    if len(set(names)) < len(names):
        names = [Path(str(p).rstrip("/")).name if names.count(n) > 1 else n for p, n in zip(paths, names)]
    return names
