"""Evaluation settings and the two protocols (see docs/evaluation.md).

A setting decides which ground-truth boxes count; a protocol decides how the curve is read and
scored. Both are plain data so that every part of the kit (CLI, metric hook, diagnosis) agrees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

OCCLUSION_NAMES = {0: "none", 1: "partial", 2: "heavy"}

# Every KAIST frame, visible and lwir, is 640 x 512 (the often quoted 640 x 480 is wrong); files
# that do not say their size are read as this.
KAIST_FRAME_SIZE = (640, 512)

# A box closer than this to the image border is ignored in every setting. For a 640 x 512 KAIST
# frame these are the benchmark's bounds x >= 5, y >= 5, x + w <= 635, y + h <= 507.
BORDER_MARGIN = 5


@dataclass(frozen=True)
class Setting:
    name: str
    height: tuple[float, float]  # inclusive
    occlusions: frozenset[int]
    source: str  # where the setting comes from: "both", "leaderboard" or "matlab"
    description: str


SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting("reasonable", (55, math.inf), frozenset({0, 1}), "both",
                "height >= 55, no or partial occlusion"),
        Setting("reasonable-small", (50, 75), frozenset({0, 1}), "leaderboard",
                "height 50-75, no or partial occlusion"),
        Setting("reasonable-heavy", (50, math.inf), frozenset({2}), "leaderboard",
                "height >= 50, heavy occlusion"),
        Setting("all-pedestrians", (20, math.inf), frozenset({0, 1, 2}), "leaderboard",
                "height >= 20, any occlusion"),
        Setting("near", (115, math.inf), frozenset({0}), "matlab", "height >= 115, no occlusion"),
        Setting("medium", (45, 115), frozenset({0}), "matlab", "height 45-115, no occlusion"),
        Setting("far", (1, 45), frozenset({0}), "matlab", "height 1-45, no occlusion"),
        Setting("occ-none", (1, math.inf), frozenset({0}), "matlab", "height >= 1, no occlusion"),
        Setting("occ-partial", (1, math.inf), frozenset({1}), "matlab",
                "height >= 1, partial occlusion"),
        Setting("occ-heavy", (1, math.inf), frozenset({2}), "matlab",
                "height >= 1, heavy occlusion"),
    )
}

LEADERBOARD_SETTINGS = ("reasonable", "reasonable-small", "reasonable-heavy", "all-pedestrians")
MATLAB_SETTINGS = ("reasonable", "near", "medium", "far", "occ-none", "occ-partial", "occ-heavy")


@dataclass(frozen=True)
class Protocol:
    name: str
    fppi_refs: tuple[float, ...]
    # What a reference FPPI below the first point of the curve reads: the leaderboard indexes the
    # recall array with -1 and so reads its last point; the devkit reads recall 0.
    below_first_reads_last: bool
    # The devkit floors miss rates before the logarithm; the leaderboard lets a miss rate of 0
    # make the geometric mean exactly 0.
    miss_rate_floor: float
    # The leaderboard returns no per-image record for an image without detections, so the
    # pedestrians in it leave the recall denominator.
    skips_images_without_detections: bool
    # The leaderboard stores the matched ground truth's id as the match flag, so a match to the
    # annotation with id 0 reads as "no match".
    id_zero_is_unmatched: bool
    max_detections_per_image: int | None
    description: str


LEADERBOARD = Protocol(
    name="leaderboard",
    fppi_refs=(0.0100, 0.0178, 0.0316, 0.0562, 0.1000, 0.1778, 0.3162, 0.5623, 1.0000),
    below_first_reads_last=True,
    miss_rate_floor=0.0,
    skips_images_without_detections=True,
    id_zero_is_unmatched=True,
    max_detections_per_image=1000,
    description="the public KAIST leaderboard's evaluator",
)

MATLAB = Protocol(
    name="matlab",
    fppi_refs=tuple(10.0 ** (-2 + k / 4) for k in range(9)),
    below_first_reads_last=False,
    miss_rate_floor=1e-10,
    skips_images_without_detections=False,
    id_zero_is_unmatched=False,
    max_detections_per_image=None,
    description="the KAIST MATLAB devkit (kaist_eval_full.m with bbGt.m), as most papers report",
)

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (LEADERBOARD, MATLAB)}

SPLITS = ("all", "day", "night")


def get_setting(name: str) -> Setting:
    try:
        return SETTINGS[name]
    except KeyError:
        raise ValueError(f"unknown setting {name!r}; choose from {', '.join(SETTINGS)}") from None


def get_protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ValueError(f"unknown protocol {name!r}; choose from {', '.join(PROTOCOLS)}") from None
