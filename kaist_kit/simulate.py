"""Simulated detectors: detections made from the ground truth with chosen misses, jitter and false
positives, so that the kit can be shown and tested end to end without a trained model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .groundtruth import GroundTruth


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


def simulate(gt: GroundTruth, method: SimulatedMethod, seed: int = 0) -> list[dict]:
    """COCO result records of a simulated detector on ``gt``'s images."""
    rng = np.random.default_rng([seed, sum(map(ord, method.name))])
    records = []
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
            records.append(_record(gt, image, box, score))
            if rng.random() < 0.05:  # a duplicate, a little off
                shifted = [box[0] + 0.3 * w, box[1], box[2], box[3]]
                records.append(_record(gt, image, shifted, score * rng.uniform(0.3, 0.8)))
        for _ in range(rng.poisson(method.false_positives[period])):
            h = float(np.clip(rng.lognormal(np.log(50), 0.4), 12, height * 0.8))
            w = h * rng.uniform(0.35, 0.5)
            box = [rng.uniform(0, width - w), rng.uniform(0.2 * height, max(0.2 * height, height - h)), w, h]
            records.append(_record(gt, image, box, float(rng.beta(1.6, 4))))
    # As a detector writes them: by image, best first.
    records.sort(key=lambda r: (r["image_id"], -r["score"]))
    return records


def _record(gt: GroundTruth, image: int, box, score: float) -> dict:
    return {"image_id": int(gt.image_ids[image]), "category_id": 1,
            "bbox": [round(float(v), 2) for v in box], "score": round(score, 5)}
