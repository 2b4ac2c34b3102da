"""Simulated detectors: detections made from the ground truth with chosen misses, jitter and false
positives, so that the kit can be shown and tested end to end without a trained model, on any benchmark
(`kaist-kit simulate` writes them as a result file)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..data.detections import COCO, Detections
from ..data.groundtruth import GroundTruth
from ..io.write import write_json_atomic


@dataclass(frozen=True)
class SimulatedMethod:
    name: str
    recall: dict[str, float]  # chance to find a clearly visible pedestrian, by period
    false_positives: dict[str, float]  # per image, by period
    jitter: float = 0.06  # box noise, as a fraction of the box size


# Three detectors with the strengths the benchmark is about: colour fails at night, thermal is
# weaker by day, fusion is good at both.
DEMO_METHODS = (
    SimulatedMethod("sim-fusion", {"day": 0.95, "night": 0.94}, {"day": 0.25, "night": 0.25}),
    SimulatedMethod("sim-visible", {"day": 0.92, "night": 0.5}, {"day": 0.35, "night": 0.9}),
    SimulatedMethod("sim-thermal", {"day": 0.8, "night": 0.93}, {"day": 0.7, "night": 0.35}),
)
METHODS = {method.name: method for method in DEMO_METHODS}


def simulate(gt: GroundTruth, method: SimulatedMethod, seed: int = 0) -> Detections:
    """A simulated detector's detections on ``gt``'s images, by image and best first, as a detector
    writes them; boxes to two decimals and scores to five, as a result file would hold them. Each found
    box keeps its class; a false positive of a ground truth of several classes takes one at random."""
    rng = np.random.default_rng([seed, sum(map(ord, method.name))])
    class_ids = [info.id for info in gt.classes] or [1]
    records: list[tuple[int, list[float], float, int]] = []
    for image in range(gt.n_images):
        period = gt.image_periods[image] or "day"
        width, height = gt.image_sizes[image]
        for k in range(gt.ann_start[image], gt.ann_start[image + 1]):
            x, y, w, h = gt.boxes[k]
            # Small and occluded pedestrians are harder; ignore regions are sometimes hit too.
            chance = method.recall[period] / (1 + np.exp(-(h - 28) / 6)) * (1 - 0.25 * gt.occlusion[k])
            if gt.ignore[k]:
                chance *= 0.5
            if rng.random() >= chance:
                continue
            noise = rng.normal(0, method.jitter, 4) * [w, h, w, h]
            box = [x + noise[0], y + noise[1], max(2.0, w + noise[2]), max(4.0, h + noise[3])]
            score = float(rng.beta(6, 1.6))
            found = class_ids[gt.ann_class[k]]
            records.append((image, box, score, found))
            if rng.random() < 0.05:  # a duplicate, a little off
                shifted = [box[0] + 0.3 * w, box[1], box[2], box[3]]
                records.append((image, shifted, score * rng.uniform(0.3, 0.8), found))
        if not (np.isfinite(width) and np.isfinite(height)):
            continue  # a ground truth without this image's size: no false positive can be placed in it
        for _ in range(rng.poisson(method.false_positives[period])):
            h = float(np.clip(rng.lognormal(np.log(50), 0.4), 12, height * 0.8))
            w = h * rng.uniform(0.35, 0.5)
            box = [rng.uniform(0, width - w), rng.uniform(0.2 * height, max(0.2 * height, height - h)), w, h]
            score = float(rng.beta(1.6, 4))
            # A ground truth of one class (KAIST's) draws no class: its detections stay as they were.
            category = class_ids[int(rng.integers(len(class_ids)))] if len(class_ids) > 1 else class_ids[0]
            records.append((image, box, score, category))
    if not records:
        return Detections.empty(method.name, COCO)
    image = np.array([r[0] for r in records], np.int64)
    # Python's round (correctly rounded decimals), as a writer printing two and five decimals would.
    boxes = np.array([[round(float(v), 2) for v in box] for _, box, _, _ in records], np.float64)
    scores = np.array([round(score, 5) for _, _, score, _ in records], np.float64)
    category = np.array([r[3] for r in records], np.int64)
    order = np.lexsort((-scores, image))  # stable: equal scores keep the order they were made in
    return Detections(image[order], boxes[order], scores[order], method.name, COCO, category=category[order])


def write_simulated(gt: GroundTruth, method: SimulatedMethod, out: str | os.PathLike, seed: int = 0) -> Detections:
    """``method``'s simulated detections on ``gt``'s images (`simulate`), written to ``out`` as a detector's
    COCO result JSON: the ground truth's image ids as it writes them (integers or strings) and its class
    ids. Returns the detections."""
    found = simulate(gt, method, seed)
    ids = gt.image_ids[found.image].tolist()
    write_json_atomic(
        out,
        [
            {"image_id": i, "category_id": c, "bbox": b, "score": s}
            for i, c, b, s in zip(ids, found.category.tolist(), found.boxes.tolist(), found.scores.tolist())
        ],
    )
    return found
