"""COCO's average precision and recall for every class, as pycocotools computes them, to the last bit.

`coco_evaluate` takes a ground truth and detections of any classes and returns COCO's precision
(T x R x K x A x M) and recall (T x K x A x M) arrays and their summaries: AP over IoU 0.50:0.95,
AP50, AP75, AP by area, AR at 1, 10 and 100 detections and AR by area, for each class and over the
classes. It needs numpy only; tests compare it with pycocotools on real files.

pycocotools' rules, as `COCOeval` (evaluate, accumulate, summarize) applies them:

- images are taken in sorted id order and classes in sorted id order; a box of a class not in the
  ground truth's categories, or of an image not evaluated, takes no part;
- per image and class, detections are stably sorted by descending score and the first 100 kept;
  ground truths are stably sorted so that those not ignored come first;
- a ground truth is ignored when it is a crowd region (``iscrowd``; the file's ``ignore`` is
  overwritten by it) or its ``area`` (the file's, not the box's) lies outside the area range;
- the overlap with a crowd region is the intersection over the detection's area, else the IoU;
- for each threshold t, each detection in order takes, among the ground truths not yet taken (a
  crowd region is never used up) with overlap >= min(t, 1 - 1e-10), the one not ignored of largest
  overlap (the later one on a tie), and only if there is none, the ignored one of largest overlap;
- a detection matched to an ignored ground truth, or unmatched with an area outside the range, is
  ignored; a match to the ground truth whose id is 0 reads as no match (COCO stores the id as the
  flag), so such a detection is a false positive;
- where annotation ids repeat, every box of an id is evaluated as the last box of the file with that
  id (pycocotools indexes the boxes by id and loads them back by id): its image, class and box, so that
  a box may count twice and another not at all (`kaist_kit.metrics.idrules`);
- accumulation as in `kaist_kit.metrics.coco` (the 2024 challenge's), per class, area range and number of
  detections per image; precision and recall are -1 where no ground truth counts, and a summary is
  numpy's mean of the values that are not -1.

The matching is vectorised as `kaist_kit.metrics.matching` does it for the KAIST evaluator: a detection
depends on earlier ones only through the ground truths they can take, so the detections of every
image are processed in rounds, each round at once for all thresholds and area ranges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..data.detections import Detections
from ..data.groundtruth import GroundTruth
from . import coco
from .matching import _rounds, pair_overlaps
from .spec import COCO, Metric, Precision, get_metric, names_of

AREA_RANGES: tuple[tuple[str, tuple[float, float]], ...] = (
    ("all", (0.0**2, 1e5**2)),
    ("small", (0.0**2, 32.0**2)),
    ("medium", (32.0**2, 96.0**2)),
    ("large", (96.0**2, 1e5**2)),
)
MAX_DETS = (1, 10, 100)
# Only an overlap below this matches at a threshold of 1 (COCO's min(t, 1 - 1e-10)).
_BELOW_ONE = 1 - 1e-10

# The twelve summaries COCOeval prints, in its order: the metrics the COCO evaluator reads
# (`kaist_kit.metrics.spec`, each with its IoU threshold or the mean over the ten, area range and
# detections per image).
COCO_METRICS = names_of(COCO)


@dataclass
class CocoEvaluation:
    """COCO's accumulated arrays for one method, and their summaries."""

    precision: np.ndarray  # (T, R, K, A, M); -1 where no ground truth counts
    recall: np.ndarray  # (T, K, A, M); -1 where no ground truth counts
    class_ids: tuple[int, ...]
    class_names: tuple[str, ...]
    thresholds: np.ndarray
    area_names: tuple[str, ...]
    max_dets: tuple[int, ...]
    n_gt: np.ndarray  # (K, A) ground truths that count
    n_images: int

    def summary(self, metric: str | Metric, klass: int | None = None) -> float:
        """A metric the COCO evaluator reads (`COCO_METRICS`) over the classes, as COCOeval.summarize
        computes it, or of class index ``klass`` (the mean over its values, as per-class tables compute
        it); nan where no ground truth counts (COCO prints -1)."""
        spec = get_metric(metric)
        reading = spec.reading(COCO)
        if reading is None:
            raise ValueError(f"the coco protocol computes {', '.join(COCO_METRICS)}, not {spec.name!r}")
        threshold = reading.iou
        a = self.area_names.index(reading.area)
        m = self.max_dets.index(reading.max_dets)
        rows = slice(None) if threshold is None else np.flatnonzero(self.thresholds == threshold)
        if isinstance(reading, Precision):
            s = self.precision[rows][:, :, :, [a], [m]]
            if klass is not None:
                s = s[:, :, klass]
        else:
            s = self.recall[rows][:, :, [a], [m]]
            if klass is not None:
                s = s[:, klass]
        kept = s[s > -1]
        return float(np.mean(kept)) if kept.size else float("nan")

    def summaries(self, metrics: Iterable[str] = COCO_METRICS, klass: int | None = None) -> dict[str, float]:
        return {name: self.summary(name, klass) for name in metrics}

    def stats(self) -> list[float]:
        """The twelve numbers of COCOeval.stats, in its order (-1 where undefined)."""
        return [-1.0 if np.isnan(v) else v for v in (self.summary(name) for name in COCO_METRICS)]


def coco_evaluate(
    annotations: GroundTruth,
    detections: Detections,
    images: np.ndarray | Sequence | str | None = None,
    *,
    thresholds: Sequence[float] = coco.IOU_THRESHOLDS,
    area_ranges: Sequence[tuple[str, tuple[float, float]]] = AREA_RANGES,
    max_dets: Sequence[int] = MAX_DETS,
) -> CocoEvaluation:
    """COCO's evaluation of ``detections`` on the images of ``images`` (a mask, a split name or a list
    of ids; default all): COCOeval with ``params.imgIds`` those images (see the module's docstring)."""
    thresholds = np.asarray(thresholds, np.float64)
    max_dets = tuple(sorted(max_dets))
    area_names = tuple(name for name, _ in area_ranges)
    bounds = np.array([r for _, r in area_ranges], np.float64)
    n_classes = len(annotations.classes)
    evaluated = annotations.split_mask("all" if images is None else images)

    # Images in sorted id order, classes in sorted id order (annotations.classes is sorted).
    rank_of_image = np.empty(annotations.n_images, np.int64)
    rank_of_image[sorted(range(annotations.n_images), key=annotations.image_ids.__getitem__)] = np.arange(
        annotations.n_images
    )

    # Ground truths of evaluated images, grouped by (image rank, class), file order within a group. Where
    # ids repeat, each box is the box pycocotools loads in its place (`kaist_kit.metrics.idrules`), filed under
    # that box's image and class, in the order pycocotools meets the boxes it replaces.
    loads = annotations.coco_loads
    g_keep = np.flatnonzero(evaluated[annotations.ann_image])
    g_source = g_keep
    if loads is not None:
        g_source = loads[g_keep]
        loaded = g_source >= 0  # and in an evaluated image: pycocotools scores the others nowhere
        loaded[loaded] = evaluated[annotations.ann_image[g_source[loaded]]]
        g_keep, g_source = g_keep[loaded], g_source[loaded]
    g_key = rank_of_image[annotations.ann_image[g_source]] * n_classes + annotations.ann_class[g_source]
    met = np.lexsort((g_keep, rank_of_image[annotations.ann_image[g_keep]], g_key))
    g_order, g_key = g_source[met], g_key[met]
    g_box = annotations.boxes[g_order]
    g_area = annotations.areas[g_order]
    g_crowd = annotations.iscrowd[g_order]
    g_id = annotations.ann_ids[g_order]
    g_class = annotations.ann_class[g_order]
    # (A, G): ignored in each area range; crowd regions are ignored in all.
    g_ignored = g_crowd[None, :] | (g_area[None, :] < bounds[:, :1]) | (g_area[None, :] > bounds[:, 1:])

    # Detections of evaluated images and listed classes, by (image rank, class), then descending score
    # (ties in file order), at most max_dets[-1] per image and class.
    class_of_id = {info.id: k for k, info in enumerate(annotations.classes)}
    d_class = np.array([class_of_id.get(int(c), -1) for c in detections.category], np.int64)
    d_keep = np.flatnonzero((d_class >= 0) & evaluated[detections.image])
    by_score = d_keep[np.argsort(-detections.scores[d_keep], kind="stable")]
    d_key = rank_of_image[detections.image[by_score]] * n_classes + d_class[by_score]
    grouped = np.argsort(d_key, kind="stable")
    d_order, d_key = by_score[grouped], d_key[grouped]
    group_start = np.searchsorted(d_key, d_key, side="left")
    rank = np.arange(len(d_key)) - group_start
    within = rank < max_dets[-1]
    d_order, d_key, rank = d_order[within], d_key[within], rank[within]
    d_box = detections.boxes[d_order]
    d_score = detections.scores[d_order]
    d_class = d_class[d_order]
    d_area = d_box[:, 2] * d_box[:, 3]

    pair_det, pair_gt, pair_iou = _pairs(d_key, d_box, g_key, g_box, g_crowd, float(min(thresholds.min(), _BELOW_ONE)))
    matched = _match(pair_det, pair_gt, pair_iou, len(d_key), g_crowd, g_ignored, thresholds)  # (T, A, D)

    # Per threshold and area range: true and false positives, and ignored detections.
    hit = matched >= 0
    counted_match = np.zeros_like(hit)
    matched_ignored = np.zeros_like(hit)
    if len(g_id):
        safe = np.maximum(matched, 0)
        counted_match = hit & (g_id[safe] != 0)
        matched_ignored = hit & g_ignored[np.arange(len(area_names))[None, :, None], safe]
    outside = (d_area[None, :] < bounds[:, :1]) | (d_area[None, :] > bounds[:, 1:])  # (A, D)
    ignored = matched_ignored | (~counted_match & outside[None])
    tp = counted_match & ~ignored
    fp = ~counted_match & ~ignored

    n_t, n_a, n_m = len(thresholds), len(area_names), len(max_dets)
    precision = -np.ones((n_t, len(coco.RECALL_POINTS), n_classes, n_a, n_m))
    recall = -np.ones((n_t, n_classes, n_a, n_m))
    n_gt = np.zeros((n_classes, n_a), np.int64)
    for k in range(n_classes):
        of_class = np.flatnonzero(d_class == k)
        counted = ~g_ignored[:, g_class == k]
        for a in range(n_a):
            n_gt[k, a] = int(counted[a].sum())
            if n_gt[k, a] == 0:
                continue
            for m, max_det in enumerate(max_dets):
                sel = of_class[rank[of_class] < max_det]
                sel = sel[np.argsort(-d_score[sel], kind="mergesort")]
                p, r = coco.precision_recall(tp[:, a, sel], fp[:, a, sel], n_gt[k, a])
                precision[:, :, k, a, m] = p
                recall[:, k, a, m] = r
    return CocoEvaluation(
        precision,
        recall,
        tuple(c.id for c in annotations.classes),
        tuple(c.name for c in annotations.classes),
        thresholds,
        area_names,
        max_dets,
        n_gt,
        int(evaluated.sum()),
    )


def _pairs(
    d_key: np.ndarray, d_box: np.ndarray, g_key: np.ndarray, g_box: np.ndarray, g_crowd: np.ndarray, min_overlap: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every detection / ground-truth pair of the same image and class whose overlap (IoU, or the
    intersection over the detection for a crowd region) reaches ``min_overlap``: ordered by detection,
    then ground truth."""
    start = np.searchsorted(g_key, d_key, side="left")
    count = np.searchsorted(g_key, d_key, side="right") - start
    dets, gts, ious = [], [], []
    for det, g in coco.candidate_pairs(start, count):
        positive, iou, iod = pair_overlaps(d_box[det], g_box[g])
        det, g = det[positive], g[positive]
        overlap = np.where(g_crowd[g], iod, iou)
        keep = overlap >= min_overlap
        dets.append(det[keep])
        gts.append(g[keep])
        ious.append(overlap[keep])
    if not dets:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(dets), np.concatenate(gts), np.concatenate(ious)


def _match(
    pair_det: np.ndarray,
    pair_gt: np.ndarray,
    pair_iou: np.ndarray,
    n_det: int,
    g_crowd: np.ndarray,
    g_ignored: np.ndarray,
    thresholds: np.ndarray,
) -> np.ndarray:
    """(T, A, D): the ground truth each detection takes at each threshold and area range, -1 for none."""
    n_t, n_a = len(thresholds), g_ignored.shape[0]
    n_s = n_t * n_a  # settings, threshold-major
    matched = np.full((n_s, n_det), -1, np.int64)
    if len(pair_det) == 0:
        return matched.reshape(n_t, n_a, n_det)
    limit = np.repeat(np.minimum(thresholds, _BELOW_ONE), n_a)[:, None]
    ignored = np.tile(g_ignored, (n_t, 1))  # (S, G)

    active, pair_active = np.unique(pair_det, return_inverse=True)
    level = _rounds(pair_active, pair_gt, ~g_crowd, len(active))
    pair_level = level[pair_active]
    order = np.argsort(pair_level, kind="stable")
    bounds = np.searchsorted(pair_level[order], np.arange(level.max() + 2))
    taken = np.zeros((n_s, len(g_crowd)), bool)
    for lv in range(len(bounds) - 1):
        p = order[bounds[lv] : bounds[lv + 1]]
        det, g, iou = pair_det[p], pair_gt[p], pair_iou[p]
        seg = np.flatnonzero(np.r_[True, det[1:] != det[:-1]])
        seg_id = np.repeat(np.arange(len(seg)), np.diff(np.r_[seg, len(det)]))
        pos = np.arange(len(det))
        eligible = (iou >= limit) & (~taken[:, g] | g_crowd[g])
        ign = ignored[:, g]
        chosen = np.full((n_s, len(seg)), -1, np.int64)
        for kind in (~ign, ign):  # regular ground truths first; ignored ones only for detections without one
            allowed = eligible & kind & (chosen[:, seg_id] < 0)
            value = np.where(allowed, iou, -1.0)
            best = np.maximum.reduceat(value, seg, axis=1)
            last_best = np.maximum.reduceat(np.where(allowed & (value == best[:, seg_id]), pos, -1), seg, axis=1)
            chosen = np.where(chosen >= 0, chosen, last_best)
        dets = det[seg]
        hit = chosen >= 0
        matched[:, dets] = np.where(hit, g[np.maximum(chosen, 0)], -1)
        s_idx, d_idx = np.nonzero(hit)
        taken[s_idx, g[chosen[s_idx, d_idx]]] = True
    return matched.reshape(n_t, n_a, n_det)
