"""Average precision and average recall, accumulated as COCO's evaluator does.

The 2024 KAIST challenge's evaluator (docs/evaluation.md) matches at ten IoU thresholds with the
leaderboard's rules and accumulates each matching as COCO does: the detections of the images that
have any, in descending score; precision = TP / (TP + FP + eps), made non-increasing from the right
and read at 101 recall points; recall = TP / pedestrians that count. Detections matched to an
ignore region add to neither count.

Its thresholds are the floats numpy's ``linspace`` gives, not the decimals they are written as:
the one printed 0.9 is 0.8999999999999999, so an overlap of exactly that float counts there. The
kit uses the same floats for these metrics; ``--iou T`` (the LAMR's threshold) takes T as written,
as both reference scripts do for 0.5, 0.6 and 0.75, where the two agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from .spec import Precision, Recall

IOU_THRESHOLDS: tuple[float, ...] = tuple(
    float(t) for t in np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
)
RECALL_POINTS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)


def threshold_index(iou: float) -> int:
    """The position among the ten thresholds of the one written ``iou`` (0.75 is the float linspace gives)."""
    for k, threshold in enumerate(IOU_THRESHOLDS):
        if abs(threshold - iou) < 1e-9:
            return k
    raise ValueError(f"IoU {iou:g} is not one of COCO's thresholds 0.50:0.05:0.95")


def thresholds_of(reading: Precision | Recall) -> tuple[float, ...]:
    """The thresholds a reading averages over: its own, or all ten."""
    return IOU_THRESHOLDS if reading.iou is None else (IOU_THRESHOLDS[threshold_index(reading.iou)],)


def thresholds_for(readings: Iterable[Precision | Recall]) -> tuple[float, ...]:
    """The IoU thresholds these readings need, ascending."""
    return tuple(sorted({t for reading in readings for t in thresholds_of(reading)}))


def precision_recall(tp: np.ndarray, fp: np.ndarray, n_gt: int) -> tuple[np.ndarray, np.ndarray]:
    """COCO's accumulation of one curve per threshold.

    ``tp`` and ``fp`` are (T, L) bool over the same detections in curve order (a detection that is
    neither, matched to an ignore region, may stay in: it changes nothing). Returns the precision at
    the 101 recall points, (T, 101), 0 past the last recall reached, and the final recall, (T,).

    COCO computes precision TP / (FP + TP + eps) at every detection, makes it non-increasing from the
    right, and reads it at the first detection whose recall reaches each point. Recall rises only at
    true positives, and precision never exceeds its value at the last true positive before, so the
    same numbers come from the true positives alone: the k-th one has precision k / (FP before it +
    k + eps), computed with COCO's operations in COCO's order.
    """
    n_thresholds, length = tp.shape
    precision = np.zeros((n_thresholds, len(RECALL_POINTS)))
    recall = np.zeros(n_thresholds)
    fp_before = np.cumsum(fp, axis=1)
    for t in range(n_thresholds):
        found = np.flatnonzero(tp[t])
        if not len(found):
            continue
        count = np.arange(1, len(found) + 1, dtype=np.float64)
        at_tp = count / (fp_before[t, found].astype(np.float64) + count + np.spacing(1))
        envelope = np.maximum.accumulate(at_tp[::-1])[::-1]
        recall_at_tp = count / n_gt
        index = np.searchsorted(recall_at_tp, RECALL_POINTS, side="left")
        reached = index < len(found)
        precision[t, reached] = envelope[index[reached]]
        recall[t] = recall_at_tp[-1]
    return precision, recall


def summarize(
    readings: dict[str, Precision | Recall], thresholds: Sequence[float], precision: np.ndarray, recall: np.ndarray
) -> dict[str, float]:
    """Each metric (name -> its reading) from the accumulation at ``thresholds`` (rows of precision and
    recall), averaged as COCO's summary does (the same numpy means, so that the last bit agrees)."""
    row = {t: k for k, t in enumerate(thresholds)}
    values = {}
    for name, reading in readings.items():
        rows = [row[t] for t in thresholds_of(reading)]
        if isinstance(reading, Recall):
            values[name] = float(np.mean(recall[rows]))
        else:
            values[name] = float(np.mean(precision[rows].reshape(-1)))
    return values


# Pairs enumerated at a time, so that crowded images do not need one table of every pair.
PAIR_CHUNK = 1 << 20


def candidate_pairs(start: np.ndarray, count: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Every detection paired with each of its ``count`` candidates (positions ``start`` on in a sorted
    table of boxes): (detection, position) index arrays, ordered by detection, then position, in chunks
    of about PAIR_CHUNK pairs."""
    total = np.cumsum(count)
    first = 0
    while first < len(count):
        base = total[first - 1] if first else 0
        stop = max(int(np.searchsorted(total, base + PAIR_CHUNK, side="right")), first + 1)
        n = count[first:stop]
        yield (
            np.repeat(np.arange(first, stop), n),
            np.repeat(start[first:stop] - (np.cumsum(n) - n), n) + np.arange(int(n.sum())),
        )
        first = stop
