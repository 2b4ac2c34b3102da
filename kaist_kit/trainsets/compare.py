"""What differs between two training sets (`kaist-kit trainset --compare A.json B.json`): the frames only
in one, and on the frames of both, the boxes that are the same, moved, relabelled, or only in one.

Two papers that "train on KAIST" often train on different frames with different boxes; this says how
different, which answers most of "why does my number differ from the paper's".
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..data.groundtruth import GroundTruth
from ..datasets.kaist_truth import load_ground_truth
from ..errors import InputError

MOVED_IOU = 0.5  # a box of A and one of B that overlap this much are the same object, moved


@dataclass
class SetComparison:
    a: str
    b: str
    only_a: list[str]  # frames, in A's order
    only_b: list[str]
    both: int
    same_frames: int  # shared frames whose boxes are identical
    boxes: Counter = field(default_factory=Counter)  # on shared frames: same, moved, relabelled, only_a, only_b
    pedestrians_a: int = 0  # on shared frames
    pedestrians_b: int = 0
    examples: list[str] = field(default_factory=list)  # shared frames whose boxes differ, first few


def _frames(gt: GroundTruth, path) -> dict[str, int]:
    if not all(gt.image_names):
        raise InputError("some images have no KAIST frame name (im_name setXX/VYYY/IZZZZZ) to compare by", path)
    return {name: k for k, name in enumerate(gt.image_names)}


def _objects(gt: GroundTruth, index: int) -> list[tuple[bool, tuple[float, ...]]]:
    """(is a pedestrian, box) of an image's annotations."""
    start, stop = gt.ann_start[index], gt.ann_start[index + 1]
    return [(not bool(gt.ignore[k]), tuple(float(v) for v in gt.boxes[k])) for k in range(start, stop)]


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / (aw * ah + bw * bh - inter)


def compare_objects(a: list, b: list, counts: Counter) -> bool:
    """Count how the objects of one frame differ; True when they are the same."""
    rest_b = Counter(b)
    rest_a = []
    for obj in a:
        if rest_b[obj]:
            rest_b[obj] -= 1
            counts["same"] += 1
        else:
            rest_a.append(obj)
    rest_b = list(rest_b.elements())
    if not rest_a and not rest_b:
        return True
    pairs = sorted(((_iou(x[1], y[1]), i, j) for i, x in enumerate(rest_a) for j, y in enumerate(rest_b)), reverse=True)
    used_a, used_b = set(), set()
    for iou, i, j in pairs:
        if iou < MOVED_IOU:
            break
        if i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        counts["relabelled" if rest_a[i][0] != rest_b[j][0] else "moved"] += 1
    counts["only_a"] += len(rest_a) - len(used_a)
    counts["only_b"] += len(rest_b) - len(used_b)
    return False


def compare_sets(a_path: str | os.PathLike, b_path: str | os.PathLike, examples: int = 5) -> SetComparison:
    """Compare two annotation files (the kit's COCO, or the leaderboard's) frame by frame."""
    a, b = load_ground_truth(a_path), load_ground_truth(b_path)
    frames_a, frames_b = _frames(a, a_path), _frames(b, b_path)
    only_a = [name for name in frames_a if name not in frames_b]
    only_b = [name for name in frames_b if name not in frames_a]
    found = SetComparison(str(a_path), str(b_path), only_a, only_b, 0, 0)
    for name, index in frames_a.items():
        other = frames_b.get(name)
        if other is None:
            continue
        found.both += 1
        objects_a, objects_b = _objects(a, index), _objects(b, other)
        found.pedestrians_a += sum(p for p, _ in objects_a)
        found.pedestrians_b += sum(p for p, _ in objects_b)
        if compare_objects(objects_a, objects_b, found.boxes):
            found.same_frames += 1
        elif len(found.examples) < examples:
            found.examples.append(name)
    return found


def pedestrian_counts(gt: GroundTruth) -> int:
    return int(np.count_nonzero(~gt.ignore))
