"""What a result holds that the evaluators would mishandle, or that is probably a mistake."""

from __future__ import annotations

import numpy as np

from .detections import Detections
from .errors import KitWarning, quantity, warn
from .evaluate import Evaluation
from .groundtruth import GroundTruth
from .settings import LEADERBOARD


class IdBaseWarning(KitWarning):
    """The image ids look written with the other base (1-based where 0-based is read, or the reverse)."""


def _check_id_base(dets: Detections, gt: GroundTruth, where: str, one_based: bool) -> None:
    """Warn when shifting every image id by one matches the ground truth far better."""
    if len(dets) == 0 or gt.n_images < 2:
        return
    shift = 1 if not one_based else -1  # the direction the writer probably got wrong
    as_read = pedestrians_hit(dets.image, dets.boxes, gt)
    shifted_image = dets.image - shift
    ok = (shifted_image >= 0) & (shifted_image < gt.n_images)
    shifted = pedestrians_hit(shifted_image[ok], dets.boxes[ok], gt)
    if shifted >= 20 and shifted > 3 * max(as_read, 1):
        base, other = ("0-based", "1-based") if not one_based else ("1-based", "0-based")
        warn(f"image ids look {other}: shifted by {-shift:+d} the detections overlap {shifted} "
             f"pedestrians instead of {as_read}; this format is read as {base}, so the score will be "
             f"near 100% miss rate (the leaderboard reads them the same way)", where,
             category=IdBaseWarning)


def pedestrians_hit(image: np.ndarray, boxes: np.ndarray, gt: GroundTruth) -> int:
    """How many detections overlap a pedestrian of their image at IoU >= 0.5 (a plausibility test)."""
    from .matching import overlaps_by_image

    pairs = overlaps_by_image(image, boxes, gt, min_overlap=0.5)
    person = ~gt.ignore[pairs.gt]
    return int(np.unique(pairs.det[person & (pairs.iou >= 0.5)]).size)


def images_not_sorted(dets: Detections) -> np.ndarray:
    """Indices of the images whose detections, in file order, do not descend in score.

    The leaderboard's evaluator scores such a file wrongly.
    """
    file_order = np.argsort(dets.image, kind="stable")
    image, scores = dets.image[file_order], dets.scores[file_order]
    rising = (image[1:] == image[:-1]) & (scores[1:] > scores[:-1])
    return np.unique(image[1:][rising])


def warn_leaderboard_input(evaluation: Evaluation, dets: Detections) -> None:
    """Say what the leaderboard's own evaluator would do with input it cannot score correctly."""
    where = dets.source or None
    if len(dets) == 0:
        warn("no detections: scored as miss rate 1 everywhere; the leaderboard's evaluator crashes "
             "on an empty result", where)
        return
    unsorted = images_not_sorted(dets)
    if len(unsorted):
        warn(f"detections of {quantity(len(unsorted), 'image')} are not sorted by descending score; the leaderboard's "
             "evaluator scores such a file wrongly (a shuffled MBNet file gets 80.05 instead of 8.13); "
             "scored here as sorted, as `kaist-kit submit` packages it", where)
    cap = LEADERBOARD.max_detections_per_image
    crowded = evaluation.dets_per_image > cap
    if crowded.any():
        dropped = int((evaluation.dets_per_image[crowded] - cap).sum())
        warn(f"{quantity(int(crowded.sum()), 'image')} with more than {cap} detections: the leaderboard's "
             f"evaluator crashes on them; scored here with the {cap} highest-scoring per image "
             f"({dropped} dropped), as `kaist-kit submit` packages it", where)
    gt = evaluation.gt
    without = evaluation.dets_per_image[gt.ann_image] == 0
    for row, setting in enumerate(evaluation.settings):
        lost = without & ~evaluation.ignored[row]
        if lost.any():
            warn(f"{quantity(len(np.unique(gt.ann_image[lost])), 'image')} without any detection: "
                 f"the leaderboard leaves the {quantity(int(lost.sum()), 'pedestrian')} in them (counted "
                 f"in {setting}) out of the miss rate, which lowers it; the devkit that most papers quote "
                 "counts them as misses (--protocol matlab)", where)
            break
