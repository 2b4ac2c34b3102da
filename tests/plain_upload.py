"""A deliberately plain model of what the two evaluators do with an uploaded file, written rule by
rule from "What each evaluator accepts" (the shared evaluation semantics; docs/submission.md).

Straight-line Python on the file's bytes: its exceptions are the ones the scripts raise. It is the
reference `kaist_kit.submission.evaluators` is checked against, and knows nothing of it.
"""

import io
import json
import math
from collections import Counter

IMAGE_IDS = range(2252)


def plain_load(name, data, image_ids=IMAGE_IDS):
    """The detections a script holds once the file is loaded; raises what the script raises."""
    # 1. The loader is chosen by the end of the path string, case-sensitively.
    if name.endswith(".txt"):
        # 2. Text mode (universal newlines), every line, blank ones included, each field by float().
        anns = []
        for line in io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").readlines():
            fields = [float(f) for f in line.split(",")]
            anns.append(
                {
                    "image_id": fields[0] - 1,
                    "category_id": 1,
                    "bbox": [fields[1], fields[2], fields[3], fields[4]],
                    "score": fields[5],
                }
            )
    elif name.endswith(".json"):
        # 3. json.load, then COCO's loadRes.
        anns = json.load(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    else:
        raise Exception(f"[Error] Exception extension : {name.split('.')[-1]} \n")
    assert type(anns) == list, "results in not an array of objects"  # noqa: E721 (the script's test)
    written = [ann["image_id"] for ann in anns]
    assert set(written) == set(written) & set(image_ids), "Results do not correspond to current coco set"
    first = anns[0]
    if "bbox" in first and not first["bbox"] == []:
        for ann in anns:
            box = ann["bbox"]
            box[0] + box[2], box[1] + box[3], box[2] * box[3]
        for ann in anns:  # createIndex, with the ground truth's categories: by category
            {ann["category_id"]: ann}
    else:  # createIndex: by the id loadRes gives bbox results only
        for ann in anns:
            {ann["id"]: ann}
    return anns


def plain_verdict(name, data, category, image_ids=IMAGE_IDS):
    """'crash', 'mis-score' or 'correct' for the script that scores ``category`` (1: the leaderboard,
    0: the 2024 challenge), without ground truth."""
    try:
        anns = plain_load(name, data, image_ids)
    except Exception:
        return "crash"
    try:
        scored = [ann for ann in anns if ann["category_id"] == category]
    except (KeyError, TypeError):
        return "crash"
    if not scored:
        # The leaderboard reads the last point of an empty curve; the 2024 script prints -1.
        return "crash" if category == 1 else "mis-score"
    lengths = {}
    for ann in scored:
        try:
            -ann["score"]
            box = ann["bbox"]
            numbers = [float(v) for v in box[:4] if isinstance(v, (int, float))]
        except (KeyError, TypeError):
            return "crash"
        if len(numbers) != 4:
            return "crash"
        lengths.setdefault(ann["image_id"], set()).add(len(box))
    if any(len(sizes) > 1 for sizes in lengths.values()):  # numpy (>= 1.24) refuses ragged boxes
        return "crash"
    if max(Counter(ann["image_id"] for ann in scored).values()) > 1000:
        return "crash"
    if len(scored) < len(anns):  # other categories, never scored
        return "mis-score"
    for ann in scored:
        values = [float(v) for v in ann["bbox"][:4]] + [float(ann["score"])]
        if not all(math.isfinite(v) for v in values) or values[2] < 0 or values[3] < 0:
            return "mis-score"
    previous = {}
    for ann in scored:  # sorted within each image, in file order
        image, score = ann["image_id"], float(ann["score"])
        if image in previous and score > previous[image]:
            return "mis-score"
        previous[image] = score
    return "correct"


def as_taken(detections):
    """The leaderboard's per-image step, written plainly: an image's detections sorted by descending
    score (stable), their overlaps computed in that order, then those rows taken in the order of the
    sort once more. Returns (score, the box whose overlaps it is matched with) per detection, in the
    order the evaluator matches them, for `plain_lamr`."""
    by_image = {}
    for d in detections:
        by_image.setdefault(d["image_id"], []).append(d)
    taken = []
    for image, dets in by_image.items():
        inds = sorted(range(len(dets)), key=lambda i: -dets[i]["score"])
        sorted_boxes = [dets[inds[r]]["bbox"] for r in range(len(dets))]
        for j in range(len(dets)):
            taken.append(
                {"image_id": image, "score": dets[inds[j]]["score"], "bbox": sorted_boxes[inds[j]], "category_id": 1}
            )
    return taken
