"""Image-level bootstrap of the log-average miss rate, vectorised over resamples.

A resample draws the split's images with replacement, as many as the split has. An image drawn k
times contributes k copies of its detections and pedestrians, so a resample is fully described by
a counts matrix (resamples x images) and needs no new matching: the curve of a resample is the
base curve (the split's scored detections in their fixed global score order) with every detection
weighted by its image's count, and the pedestrians that count are weighted the same way. Copies of
a detection stay together where the detection stood, so ties between equal scores keep the base
order. The number of images is the number drawn, which is the split's size.

Reading a curve at a reference FPPI needs only the recall at the last detection whose FPPI does not
exceed it. FPPI is FP / n_images with n_images fixed, so that detection is the one just before the
first false positive that takes the weighted FP count beyond the largest count m with
m / n_images <= reference (the same for every resample); when the copies of one false positive
cross m, the curve is read at one of them, where the recall is that before the false positive. The
protocols' reading rules (the leaderboard's "below the first point reads the last recall", the
devkit's miss-rate floor) and the leaderboard's denominator (pedestrians of images without
detections left out) carry over. tests/test_diagnosis.py checks every rule against resampled test
sets built for real and scored by the evaluator.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .evaluate import CurveTerms, Evaluation
from .settings import Protocol

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
LEVEL = 0.95


@dataclass(frozen=True)
class Resampling:
    """How intervals and paired tests resample the images: how many times, from which seed, and the
    intervals' confidence level."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = LEVEL


RESAMPLING = Resampling()  # the defaults
# Resamples are processed in chunks so that a chunk's weighted curve stays near this many entries.
_CHUNK_ENTRIES = 4_000_000


def resample_counts(images: np.ndarray, resamples: int, seed: int, key: str) -> np.ndarray:
    """(resamples, all images) int32: how often each image of the mask ``images`` is drawn.

    The draw depends only on the seed, the key (the split's name) and the split's images, so every
    setting and every method compared on a split sees the same resampled images.
    """
    members = np.flatnonzero(images)
    n_all = len(images)
    rng = np.random.default_rng([seed, zlib.crc32(key.encode())])
    drawn = rng.integers(0, len(members), size=(resamples, len(members)))
    flat = (np.arange(resamples)[:, None] * n_all + members[drawn]).ravel()
    return np.bincount(flat, minlength=resamples * n_all).reshape(resamples, n_all).astype(np.int32)


def fp_limits(proto: Protocol, n_images: int) -> np.ndarray:
    """For each reference FPPI, the largest FP count m with m / n_images <= reference (float division,
    as the curve computes FPPI)."""
    limits = []
    for ref in proto.fppi_refs:
        m = int(np.floor(ref * n_images))
        while m >= 0 and m / n_images > ref:
            m -= 1
        while (m + 1) / n_images <= ref:
            m += 1
        limits.append(m)
    return np.array(limits, np.int64)


@dataclass
class WeightedCurve:
    """A base curve reduced to what resampling needs."""

    tp_image: np.ndarray  # image of each true positive, in curve order
    fp_image: np.ndarray  # image of each false positive, in curve order
    tp_before_fp: np.ndarray  # for each false positive, how many true positives precede it
    counted_per_image: np.ndarray  # (all images,) pedestrians in the recall denominator
    n_images: int

    @classmethod
    def of(cls, evaluation: Evaluation, terms: CurveTerms) -> WeightedCurve:
        image = evaluation.image[terms.sequence]
        positive = terms.positive
        tp_before = np.cumsum(positive)[~positive]
        counted = np.bincount(evaluation.gt.ann_image[terms.counted], minlength=evaluation.gt.n_images)
        return cls(image[positive], image[~positive], tp_before, counted, terms.n_images)


def bootstrap_lamrs(curve: WeightedCurve, counts: np.ndarray, proto: Protocol) -> np.ndarray:
    """(resamples,) the LAMR of each resample (a fraction), read under the protocol's rules."""
    n_resamples = counts.shape[0]
    n_gt = counts.astype(np.int64) @ curve.counted_per_image
    limits = fp_limits(proto, curve.n_images) if curve.n_images else np.zeros(len(proto.fppi_refs), np.int64)
    entries = len(curve.tp_image) + len(curve.fp_image)
    # A weighted count cannot exceed (images drawn) x (entries of one image); pick the narrow type when safe.
    dtype = np.int32 if curve.n_images * max(entries, 1) < 2**31 else np.int64
    chunk = max(1, _CHUNK_ENTRIES // max(entries, 1))
    recall_read = np.empty((n_resamples, len(limits)))
    for start in range(0, n_resamples, chunk):
        rows = slice(start, min(start + chunk, n_resamples))
        tp_read = _read_true_positives(curve, counts[rows], limits, dtype, proto)
        with np.errstate(divide="ignore", invalid="ignore"):
            recall_read[rows] = tp_read / n_gt[rows, None]
    miss = 1.0 - recall_read
    if proto.miss_rate_floor > 0:
        miss = np.maximum(proto.miss_rate_floor, miss)
    with np.errstate(divide="ignore"):
        lamrs = np.exp(np.mean(np.log(miss), axis=1))
    # As `score_curve`: when no pedestrian counts, the miss rate is 1.
    return np.where(n_gt > 0, lamrs, 1.0)


def _read_true_positives(
    curve: WeightedCurve, counts: np.ndarray, limits: np.ndarray, dtype, proto: Protocol
) -> np.ndarray:
    """(rows, references) the weighted TP count each reference reads, for a chunk of resamples."""
    rows = counts.shape[0]
    # Cumulative weighted counts with a leading 0: column j holds the total of the first j entries.
    tp_cum = _cumulative(counts, curve.tp_image, dtype)
    fp_cum = _cumulative(counts, curve.fp_image, dtype)
    n_fp = len(curve.fp_image)
    tp_total = tp_cum[:, -1].astype(np.int64)
    if n_fp == 0:
        return np.repeat(tp_total[:, None], len(limits), axis=1).astype(np.float64)

    # One searchsorted for all rows and references: rows are lifted apart so that the flat array is
    # sorted, and limits beyond a row's largest count are clipped so they cannot reach the next row.
    lift = int(fp_cum[:, -1].max()) + 1
    offsets = np.arange(rows, dtype=np.int64) * lift
    flat = (fp_cum[:, 1:] + offsets[:, None]).ravel()
    queries = offsets[:, None] + np.minimum(limits, lift - 1)[None, :]
    # first[r, k]: index of the first false positive that takes the count beyond the limit (n_fp: none).
    first = np.searchsorted(flat, queries.ravel(), side="right").reshape(rows, -1) - (np.arange(rows) * n_fp)[:, None]

    row = np.arange(rows)[:, None]
    beyond = first < n_fp
    tp_before = curve.tp_before_fp[np.minimum(first, n_fp - 1)]
    tp_read = np.where(beyond, tp_cum[row, tp_before], tp_total[:, None]).astype(np.int64)
    # The reference lies below the curve's first point when nothing drawn comes before that false
    # positive and even its first copy exceeds the limit (a limit of 0); with a limit of 1 or more the
    # curve is read at one of its copies, a point with recall 0.
    below_first = beyond & (tp_read == 0) & (fp_cum[row, first] == 0) & (limits == 0)[None, :]
    below_value = tp_total[:, None] if proto.below_first_reads_last else 0
    return np.where(below_first, below_value, tp_read).astype(np.float64)


def _cumulative(counts: np.ndarray, image: np.ndarray, dtype) -> np.ndarray:
    out = np.zeros((counts.shape[0], len(image) + 1), dtype)
    if len(image):
        np.cumsum(counts[:, image], axis=1, dtype=dtype, out=out[:, 1:])
    return out


def percentile_interval(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The percentile bootstrap interval: the (1 - level) / 2 and (1 + level) / 2 quantiles of the
    resampled values, with numpy's default linear interpolation between order statistics."""
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


@dataclass
class Resampled:
    """A LAMR's bootstrap: the LAMR of each resample, and their percentile interval."""

    lamrs: np.ndarray
    interval: tuple[float, float]


def bootstrap_intervals(
    evaluations: Sequence[Evaluation],
    settings: Sequence[str],
    splits: Sequence[str],
    proto: Protocol,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = LEVEL,
) -> list[dict[tuple[str, str], Resampled]]:
    """For each evaluation (of the same ground truth), the bootstrap of every setting on every split,
    by (setting, split). Every evaluation and setting of a split is resampled on the same images."""
    found: list[dict[tuple[str, str], Resampled]] = [{} for _ in evaluations]
    for split in splits:
        if not evaluations:
            break
        counts = resample_counts(evaluations[0].gt.split_mask(split), resamples, seed, split)
        for evaluation, out in zip(evaluations, found):
            for setting in settings:
                terms = evaluation.curve_terms(setting, split, proto)
                lamrs = bootstrap_lamrs(WeightedCurve.of(evaluation, terms), counts, proto)
                out[(setting, split)] = Resampled(lamrs, percentile_interval(lamrs, level))
    return found


@dataclass
class PairedTest:
    """Paired bootstrap test of the LAMR difference a - b on the same resampled images."""

    difference: float  # a - b on the full split (a fraction; negative: a misses less)
    low: float  # percentile interval of the resampled differences
    high: float
    p_value: float  # two-sided


def paired_test(
    point_a: float, point_b: float, lamrs_a: np.ndarray, lamrs_b: np.ndarray, level: float = LEVEL
) -> PairedTest:
    """Two-sided p-value from the resampled differences: the share of resamples in which the
    difference does not keep the observed sign (a tie counts against it), doubled, with one added to
    count and total so that it is never 0: p = min(1, 2 (1 + flips) / (1 + resamples))."""
    observed = point_a - point_b
    differences = lamrs_a - lamrs_b
    if observed < 0:
        flips = int(np.count_nonzero(differences >= 0))
    elif observed > 0:
        flips = int(np.count_nonzero(differences <= 0))
    else:
        flips = len(differences)
    p_value = min(1.0, 2 * (1 + flips) / (1 + len(differences)))
    low, high = percentile_interval(differences, level)
    return PairedTest(float(observed), low, high, p_value)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values, in the order given: the k-th smallest of m (k from 1) is
    multiplied by m - k + 1, capped at 1, and raised to the adjusted value before it where that is
    larger. Rejecting where the adjusted p is below a level keeps the chance of any false rejection
    among the m tests within that level."""
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, k in enumerate(sorted(range(m), key=lambda k: p_values[k])):
        running = max(running, min(1.0, (m - rank) * p_values[k]))
        adjusted[k] = running
    return adjusted
