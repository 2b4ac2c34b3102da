"""Kinds of pedestrian: bins of the ground truth by height, occlusion, period and position, and the
misses counted in each (docs/diagnosis.md, "Missed pedestrians")."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..data.groundtruth import GroundTruth
from ..metrics.matching import in_border_margin

# Heights: near / medium / far as the devkit's settings (made a partition), and finer bins.
HEIGHT_BINS = (("far", 0.0, 45.0), ("medium", 45.0, 115.0), ("near", 115.0, math.inf))
FINE_HEIGHT_EDGES = (0.0, 30.0, 45.0, 55.0, 75.0, 115.0, 160.0, math.inf)
OCCLUSIONS = ("none", "partial", "heavy")
POSITIONS = ("inside", "border margin", "truncated")


def _fine_bins() -> tuple[tuple[str, float, float], ...]:
    bins = []
    for lo, hi in zip(FINE_HEIGHT_EDGES[:-1], FINE_HEIGHT_EDGES[1:]):
        name = f"<{hi:g}" if lo == 0 else (f">={lo:g}" if math.isinf(hi) else f"{lo:g}-{hi:g}")
        bins.append((name, lo, hi))
    return tuple(bins)


FINE_HEIGHT_BINS = _fine_bins()


@dataclass
class Categories:
    """Bins of the ground truth by height, occlusion, period and position in the frame."""

    families: dict[str, tuple[tuple[str, ...], np.ndarray]]  # family -> (bin names, bin of each box)

    @classmethod
    def of(cls, gt: GroundTruth) -> Categories:
        heights = gt.heights
        families = {
            "height": _bin_heights(heights, HEIGHT_BINS),
            "height (fine)": _bin_heights(heights, FINE_HEIGHT_BINS),
            "occlusion": (OCCLUSIONS, gt.occlusion.astype(np.int64)),
        }
        periods = np.array(gt.image_periods)[gt.ann_image] if len(gt.ann_image) else np.zeros(0, str)
        families["period"] = (("day", "night"), np.where(periods == "day", 0, np.where(periods == "night", 1, -1)))
        families["position"] = (POSITIONS, _positions(gt))
        return cls(families)

    def mask(self, family: str, name: str) -> np.ndarray:
        names, index = self.families[family]
        return index == names.index(name)


def _bin_heights(heights: np.ndarray, bins) -> tuple[tuple[str, ...], np.ndarray]:
    index = np.full(len(heights), -1, np.int64)
    for k, (_, lo, hi) in enumerate(bins):
        index[(heights >= lo) & (heights < hi)] = k
    return tuple(name for name, _, _ in bins), index


def _positions(gt: GroundTruth) -> np.ndarray:
    """0 inside, 1 within the border margin every setting ignores, 2 touching or crossing the border."""
    x, y, w, h = gt.boxes.T
    width, height = gt.image_sizes[gt.ann_image].T
    truncated = (x <= 0) | (y <= 0) | (x + w >= width) | (y + h >= height)
    return np.where(truncated, 2, np.where(in_border_margin(gt), 1, 0))


@dataclass
class MissCount:
    pedestrians: int
    missed_at_operating_point: int
    missed_at_end: int  # with every detection of the curve

    @property
    def miss_rate_at_operating_point(self) -> float:
        return self.missed_at_operating_point / self.pedestrians if self.pedestrians else float("nan")

    def to_dict(self) -> dict:
        return {
            "pedestrians": self.pedestrians,
            "missed_at_operating_point": self.missed_at_operating_point,
            "missed_at_end": self.missed_at_end,
        }


def miss_counts(
    categories: Categories, population: np.ndarray, missed_at_operating_point: np.ndarray, missed_at_end: np.ndarray
) -> dict[str, dict[str, MissCount]]:
    """Pedestrians and misses per bin of every family, over a population of boxes (bool masks)."""
    out = {}
    for family, (names, index) in categories.families.items():
        out[family] = {}
        for k, name in enumerate(names):
            members = population & (index == k)
            out[family][name] = MissCount(
                int(members.sum()),
                int((members & missed_at_operating_point).sum()),
                int((members & missed_at_end).sum()),
            )
    return out
