"""False-positive types and the oracles that fix each kind of error, one small definition each
(docs/diagnosis.md, "False positives by type" and "Oracles").

A false positive takes the first type of FALSE_POSITIVE_TYPES whose rule it fits; the last type,
whose rule is None, takes every false positive left. A rule looks at every intersecting detection /
pedestrian pair at once (`PairFacts`), so typing stays vectorised. Each type names the oracle that
repairs it and how: `remove` drops its errors from the curve, `correct` makes each a true positive
of its pedestrian while that pedestrian is free. MISS_FIXES find the missed pedestrians of a kind.
A new type or fix is one new entry in these lists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..metrics.evaluate import CurveTerms, Evaluation, Result, log_average, score_curve
from ..metrics.matching import FALSE_POSITIVE, TRUE_POSITIVE, Pairs, pair_overlaps, squarified
from ..metrics.settings import Protocol
from .categories import HEIGHT_BINS, Categories

NOT_FALSE_POSITIVE = -1
SCALE_CENTRE = 0.2  # centre offset, as a fraction of the pedestrian's width (x) and height (y)
LOCALIZATION_IOU = 0.25


@dataclass
class PairFacts:
    """What a type's rule may ask of the detection / ground-truth pairs that intersect (one entry
    per pair; ``counted`` has a row per setting)."""

    pairs: Pairs
    person: np.ndarray  # (P,) the box is labelled person (whether or not a setting counts it)
    counted: np.ndarray  # (S, P) the box counts in the setting
    det_box: np.ndarray  # (P, 4) x, y, w, h
    gt_box: np.ndarray  # (P, 4)
    matching_iou: np.ndarray  # (S, P) the IoU the setting matches with (of a squarified box, where it squarifies)
    threshold: float  # the IoU a match takes

    @classmethod
    def of(cls, evaluation: Evaluation, pairs: Pairs) -> PairFacts:
        gt = evaluation.gt
        det_box, gt_box = evaluation.boxes[pairs.det], gt.boxes[pairs.gt]
        matching_iou = np.broadcast_to(pairs.iou, (len(evaluation.settings), len(pairs.det)))
        ratios = [s.squarify for s in evaluation.setting_objects]
        if any(r is not None for r in ratios):
            matching_iou = matching_iou.copy()
            for row, ratio in enumerate(ratios):
                if ratio is not None:
                    positive, iou, _ = pair_overlaps(det_box, squarified(gt_box, ratio))
                    matching_iou[row] = 0.0
                    matching_iou[row, positive] = iou
        return cls(
            pairs, ~gt.ignore[pairs.gt], ~evaluation.ignored[:, pairs.gt], det_box, gt_box, matching_iou, evaluation.iou
        )


@dataclass(frozen=True)
class Fix:
    """What an oracle repairs on a curve of ``positive`` entries (curve order)."""

    positive: np.ndarray  # (L,) bool: a true positive
    target: np.ndarray  # (L,) the pedestrian an entry's error is about, -1
    free: np.ndarray  # (N,) bool: pedestrians that count and that no detection took


def remove(errors: np.ndarray, fix: Fix) -> tuple[np.ndarray, np.ndarray]:
    """The errors leave the curve. Returns (entries kept, which of them are true positives)."""
    return ~errors, fix.positive


def correct(errors: np.ndarray, fix: Fix) -> tuple[np.ndarray, np.ndarray]:
    """Each error, in curve order, becomes a true positive of its pedestrian if that pedestrian counts
    and is still free, else it leaves the curve."""
    entries = np.flatnonzero(errors)
    free_entries = entries[fix.free[fix.target[entries]]]
    _, first = np.unique(fix.target[free_entries], return_index=True)
    winners = free_entries[first]
    keep = ~errors
    keep[winners] = True
    positive = fix.positive.copy()
    positive[winners] = True
    return keep, positive


Rule = Callable[[PairFacts], np.ndarray]  # (P,) or (S, P) bool: the pairs the type fits
Repair = Callable[[np.ndarray, Fix], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class FalsePositiveType:
    name: str
    fits: Rule | None  # None: every false positive no earlier type took, about no pedestrian
    oracle: str  # the name of the fix
    repair: Repair


def _duplicate(facts: PairFacts) -> np.ndarray:
    # A false positive on a counted pedestrian at the matching's IoU (0.5 unless asked) found it taken
    # by a detection before it (else the matching would have given it that pedestrian), or it is the
    # leaderboard's match to annotation id 0, which that evaluator reads as no match.
    return facts.counted & (facts.matching_iou >= facts.threshold)


def _scale(facts: PairFacts) -> np.ndarray:
    det, gt = facts.det_box, facts.gt_box
    offset = np.abs((det[:, :2] + det[:, 2:] / 2) - (gt[:, :2] + gt[:, 2:] / 2))
    return facts.person & np.all(offset <= SCALE_CENTRE * gt[:, 2:], axis=1)


def _localization(facts: PairFacts) -> np.ndarray:
    return facts.person & (facts.pairs.iou >= LOCALIZATION_IOU)


# In order of precedence.
FALSE_POSITIVE_TYPES = (
    FalsePositiveType("duplicate", _duplicate, "duplicates removed", remove),
    FalsePositiveType("scale", _scale, "scale errors corrected", correct),
    FalsePositiveType("localization", _localization, "localization errors corrected", correct),
    FalsePositiveType("ghost", None, "ghosts removed", remove),
)
assert FALSE_POSITIVE_TYPES[-1].fits is None and all(t.fits for t in FALSE_POSITIVE_TYPES[:-1])
FP_TYPES = tuple(t.name for t in FALSE_POSITIVE_TYPES)
GHOST = FP_TYPES.index("ghost")


@dataclass(frozen=True)
class MissFix:
    """An oracle that finds the pedestrians of one bin missed at the end of the curve: they are added
    as true positives at its top."""

    name: str
    family: str  # a family of `Categories`
    bin: str


MISS_FIXES = tuple(MissFix(f"{name} misses found", "height", name) for name, _, _ in HEIGHT_BINS)
# Tables and figures list the fixes of false positives in precedence, then the misses nearest first.
ORACLES = tuple(t.oracle for t in FALSE_POSITIVE_TYPES) + tuple(f.name for f in reversed(MISS_FIXES))


@dataclass
class ErrorTypes:
    """The type of every false positive, per setting, for detections in evaluation order."""

    kind: np.ndarray  # (S, D) int8: index into FP_TYPES, NOT_FALSE_POSITIVE for other detections
    target: np.ndarray  # (S, D) int64: the pedestrian a duplicate, scale or localization error is about; -1


def false_positive_mask(evaluation: Evaluation, proto: Protocol) -> np.ndarray:
    """(S, D) bool: the detections a protocol counts as false positives.

    Under the leaderboard a match to the annotation whose id is 0 counts as a false positive too.
    """
    status = evaluation.matches.status
    fp = status == FALSE_POSITIVE
    if proto.id_zero_is_unmatched and len(evaluation.gt.ann_ids):
        matched = evaluation.matches.matched_gt
        fp |= (status == TRUE_POSITIVE) & (evaluation.gt.ann_ids[np.maximum(matched, 0)] == 0)
    return fp


def type_false_positives(evaluation: Evaluation, pairs: Pairs, proto: Protocol) -> ErrorTypes:
    """Type every false positive against the pedestrians of its image (FALSE_POSITIVE_TYPES, in order).

    ``pairs`` are all detection / ground-truth pairs that intersect (`overlaps_by_image` with
    min_overlap 0). The pedestrian an error is about is the one of largest IoU among those its type
    fits (the first in file order on a tie).
    """
    n_settings, n_det = evaluation.matches.status.shape
    kind = np.full((n_settings, n_det), NOT_FALSE_POSITIVE, np.int8)
    target = np.full((n_settings, n_det), -1, np.int64)
    facts = PairFacts.of(evaluation, pairs)
    fits = [np.broadcast_to(t.fits(facts), (n_settings, len(pairs.det))) for t in FALSE_POSITIVE_TYPES[:-1]]
    false_positive = false_positive_mask(evaluation, proto)
    for row in range(n_settings):
        untyped = false_positive[row].copy()
        for error, fit in enumerate(fits):
            dets, pedestrians = _closest(pairs, fit[row] & untyped[pairs.det])
            kind[row, dets] = error
            target[row, dets] = pedestrians
            untyped[dets] = False
        kind[row, untyped] = len(fits)
    return ErrorTypes(kind, target)


def _closest(pairs: Pairs, selected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each detection with a selected pair: the pedestrian of largest IoU (first in file order on a tie)."""
    index = np.flatnonzero(selected)
    order = np.lexsort((pairs.gt[index], -pairs.iou[index], pairs.det[index]))
    index = index[order]
    det = pairs.det[index]
    first = np.r_[True, det[1:] != det[:-1]] if len(det) else np.zeros(0, bool)
    return det[first], pairs.gt[index[first]]


def never_worse(fixed: Result, base: Result, proto: Protocol) -> float:
    """LAMR of a fixed curve, each reference keeping the base miss rate where the fix would raise it.

    Fixes only drop false positives, turn them into true positives or add true positives, which can
    only raise the recall read at each reference, with one exception: the leaderboard reads a
    reference below the curve's first point as the curve's final recall (possible only on splits of
    fewer than 100 images), and a fix that moves the first point changes that reading.
    """
    if base.n_gt == 0:
        return base.lamr
    miss = np.minimum(np.array(fixed.miss_rates), np.array(base.miss_rates))
    return log_average(miss, proto)


def oracle_lamrs(
    evaluation: Evaluation,
    row: int,
    terms: CurveTerms,
    types: ErrorTypes,
    base: Result,
    categories: Categories,
    missed_at_end: np.ndarray,
    proto: Protocol,
) -> dict[str, float]:
    """The LAMR with each kind of error fixed alone: every false-positive type's oracle, then every
    fix of misses (the order of FALSE_POSITIVE_TYPES and MISS_FIXES)."""
    sequence, positive = terms.sequence, terms.positive
    scores = evaluation.scores[sequence]
    kind = types.kind[row, sequence]

    def lamr(keep: np.ndarray, positives: np.ndarray, found: int = 0) -> float:
        flags, ordered = positives[keep], scores[keep]
        if found:
            flags = np.r_[np.ones(found, bool), flags]
            ordered = np.r_[np.full(found, np.inf), ordered]
        return never_worse(score_curve(flags, ordered, terms.n_gt, terms.n_images, proto), base, proto)

    # Pedestrians the matching took (the leaderboard's id-0 match included) stay taken.
    taken = np.zeros(len(evaluation.gt.ann_ids), bool)
    took = evaluation.matches.status[row, sequence] == TRUE_POSITIVE
    taken[evaluation.matches.matched_gt[row, sequence[took]]] = True
    fix = Fix(positive, types.target[row, sequence], terms.counted & ~taken)
    out = {}
    for error, spec in enumerate(FALSE_POSITIVE_TYPES):
        out[spec.oracle] = lamr(*spec.repair(kind == error, fix))
    everything = np.ones(len(sequence), bool)
    for spec in MISS_FIXES:
        found = int((missed_at_end & categories.mask(spec.family, spec.bin)).sum())
        out[spec.name] = lamr(everything, positive, found)
    return out
