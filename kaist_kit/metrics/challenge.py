"""The 2024 KAIST RGB-T pedestrian challenge on EvalAI: every number its evaluator computes, by the kit.

That evaluator (soonminh/EvalAI-Starters, commit b2cb37d) is the leaderboard's with three changes
(docs/evaluation.md): it scores category 0 only; it matches at ten IoU thresholds (0.50:0.05:0.95);
and it adds COCO's AP and AR on reasonable / all. Its leaderboard shows six columns; it also
computes the LAMR at IoU 0.6 and 0.75. Its column "AP_iou50:95" is COCO's average recall, not an
average precision.
"""

from __future__ import annotations

import math

from ..data.detections import Detections
from ..data.groundtruth import GroundTruth
from ..data.writers import CHALLENGE2024_CATEGORY
from .evaluate import Evaluation
from .settings import LEADERBOARD, SPLITS
from .spec import AP50, AP75, AR, LAMR

SETTING = "reasonable"
MR_IOUS = (0.5, 0.6, 0.75)

# Its leaderboard's columns: (kit metric, IoU threshold of the LAMR, split), reasonable setting,
# leaderboard protocol. MR columns are shown in percent, AP columns as fractions.
CHALLENGE2024_COLUMNS: dict[str, tuple[str, float, str]] = {
    "MR_-2_iou50_all": (LAMR.name, 0.5, "all"),
    "MR_-2_iou50_day": (LAMR.name, 0.5, "day"),
    "MR_-2_iou50_night": (LAMR.name, 0.5, "night"),
    "AP_iou50": (AP50.name, 0.5, "all"),
    "AP_iou75": (AP75.name, 0.5, "all"),
    "AP_iou50:95": (AR.name, 0.5, "all"),  # COCO's average recall, despite the name
}
# The names `challenge2024_scores` gives its numbers (those of data/kaist/results/reference-challenge2024.json).
AP_KEYS = {AP50.name: "AP_iou50", AP75.name: "AP_iou75", AR.name: "AP_iou50:95"}
SCORE_KEYS = tuple(AP_KEYS.values()) + tuple(f"MR_iou{round(100 * iou)}_{split}" for iou in MR_IOUS for split in SPLITS)
# What it gives where nothing matches: a file whose detections are not category 0 (and every .txt
# file, which it reads as category 1) scores this in every column (-100 where shown in percent).
NO_MATCH = -1.0


def challenge2024_scores(
    gt: GroundTruth, dets: Detections, category_id: float = CHALLENGE2024_CATEGORY
) -> dict[str, float]:
    """Every number the 2024 evaluator computes for these detections, as fractions: ``AP_iou50``,
    ``AP_iou75`` and ``AP_iou50:95`` (COCO's average recall) on reasonable / all, and
    ``MR_iou{50,60,75}_{all,day,night}``.

    ``category_id`` is the category the uploaded file gives its detections; that evaluator reads a
    .txt file as category 1. Any category but 0 matches nothing there, and every number is -1; so is
    a number with no pedestrian to count. As for the leaderboard, an unsorted file or one with more
    than 1,000 detections in an image is scored as `kaist-kit submit` packages it (the evaluator
    itself mis-scores or crashes).
    """
    if category_id != CHALLENGE2024_CATEGORY:
        return dict.fromkeys(SCORE_KEYS, NO_MATCH)
    evaluation = Evaluation(gt, dets, [SETTING])
    values = evaluation.metric_values(AP_KEYS, SETTING, "all", LEADERBOARD)
    scores = {key: _or_no_match(values[metric]) for metric, key in AP_KEYS.items()}
    for iou in MR_IOUS:
        for split in SPLITS:
            result = evaluation.score(SETTING, split, LEADERBOARD, iou=iou)
            scores[f"MR_iou{round(100 * iou)}_{split}"] = result.lamr if result.n_gt else NO_MATCH
    return scores


def challenge2024_leaderboard(scores: dict[str, float]) -> dict[str, float]:
    """The six columns of the challenge's leaderboard from `challenge2024_scores`, in its units
    (MR in percent, so -1 shows as -100; AP and AR as fractions)."""
    columns = {}
    for column, (metric, iou, split) in CHALLENGE2024_COLUMNS.items():
        if metric == LAMR.name:
            columns[column] = 100 * scores[f"MR_iou{round(100 * iou)}_{split}"]
        else:
            columns[column] = scores[AP_KEYS[metric]]
    return columns


def _or_no_match(value: float) -> float:
    return NO_MATCH if math.isnan(value) else value
