"""False-positive types and the oracles that fix each kind of error (docs/diagnosis.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..evaluate import CurveTerms, Evaluation, Result, log_average, score_curve
from ..matching import FALSE_POSITIVE, MATCH_THRESHOLD, TRUE_POSITIVE, Pairs
from ..settings import Protocol
from .categories import HEIGHT_BINS, Categories

# False-positive types, in order of precedence: a false positive takes the first type it fits.
FP_TYPES = ("duplicate", "scale", "localization", "ghost")
DUPLICATE, SCALE, LOCALIZATION, GHOST = range(4)
NOT_FALSE_POSITIVE = -1
DUPLICATE_IOU = MATCH_THRESHOLD
SCALE_CENTRE = 0.2  # centre offset, as a fraction of the pedestrian's width (x) and height (y)
LOCALIZATION_IOU = 0.25


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
    """Type every false positive against the pedestrians of its image (see FP_TYPES for the order).

    ``pairs`` are all detection / ground-truth pairs that intersect (`overlaps_by_image` with
    min_overlap 0). A pedestrian here is any box labelled person; for a duplicate it must also
    count in the setting, since only those are ever matched.
    """
    gt = evaluation.gt
    n_settings, n_det = evaluation.matches.status.shape
    kind = np.full((n_settings, n_det), NOT_FALSE_POSITIVE, np.int8)
    target = np.full((n_settings, n_det), -1, np.int64)
    person = ~gt.ignore[pairs.gt]
    det_box, gt_box = evaluation.boxes[pairs.det], gt.boxes[pairs.gt]
    offset = np.abs((det_box[:, :2] + det_box[:, 2:] / 2) - (gt_box[:, :2] + gt_box[:, 2:] / 2))
    centred = person & np.all(offset <= SCALE_CENTRE * gt_box[:, 2:], axis=1)
    close = person & (pairs.iou >= LOCALIZATION_IOU)

    false_positive = false_positive_mask(evaluation, proto)
    for row in range(n_settings):
        # A false positive that overlaps a counted pedestrian at IoU >= 0.5 found it taken by a
        # detection before it (else the matching would have given it that pedestrian), or it is the
        # leaderboard's match to annotation id 0, which that evaluator reads as no match.
        on_matched = ~evaluation.ignored[row, pairs.gt] & (pairs.iou >= DUPLICATE_IOU)
        untyped = false_positive[row].copy()
        for error, criterion in ((DUPLICATE, on_matched), (SCALE, centred), (LOCALIZATION, close)):
            dets, pedestrians = _closest(pairs, criterion & untyped[pairs.det])
            kind[row, dets] = error
            target[row, dets] = pedestrians
            untyped[dets] = False
        kind[row, untyped] = GHOST
    return ErrorTypes(kind, target)


def _closest(pairs: Pairs, selected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each detection with a selected pair: the pedestrian of largest IoU (first in file order on a tie)."""
    index = np.flatnonzero(selected)
    order = np.lexsort((pairs.gt[index], -pairs.iou[index], pairs.det[index]))
    index = index[order]
    det = pairs.det[index]
    first = np.r_[True, det[1:] != det[:-1]] if len(det) else np.zeros(0, bool)
    return det[first], pairs.gt[index[first]]


ORACLES = ("duplicates removed", "scale errors corrected", "localization errors corrected", "ghosts removed",
           "near misses found", "medium misses found", "far misses found")


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


def oracle_lamrs(evaluation: Evaluation, row: int, terms: CurveTerms, types: ErrorTypes, base: Result,
                 categories: Categories, missed_at_end: np.ndarray, proto: Protocol) -> dict[str, float]:
    """The LAMR with each error type fixed alone (see ORACLES)."""
    sequence, positive = terms.sequence, terms.positive
    scores = evaluation.scores[sequence]
    kind = types.kind[row, sequence]
    target = types.target[row, sequence]

    def lamr(keep: np.ndarray, positives: np.ndarray, found: int = 0) -> float:
        flags, ordered = positives[keep], scores[keep]
        if found:
            flags = np.r_[np.ones(found, bool), flags]
            ordered = np.r_[np.full(found, np.inf), ordered]
        return never_worse(score_curve(flags, ordered, terms.n_gt, terms.n_images, proto), base, proto)

    everything = np.ones(len(sequence), bool)
    # Pedestrians the matching took (the leaderboard's id-0 match included) stay taken.
    taken = np.zeros(len(evaluation.gt.ann_ids), bool)
    took = evaluation.matches.status[row, sequence] == TRUE_POSITIVE
    taken[evaluation.matches.matched_gt[row, sequence[took]]] = True
    out = {"duplicates removed": lamr(kind != DUPLICATE, positive)}
    for name, error in (("scale errors corrected", SCALE), ("localization errors corrected", LOCALIZATION)):
        keep, fixed = _corrected(kind == error, target, terms.counted & ~taken, positive)
        out[name] = lamr(keep, fixed)
    out["ghosts removed"] = lamr(kind != GHOST, positive)
    for name, _, _ in HEIGHT_BINS:
        found = int((missed_at_end & categories.mask("height", name)).sum())
        out[f"{name} misses found"] = lamr(everything, positive, found)
    return out


def _corrected(errors: np.ndarray, target: np.ndarray, free: np.ndarray,
               positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each error, in curve order, becomes a true positive of its pedestrian if that pedestrian counts
    and is still free, else it is dropped."""
    entries = np.flatnonzero(errors)
    pedestrians = target[entries]
    free_entries = entries[free[pedestrians]]
    _, first = np.unique(target[free_entries], return_index=True)
    winners = free_entries[first]
    keep = ~errors
    keep[winners] = True
    fixed = positive.copy()
    fixed[winners] = True
    return keep, fixed
