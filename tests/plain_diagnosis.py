"""Plain references for the diagnosis, written from docs/diagnosis.md without the kit's vectorisation.

- `plain_matches`: the evaluator's per-image matching, detection by detection.
- `plain_error_types`: loops over detections and pedestrians to type every false positive.
- `resampled_set`: a bootstrap resample built for real, every drawn image copied, so that the
  kit's own evaluator can score it and check the weighted-curve shortcut.
"""

import numpy as np
from plain_lamr import is_ignored, match_image, overlap, parameters, squarify

from kaist_kit.data.detections import Detections
from kaist_kit.data.groundtruth import GroundTruth


def centre(box):
    x, y, w, h = box
    return x + w / 2, y + h / 2


def intersects(d, g):
    iw = min(d[0] + d[2], g[0] + g[2]) - max(d[0], g[0])
    ih = min(d[1] + d[3], g[1] + g[3]) - max(d[1], g[1])
    return iw > 0 and ih > 0


def matching_box(a, image, setting):
    """The box a setting matches a detection with: squarified where the setting squarifies the boxes
    that count."""
    ratio = parameters(setting)[3]
    return a["bbox"] if ratio is None or is_ignored(a, image, setting) else squarify(a["bbox"], ratio)


def plain_matches(images, annotations, records, setting, threshold=0.5):
    """{record index: ('tp', 'fp' or 'ignored', ann_id of the box matched or None)}."""
    by_id = {img["id"]: img for img in images}
    out = {}
    for image_id, image in by_id.items():
        mine = [k for k, r in enumerate(records) if r["image_id"] == image_id]
        mine.sort(key=lambda k: -records[k]["score"])  # stable: ties keep file order
        gts = [
            (a["id"], matching_box(a, image, setting), is_ignored(a, image, setting))
            for a in annotations
            if a["image_id"] == image_id
        ]
        outcome = match_image([(records[k]["score"], records[k]["bbox"]) for k in mine], gts, threshold)
        for k, (_, kind, ann_id) in zip(mine, outcome):
            out[k] = (kind, ann_id)
    return out


def plain_error_types(images, annotations, records, setting, protocol, threshold=0.5):
    """{record index: (type, ann_id of its pedestrian or None)} for every false positive. A duplicate
    overlaps a pedestrian that counts by the matching's threshold, with the box the matching uses."""
    by_id = {img["id"]: img for img in images}
    out = {}
    for k, (kind, ann_id) in plain_matches(images, annotations, records, setting, threshold).items():
        leaderboard_zero = protocol == "leaderboard" and kind == "tp" and ann_id == 0
        if kind != "fp" and not leaderboard_zero:
            continue
        image = by_id[records[k]["image_id"]]
        anns = [a for a in annotations if a["image_id"] == image["id"]]
        d = records[k]["bbox"]
        found = None
        for name in ("duplicate", "scale", "localization"):
            best, best_id = -1.0, None
            for a in anns:
                if a["ignore"]:
                    continue
                iou = overlap(d, a["bbox"], False) if intersects(d, a["bbox"]) else 0.0
                if name == "duplicate":
                    box = matching_box(a, image, setting)
                    fits = overlap(d, box, False) >= threshold and not is_ignored(a, image, setting)
                elif not intersects(d, a["bbox"]):
                    continue
                elif name == "scale":
                    (dx, dy), (gx, gy) = centre(d), centre(a["bbox"])
                    fits = abs(dx - gx) <= 0.2 * a["bbox"][2] and abs(dy - gy) <= 0.2 * a["bbox"][3]
                else:
                    fits = iou >= 0.25
                if fits and iou > best:
                    best, best_id = iou, a["id"]
            if best_id is not None:
                found = (name, best_id)
                break
        out[k] = found or ("ghost", None)
    return out


def resampled_set(gt, dets, counts):
    """Ground truth and detections of a resample: image i copied counts[i] times, copies adjacent."""
    source = np.repeat(np.arange(gt.n_images), counts)
    anns = [np.arange(gt.ann_start[i], gt.ann_start[i + 1]) for i in source]
    ann_src = np.concatenate(anns) if anns else np.zeros(0, np.int64)
    new_gt = GroundTruth(
        image_ids=np.arange(len(source)),
        image_names=[gt.image_names[i] for i in source],
        image_scenes=[gt.image_scenes[i] for i in source],
        image_sizes=gt.image_sizes[source],
        classes=gt.classes,
        ann_image=np.repeat(np.arange(len(source)), [len(a) for a in anns]),
        ann_class=gt.ann_class[ann_src],
        ann_ids=gt.ann_ids[ann_src],
        boxes=gt.boxes[ann_src],
        heights=gt.heights[ann_src],
        occlusion=gt.occlusion[ann_src],
        areas=gt.areas[ann_src],
        iscrowd=gt.iscrowd[ann_src],
        ignore=gt.ignore[ann_src],
        labels=[gt.labels[k] for k in ann_src],
    )
    by_image = np.argsort(dets.image, kind="stable")
    start = np.searchsorted(dets.image[by_image], np.arange(gt.n_images + 1))
    chosen = [by_image[start[i] : start[i + 1]] for i in source]
    det_src = np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
    det_image = np.repeat(np.arange(len(source)), [len(c) for c in chosen])
    return new_gt, Detections(det_image, dets.boxes[det_src], dets.scores[det_src])
