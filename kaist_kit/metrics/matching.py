"""Per-image greedy matching of detections to ground truth, for many settings at once.

The rule (docs/evaluation.md, "Per image") is sequential within an image: detections are taken in
descending score and each may consume a pedestrian. It is vectorised here by noting that, for a
matching threshold t (0.5 unless stated),

- only a detection that overlaps some ground truth by at least t (intersection over its own area,
  which bounds the IoU from above) can match anything; every other detection is a false positive;
- a detection depends on the earlier ones only through the pedestrians it shares with them (ones
  that count in some setting; an ignore region is never used up), so it can be processed in the round
  after the last of those: every image's detections of one round are processed together (images do
  not interact, and detections of one round share no pedestrian);
- walking the ground truths "non-ignored first, in file order" and keeping the candidate with
  overlap >= best means: among unmatched non-ignored boxes, the one of largest IoU (the later one on
  a tie); failing that, the first ignored box with intersection-over-detection >= t.

The result is independent of the protocol: the leaderboard's cap of 1,000 detections per image
only removes the lowest-scored detections of an image, which come last and cannot change the
matches of the others.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.groundtruth import GroundTruth
from .settings import BORDER_MARGIN, Setting

MATCH_THRESHOLD = 0.5
TRUE_POSITIVE, FALSE_POSITIVE, IGNORED = 1, 0, -1

# Pairs are built per chunk of images so that a file with thousands of detections in crowded
# images does not allocate a huge detection x ground-truth table at once.
_PAIR_CHUNK = 1 << 19


@dataclass
class Pairs:
    """Detection / ground-truth pairs of the same image with a positive intersection."""

    det: np.ndarray
    gt: np.ndarray
    iou: np.ndarray  # intersection over union
    iod: np.ndarray  # intersection over the detection's area (used for ignore regions)

    def at_least(self, min_overlap: float) -> Pairs:
        """The pairs whose intersection over the detection's area is at least ``min_overlap``."""
        keep = self.iod >= min_overlap
        return Pairs(self.det[keep], self.gt[keep], self.iou[keep], self.iod[keep])


def overlaps_by_image(
    image: np.ndarray, boxes: np.ndarray, gt: GroundTruth, min_overlap: float = 0.0, gt_boxes: np.ndarray | None = None
) -> Pairs:
    """All pairs whose intersection over the detection's area is at least ``min_overlap`` (and > 0).

    Pairs come ordered by detection, then by ground truth in file order. The arithmetic follows
    both reference evaluators operation by operation so that overlaps of exactly 0.5 compare alike.
    ``gt_boxes`` replaces the ground truth's boxes (a squarified copy).
    """
    counts = np.diff(gt.ann_start)[image] if len(image) else np.zeros(0, np.int64)
    chunks = []
    start = 0
    total = np.cumsum(counts)
    gt_boxes = gt.boxes if gt_boxes is None else gt_boxes
    with np.errstate(over="ignore"):  # a far box's edge at inf: pair_overlaps says what it overlaps
        edges = [(np.ascontiguousarray(b[:, 0]), b[:, 0] + b[:, 2]) for b in (boxes, gt_boxes)]
    while start < len(image):
        # Largest stop such that the pairs of image[start:stop] fit the chunk (at least one detection).
        base = total[start - 1] if start else 0
        stop = int(np.searchsorted(total, base + _PAIR_CHUNK, side="right"))
        stop = max(stop, start + 1)
        chunks.append(
            _pairs(
                np.arange(start, stop),
                image,
                boxes,
                counts,
                gt,
                min_overlap,
                gt_boxes,
                edges,
            )
        )
        start = stop
    if not chunks:
        empty = np.zeros(0, np.int64)
        return Pairs(empty, empty, np.zeros(0), np.zeros(0))
    return Pairs(*(np.concatenate([getattr(c, f) for c in chunks]) for f in ("det", "gt", "iou", "iod")))


def _pairs(
    dets: np.ndarray,
    image: np.ndarray,
    boxes: np.ndarray,
    counts: np.ndarray,
    gt: GroundTruth,
    min_overlap: float,
    gt_boxes: np.ndarray,
    edges: list[tuple[np.ndarray, np.ndarray]],
) -> Pairs:
    n = counts[dets]
    det = np.repeat(dets, n)
    # Each detection's image's ground truths: the first's index, plus the pair's place among them.
    g = np.repeat(gt.ann_start[image[dets]] - (np.cumsum(n) - n), n) + np.arange(len(det))
    # Most pairs lie apart along x: they are left out before the rest is computed for the others
    # (from each box's left and right edges, computed once: ``edges``, of the detections and the
    # ground truths).
    (d_left, d_right), (g_left, g_right) = edges
    with np.errstate(over="ignore"):
        apart = np.minimum(d_right[det], g_right[g]) - np.maximum(d_left[det], g_left[g]) <= 0
    det, g = det[~apart], g[~apart]

    positive, iou, iod = pair_overlaps(boxes[det], gt_boxes[g])
    return Pairs(det[positive], g[positive], iou, iod).at_least(min_overlap)


def pair_overlaps(d_box: np.ndarray, g_box: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For rows of detection and ground-truth boxes (x, y, w, h) taken in pairs: which intersect, and
    for those, the intersection over union and over the detection's area, with the reference
    evaluators' arithmetic (no +1 pixel)."""
    # Boxes near the float range overflow to inf and nan overlaps, which match nothing: no warning.
    with np.errstate(over="ignore", invalid="ignore"):
        dx1, dy1, dw, dh = d_box.T
        gx1, gy1, gw, gh = g_box.T
        iw = np.minimum(dx1 + dw, gx1 + gw) - np.maximum(dx1, gx1)
        ih = np.minimum(dy1 + dh, gy1 + gh) - np.maximum(dy1, gy1)
        positive = (iw > 0) & (ih > 0)
        iw, ih = iw[positive], ih[positive]
        dw, dh, gw, gh = dw[positive], dh[positive], gw[positive], gh[positive]
        inter = iw * ih
        d_area = dw * dh
        return positive, inter / (d_area + gw * gh - inter), inter / d_area


def in_border_margin(gt: GroundTruth, margin: float = BORDER_MARGIN) -> np.ndarray:
    """(N,) bool: the boxes closer than ``margin`` to their image's border, which a setting ignores."""
    x, y, w, h = gt.boxes.T
    width, height = gt.image_sizes[gt.ann_image].T
    with np.errstate(over="ignore"):  # a far box's edge at inf is beyond the border, as it should be
        return (x < margin) | (y < margin) | (x + w > width - margin) | (y + h > height - margin)


def ignore_masks(gt: GroundTruth, settings: list[Setting]) -> np.ndarray:
    """(S, N) bool: whether each ground truth is ignored in each setting (inputs are not modified)."""
    base = {margin: gt.ignore | in_border_margin(gt, margin) for margin in {s.border for s in settings}}
    masks = np.empty((len(settings), len(gt.ignore)), bool)
    for k, s in enumerate(settings):
        lo, hi = s.height
        masks[k] = base[s.border] | (gt.heights < lo) | (gt.heights > hi) | ~np.isin(gt.occlusion, list(s.occlusions))
    return masks


def squarified(boxes: np.ndarray, ratio: float) -> np.ndarray:
    """Boxes given width = ratio x height about their centre, height kept: the devkit's
    ``bbApply('squarify', bbs, 3, ratio)``, operation by operation."""
    x, y, w, h = boxes.T
    d = h * ratio - w
    return np.column_stack([x - d / 2, y, w + d, h])


def merge_pairs(counted: Pairs, regions: Pairs, n_gt: int) -> Pairs:
    """One pair list taking the IoU from ``counted`` and the intersection over the detection from
    ``regions``, for a matching whose counted boxes differ from the ignore regions (squarified ones).
    A pair missing from one list has overlap 0 there; the order is by detection, then ground truth."""
    key_c = counted.det * n_gt + counted.gt
    key_r = regions.det * n_gt + regions.gt
    keys = np.union1d(key_c, key_r)
    iou = np.zeros(len(keys))
    iod = np.zeros(len(keys))
    iou[np.searchsorted(keys, key_c)] = counted.iou
    iod[np.searchsorted(keys, key_r)] = regions.iod
    return Pairs(keys // n_gt, keys % n_gt, iou, iod)


@dataclass
class Matches:
    """Outcome of matching, for detections in evaluation order (by image, then descending score)."""

    status: np.ndarray  # (S, D) int8: TRUE_POSITIVE, FALSE_POSITIVE or IGNORED
    matched_gt: np.ndarray  # (S, D) int32 index of the ground truth taken, -1 for none


def _rounds(pair_det: np.ndarray, pair_gt: np.ndarray, can_be_taken: np.ndarray, n_det: int) -> np.ndarray:
    """(n_det,) the round of each detection: one more than the latest round of the earlier detections
    it shares a pedestrian with (0 for none). ``pair_det`` numbers the detections in evaluation order."""
    shared = can_be_taken[pair_gt]
    det, gt = pair_det[shared], pair_gt[shared]
    order = np.lexsort((det, gt))  # by pedestrian, then detection: each follows the one before it
    det, gt = det[order], gt[order]
    chained = gt[1:] == gt[:-1]
    before, after = det[:-1][chained], det[1:][chained]
    # Peeled a round at a time (Kahn's order): a round is the detections whose earlier links all lie
    # in the rounds before, so each link is followed once. (A pass over every link until nothing
    # changed cost seconds on files of millions: crowded images chain hundreds of detections.)
    by_before = np.argsort(before, kind="stable")
    before, after = before[by_before], after[by_before]
    first_link = np.searchsorted(before, np.arange(n_det + 1))
    waiting = np.bincount(after, minlength=n_det)  # links from detections not yet given a round
    rounds = np.zeros(n_det, np.int64)
    current, level = np.flatnonzero(waiting == 0), 0
    while len(current):
        rounds[current] = level
        starts, stops = first_link[current], first_link[current + 1]
        counts = stops - starts
        targets = after[np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())]
        np.subtract.at(waiting, targets, 1)
        current, level = np.unique(targets[waiting[targets] == 0]), level + 1
    return rounds


def greedy_match(
    det_image: np.ndarray,
    pairs: Pairs,
    ignored: np.ndarray,
    threshold: float = MATCH_THRESHOLD,
    gt_rank: np.ndarray | None = None,
) -> Matches:
    """Match detections (sorted by image, then by descending score) for each row of ``ignored``,
    taking an overlap of at least ``threshold``.

    ``pairs`` must hold every pair of these detections whose overlap reaches ``threshold``, as
    `overlaps_by_image` with that min_overlap gives them; pairs below it change nothing.
    ``gt_rank`` (S, N), when given, is each ground truth's place in the order the evaluator walks its
    image's boxes in each setting (an unstable sort of the ignore flags): a tie in IoU goes to the later
    one there instead of the later one in file order.
    """
    n_settings = ignored.shape[0]
    n_det = len(det_image)
    status = np.full((n_settings, n_det), FALSE_POSITIVE, np.int8)
    matched_gt = np.full((n_settings, n_det), -1, np.int32)
    if len(pairs.det) == 0:
        return Matches(status, matched_gt)

    # Detections that can match something, and the round each is processed in.
    active, pair_active = np.unique(pairs.det, return_inverse=True)
    level = _rounds(pair_active, pairs.gt, ~ignored.all(axis=0), len(active))
    pair_level = level[pair_active]
    order = np.argsort(pair_level, kind="stable")
    level_bounds = np.searchsorted(pair_level[order], np.arange(level.max() + 2))

    taken = np.zeros_like(ignored)  # (S, N) ground truths already matched
    for lv in range(len(level_bounds) - 1):
        p = order[level_bounds[lv] : level_bounds[lv + 1]]
        det, g, iou, iod = pairs.det[p], pairs.gt[p], pairs.iou[p], pairs.iod[p]
        seg = np.flatnonzero(np.r_[True, det[1:] != det[:-1]])
        seg_id = np.repeat(np.arange(len(seg)), np.diff(np.r_[seg, len(det)]))
        pos = np.arange(len(det))

        ign = ignored[:, g]
        regular = ~ign & ~taken[:, g] & (iou >= threshold)
        value = np.where(regular, iou, -1.0)
        best = np.maximum.reduceat(value, seg, axis=1)
        is_best = regular & (value == best[:, seg_id])
        if gt_rank is not None:
            rank = np.where(is_best, gt_rank[:, g], -1)
            is_best &= rank == np.maximum.reduceat(rank, seg, axis=1)[:, seg_id]
        cand = np.maximum.reduceat(np.where(is_best, pos, -1), seg, axis=1)
        region = ign & (iod >= threshold)
        first_region = np.minimum.reduceat(np.where(region, pos, len(det)), seg, axis=1)

        dets = det[seg]
        hit = cand >= 0
        in_region = ~hit & (first_region < len(det))
        status[:, dets] = np.where(hit, TRUE_POSITIVE, np.where(in_region, IGNORED, FALSE_POSITIVE))
        chosen = np.where(hit, cand, np.where(in_region, first_region, -1))
        matched_gt[:, dets] = np.where(chosen >= 0, g[np.maximum(chosen, 0)], -1)
        s_idx, d_idx = np.nonzero(hit)
        taken[s_idx, g[cand[s_idx, d_idx]]] = True
    return Matches(status, matched_gt)
