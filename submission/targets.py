"""Where an entry is uploaded: the public KAIST leaderboard, or the 2024 KAIST RGB-T challenge.

Both evaluators read the one uploaded file by its extension, `.json` (COCO result JSON) or `.txt`,
and raise an exception on anything else, a zip included. They differ in the category a pedestrian
has: the leaderboard's ground truth gives it 1, the 2024 challenge's 0, and each evaluator scores
its own category alone, so a file made for one scores nothing (or crashes) on the other
(docs/submission.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from kaist_kit.data.detections import Detections, ResultFormat
from kaist_kit.data.groundtruth import GroundTruth
from kaist_kit.data.writers import CHALLENGE2024_CATEGORY, PERSON_CATEGORY
from kaist_kit.metrics.challenge import CHALLENGE2024_COLUMNS, challenge2024_leaderboard, challenge2024_scores

UPLOAD_SUFFIX = ".json"  # what `kaist-kit submit` writes unless asked for the leaderboard's txt
TXT_SUFFIX = ".txt"


@dataclass(frozen=True)
class Target:
    name: str
    category_id: int  # what every detection of the uploaded file must say
    description: str
    evaluator: str  # what scores an upload there

    def self_evaluation(self, gt: GroundTruth, packaged: Detections) -> dict | None:
        """What this target's evaluator gives the packaged detections (None: the leaderboard's
        numbers, which the packager computes anyway, are the evaluation)."""
        if self.name != CHALLENGE2024.name:
            return None
        scores = challenge2024_scores(gt, packaged)
        return {
            "scores": scores,
            "columns": challenge2024_leaderboard(scores),
            "columns_are": "the leaderboard's six columns in its units: MR_-2 in percent (lower is better), "
            "AP_iou50 and AP_iou75 as fractions, AP_iou50:95 is COCO's average recall",
        }


LEADERBOARD = Target(
    "leaderboard",
    PERSON_CATEGORY,
    "the public KAIST multispectral pedestrian leaderboard",
    "the leaderboard's evaluator: log-average miss rate, reasonable all / day / night",
)
CHALLENGE2024 = Target(
    "challenge2024",
    CHALLENGE2024_CATEGORY,
    "the 2024 KAIST RGB-T pedestrian challenge (EvalAI)",
    "the 2024 challenge's evaluator: the leaderboard's with category 0, IoU 0.50 to 0.95, AP and AR "
    f"({', '.join(CHALLENGE2024_COLUMNS)})",
)
TARGETS = {t.name: t for t in (LEADERBOARD, CHALLENGE2024)}


def get_target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise ValueError(f"unknown target {name!r}; choose from {', '.join(TARGETS)}") from None


def target_of_file(fmt: ResultFormat, challenge_category: bool) -> Target | None:
    """The target a result file is written for as it is: a file whose detections carry their category
    (COCO JSON), every one the 2024 challenge's (0), is that challenge's; any other file the
    evaluators read the leaderboard's (the 2024 evaluator reads a txt file as category 1); a format
    neither evaluator reads (per-image files) neither's."""
    if not fmt.uploadable:
        return None
    return CHALLENGE2024 if fmt.carries_category and challenge_category else LEADERBOARD


def on_the_other(target: Target) -> str:
    """What the other evaluator makes of a file written for ``target``."""
    if target is LEADERBOARD:
        return (
            "the 2024 challenge's evaluator scores category 0 alone, so it would give this file -1 in every "
            "AP column and -100 in every MR column; for it, package with `kaist-kit submit --target "
            "challenge2024` (category 0, as JSON)"
        )
    return (
        "the leaderboard's evaluator crashes on any category other than person (1); for it, package with "
        "`kaist-kit submit --target leaderboard` (category 1)"
    )
