"""What a result file holds, what the leaderboard would do with it, and the normalised detections.

`inspect_result` reads any result format the evaluator reads, leniently: detections the evaluator
would stop on are left out or repaired and counted. It normalises the rest to what the leaderboard
scores correctly (sorted by image and descending score, at most 1,000 per image, positive sizes)
and lists findings (`kaist_kit.scoring.findings`, with a few of the submission's own). Each finding says
what is wrong, what it costs and what the leaderboard would do with the file as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kaist_kit.data.detections import COCO, FRAME_NAMES, Detections, ReadOptions, ResultFormat
from kaist_kit.data.groundtruth import GroundTruth, ground_truth_from_coco
from kaist_kit.data.results import load_detections
from kaist_kit.datasets import KAIST
from kaist_kit.errors import InputError
from kaist_kit.metrics.evaluate import Result, evaluate, in_evaluation_order
from kaist_kit.metrics.settings import KAIST_FRAME_SIZE, LEADERBOARD, LEADERBOARD_SETTINGS, SPLITS
from kaist_kit.scoring.findings import (
    CRASH,
    EMPTY_IMAGES,
    ERROR,
    IDS_REMAPPED,
    MANIFEST,
    MANIFEST_MISMATCH,
    MISSCORE,
    NO_GROUND_TRUTH,
    NOT_TEST_SET,
    NOTE,
    SIZE,
    UPLOAD_LIMIT_BYTES,
    WARNING,
    Finding,
    images_not_sorted,
    inspect,
    inspect_scores,
    ordered,
)

# KAIST test-all-20 (the spec's test split): the leaderboard knows its images by their position in
# name order, 0..2251.
TEST_IMAGES = KAIST.test_images
MAX_PER_IMAGE = LEADERBOARD.max_detections_per_image

__all__ = [
    "CRASH",
    "ERROR",
    "MANIFEST",
    "MANIFEST_MISMATCH",
    "MISSCORE",
    "NOTE",
    "SIZE",
    "UPLOAD_LIMIT_BYTES",
    "WARNING",
    "Finding",
    "Inspection",
    "inspect_result",
]


@dataclass
class Inspection:
    source: Path
    format: ResultFormat  # what the file was read as
    gt: GroundTruth | None
    read: Detections  # as read leniently, in file order (boxes converted when corners=True)
    packaged: Detections  # normalised: what the submission holds
    submission_ids: np.ndarray  # the leaderboard's id of every image of the reference ground truth
    counts: dict
    findings: list[Finding]
    results: list[Result] = field(default_factory=list)  # packaged, leaderboard protocol (needs gt)
    options: dict = field(default_factory=dict)

    @property
    def lowest_score(self) -> float | None:
        return float(self.packaged.scores.min()) if len(self.packaged) else None

    def lamr(self, setting: str = "reasonable") -> dict[str, float]:
        return {r.split: r.lamr for r in self.results if r.setting == setting}


def stand_in_ground_truth() -> GroundTruth:
    """The test images known by id alone: enough to read ids 0..2251 (1..2252 in txt) without labels."""
    width, height = KAIST_FRAME_SIZE
    return ground_truth_from_coco({"images": [{"id": i, "width": width, "height": height} for i in range(TEST_IMAGES)]})


def submission_ids(gt: GroundTruth) -> np.ndarray:
    """The leaderboard's id of each of ``gt``'s images: its position in test-all-20 name order.

    Another test set (a synthetic one, a validation split) keeps its own ids."""
    if gt.n_images != TEST_IMAGES:
        return gt.image_ids.copy()
    if all(gt.image_names):
        order = np.argsort(np.array(gt.image_names), kind="stable")
        ids = np.empty(TEST_IMAGES, np.int64)
        ids[order] = np.arange(TEST_IMAGES)
        return ids
    if np.array_equal(gt.image_ids, np.arange(TEST_IMAGES)):
        return gt.image_ids.copy()
    raise InputError(
        "the ground truth's images have neither frame names nor the ids 0..2251, so they "
        "cannot be mapped to the leaderboard's ids",
        gt.path,
    )


def normalise(dets: Detections) -> tuple[Detections, dict]:
    """Positive sizes only, sorted by image and descending score (ties keep file order), at most
    1,000 per image (the highest scores): the order and cap the leaderboard protocol scores by."""
    positive = (dets.boxes[:, 2] > 0) & (dets.boxes[:, 3] > 0)
    index = np.flatnonzero(positive)
    image = dets.image[index]
    # A result in that order already (as the leaderboard asks) keeps its order.
    in_order = in_evaluation_order(image, dets.scores[index])
    if not in_order:
        order = np.lexsort((-dets.scores[index], image))
        index, image = index[order], image[order]
    rank = np.arange(len(index)) - np.searchsorted(image, image, side="left")
    per_image = np.bincount(image, minlength=1)
    crowded = per_image > MAX_PER_IMAGE
    kept = index[rank < MAX_PER_IMAGE]
    counts = {
        "non_positive_size": int((~positive).sum()),
        "images_over_cap": int(crowded.sum()),
        "over_cap": int((per_image[crowded] - MAX_PER_IMAGE).sum()),
        "most_in_an_image": int(per_image.max()) if len(image) else 0,
    }
    if in_order and len(kept) == len(dets):  # every detection kept as it is: its arrays shared
        packaged = Detections(dets.image, dets.boxes, dets.scores, dets.source, COCO)
    else:
        packaged = Detections(dets.image[kept], dets.boxes[kept], dets.scores[kept], dets.source, COCO)
    return packaged, counts


def inspect_result(path: str | Path, gt: GroundTruth | None = None, options: ReadOptions | None = None) -> Inspection:
    """Read a result leniently (as ``options`` say), normalise it, and list what is wrong with it and
    what each costs."""
    path = Path(path)
    options = options or ReadOptions()
    reference = gt if gt is not None else stand_in_ground_truth()
    ids = submission_ids(gt) if gt is not None else np.arange(TEST_IMAGES)
    dets = load_detections(path, reference, options, on_invalid="drop")
    if gt is None and dets.format.image_ids == FRAME_NAMES:
        raise InputError(
            "per-image files are matched to images by frame name, which needs the ground "
            "truth: pass --gt FILE (or set KAIST_KIT_GT)",
            path,
        )
    packaged, normalised = normalise(dets)
    dropped = dets.dropped
    counts = {
        "in_source": len(dets) + dropped.total,
        "non_finite": dropped.non_finite,
        "negative_size": dropped.negative_size,
        "unknown_image_id": dropped.unknown_image,
        "other_label": sum(dropped.other_labels.values()),
        "non_positive_size": normalised["non_positive_size"],
        "over_1000_per_image": normalised["over_cap"],
        "category_rewritten": sum(dropped.recategorised.values()),
        "images_not_sorted": len(images_not_sorted(dets)),
        "packaged": len(packaged),
        "images": len(ids),
        "images_with_detections": int(len(np.unique(packaged.image))),
    }
    # Without labels, what a setting or a split holds is unknown: no finding of theirs.
    findings = inspect(dets, reference, LEADERBOARD_SETTINGS if gt is not None else (), SPLITS, ["leaderboard"])
    inspection = Inspection(
        path,
        dets.format,
        gt,
        dets,
        packaged,
        ids,
        counts,
        findings,
        options={"id_offset": options.id_offset, "corners": options.corners, "devkit_shift": options.devkit_shift},
    )
    if gt is not None and len(packaged):
        inspection.results = score_leaderboard(gt, packaged)
    findings += inspect_scores(inspection.results, packaged)
    if gt is None:
        findings += _without_gt_findings(inspection)
    elif gt.n_images != TEST_IMAGES:
        findings.append(
            Finding(
                NOT_TEST_SET,
                f"the ground truth has {gt.n_images} images, not the {TEST_IMAGES} of the leaderboard's test-all-20",
            )
        )
    elif not np.array_equal(ids, gt.image_ids):
        findings.append(Finding(IDS_REMAPPED, "this ground truth's image ids are not the leaderboard's"))
    findings[:] = ordered(findings)
    return inspection


def score_leaderboard(gt: GroundTruth, dets: Detections, settings=LEADERBOARD_SETTINGS) -> list[Result]:
    """Results under the leaderboard protocol."""
    return evaluate(gt, dets, settings, protocols=["leaderboard"])


def _without_gt_findings(inspection: Inspection) -> list[Finding]:
    found = []
    empty = TEST_IMAGES - inspection.counts["images_with_detections"]
    if empty and len(inspection.packaged):
        found.append(Finding(EMPTY_IMAGES, f"{empty} of the {TEST_IMAGES} images have no detection"))
    found.append(Finding(NO_GROUND_TRUTH, "no ground truth"))
    return found
