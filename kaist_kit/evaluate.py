"""Log-average miss rate: curves and scores per method, protocol, setting and split.

`Evaluation` matches one method's detections once, for every setting, and then scores any split
and either protocol from that matching. `evaluate` is the one-call entry point.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .detections import Detections, load_detections, method_name
from .groundtruth import GroundTruth
from .matching import IGNORED, TRUE_POSITIVE, greedy_match, ignore_masks, overlaps_by_image
from .settings import SETTINGS, SPLITS, Protocol, get_protocol, get_setting


@dataclass
class Curve:
    """The MR-FPPI curve: one point per scored detection, in descending score."""

    scores: np.ndarray
    fppi: np.ndarray
    miss_rate: np.ndarray


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

    def to_dict(self, with_curve: bool = False) -> dict:
        out = {
            "method": self.method,
            "protocol": self.protocol,
            "setting": self.setting,
            "split": self.split,
            "lamr": self.lamr,
            "miss_rates": list(self.miss_rates),
            "fppi_refs": list(self.fppi_refs),
            "recall": None if math.isnan(self.recall) else self.recall,
            "n_images": self.n_images,
            "n_gt": self.n_gt,
        }
        if with_curve:
            out["curve"] = {
                "score": self.curve.scores.tolist(),
                "fppi": self.curve.fppi.tolist(),
                "miss_rate": [None if math.isnan(v) else v for v in self.curve.miss_rate.tolist()],
            }
        return out


class Evaluation:
    """One method's detections matched against the ground truth in every requested setting."""

    def __init__(self, gt: GroundTruth, dets: Detections, settings: Iterable[str] = tuple(SETTINGS),
                 method: str = ""):
        self.gt = gt
        self.method = method
        self.settings = list(dict.fromkeys(settings))
        self.setting_row = {name: k for k, name in enumerate(self.settings)}

        # Evaluation order: by image, then by descending score; ties keep file order.
        order = np.lexsort((-dets.scores, dets.image))
        self.file_index = order
        self.image = dets.image[order]
        self.boxes = dets.boxes[order]
        self.scores = dets.scores[order]
        image_start = np.searchsorted(self.image, np.arange(gt.n_images + 1))
        self.rank = np.arange(len(order)) - image_start[self.image]
        self.dets_per_image = np.diff(image_start)

        self.ignored = ignore_masks(gt, [get_setting(s) for s in self.settings])
        pairs = overlaps_by_image(self.image, self.boxes, gt, min_overlap=0.5)
        self.matches = greedy_match(self.image, pairs, self.ignored)
        # The curve concatenates images in id order and stable-sorts by descending score.
        self.score_order = np.argsort(-self.scores, kind="stable")

    def score(self, setting: str, split: str | Sequence = "all", protocol: str | Protocol = "leaderboard",
              split_name: str | None = None) -> Result:
        proto = protocol if isinstance(protocol, Protocol) else get_protocol(protocol)
        name = split_name or (split if isinstance(split, str) else "subset")
        terms = self.curve_terms(setting, split, proto)
        return score_curve(terms.positive, self.scores[terms.sequence], terms.n_gt, terms.n_images, proto,
                           self.method, setting, name)

    def curve_terms(self, setting: str, split: str | Sequence = "all",
                    protocol: str | Protocol = "leaderboard") -> CurveTerms:
        """What the curve of a setting and split is built from, under a protocol's rules."""
        row = self.setting_row[setting]
        return self.curve_terms_of(self.matches.status[row], self.matches.matched_gt[row], self.ignored[row],
                                   self.gt.split_mask(split), protocol)

    def curve_terms_of(self, status: np.ndarray, matched_gt: np.ndarray, ignored: np.ndarray,
                       images: np.ndarray, protocol: str | Protocol = "leaderboard") -> CurveTerms:
        """Curve terms of one matching of these detections (a row of `greedy_match`) on an image mask.

        The diagnosis uses it for matchings of its own (the foreground, every person box).
        """
        proto = protocol if isinstance(protocol, Protocol) else get_protocol(protocol)
        kept = images[self.image] & (status != IGNORED)
        if proto.max_detections_per_image is not None:
            kept &= self.rank < proto.max_detections_per_image
        sequence = self.score_order[kept[self.score_order]]
        positive = status[sequence] == TRUE_POSITIVE
        if proto.id_zero_is_unmatched:
            taken = matched_gt[sequence[positive]]
            positive[positive] = self.gt.ann_ids[taken] != 0

        counted_images = images
        if proto.skips_images_without_detections:
            counted_images = images & (self.dets_per_image > 0)
        counted = ~ignored & counted_images[self.gt.ann_image]
        return CurveTerms(sequence, positive, counted, int(images.sum()))


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


def score_curve(positive: np.ndarray, scores: np.ndarray, n_gt: int, n_images: int, proto: Protocol,
                method: str = "", setting: str = "", split: str = "") -> Result:
    """Score a sequence of true/false positives (in descending score) under a protocol."""
    refs = np.array(proto.fppi_refs, np.float64)
    tp = np.cumsum(positive, dtype=np.float64)
    fp = np.cumsum(~positive, dtype=np.float64)
    if n_gt == 0 or n_images == 0:
        # No pedestrian counts: the devkit reads miss rate 1 everywhere; the leaderboard prints -1.
        miss = np.ones(len(refs))
        recall = float("nan")
        fppi = fp / max(n_images, 1)
        curve = Curve(scores, fppi, np.full(len(tp), np.nan))
        return Result(method, proto.name, setting, split, 1.0, tuple(miss.tolist()), proto.fppi_refs,
                      recall, n_images, n_gt, curve)

    recall_curve = tp / n_gt
    fppi = fp / n_images
    if len(recall_curve) == 0:
        at_refs = np.zeros(len(refs))
    else:
        index = np.searchsorted(fppi, refs, side="right") - 1
        below = recall_curve[-1] if proto.below_first_reads_last else 0.0
        at_refs = np.where(index >= 0, recall_curve[np.maximum(index, 0)], below)
    miss = 1.0 - at_refs
    lamr = log_average(miss, proto)
    recall = float(recall_curve[-1]) if len(recall_curve) else 0.0
    curve = Curve(scores, fppi, 1.0 - recall_curve)
    return Result(method, proto.name, setting, split, lamr, tuple(miss.tolist()), proto.fppi_refs,
                  recall, n_images, n_gt, curve)


def log_average(miss: np.ndarray, proto: Protocol) -> float:
    """Geometric mean of the miss rates, with each reference implementation's arithmetic."""
    if proto.miss_rate_floor > 0:
        # The devkit: exp(mean(log(max(1e-10, mr)))), its mean summing left to right.
        total = 0.0
        for value in np.log(np.maximum(proto.miss_rate_floor, miss)):
            total += float(value)
        return math.exp(total / len(miss))
    with np.errstate(divide="ignore"):
        return float(np.exp(np.mean(np.log(miss))))


SplitSpec = str | tuple[str, Sequence]


def _split(spec: SplitSpec) -> tuple[str, str | Sequence]:
    """(name, selection) of a split given as 'all' / 'day' / 'night' or (name, image names or ids)."""
    return (spec, spec) if isinstance(spec, str) else (spec[0], spec[1])


def evaluate(gt: GroundTruth, dets: Detections, settings: Iterable[str] = ("reasonable",),
             splits: Iterable[SplitSpec] = SPLITS, protocols: Iterable[str] = ("leaderboard",),
             method: str = "") -> list[Result]:
    """Score one method in each protocol, setting and split (`kaist_kit.findings` says what in the
    input a protocol mishandles)."""
    settings = list(settings)
    evaluation = Evaluation(gt, dets, settings, method)
    results = []
    for protocol in protocols:
        proto = get_protocol(protocol)
        for setting in settings:
            for spec in splits:
                name, selection = _split(spec)
                results.append(evaluation.score(setting, selection, proto, name))
    return results


def evaluate_files(paths: Sequence[str | os.PathLike], gt: GroundTruth,
                   settings: Iterable[str] = ("reasonable",), splits: Iterable[SplitSpec] = SPLITS,
                   protocols: Iterable[str] = ("leaderboard",), names: Sequence[str] | None = None,
                   format: str = "auto", devkit_shift: bool = True) -> list[Result]:
    """Read and score several result files; method names default to the file names."""
    names = list(names) if names else unique_method_names(paths)
    settings, splits, protocols = list(settings), list(splits), list(protocols)
    results = []
    for path, name in zip(paths, names):
        dets = load_detections(path, gt, format, devkit_shift)
        results += evaluate(gt, dets, settings, splits, protocols, name)
    return results


def unique_method_names(paths: Sequence[str | os.PathLike]) -> list[str]:
    names = [method_name(p) for p in paths]
    if len(set(names)) < len(names):
        names = [Path(str(p).rstrip("/")).name if names.count(n) > 1 else n for p, n in zip(paths, names)]
    return names
