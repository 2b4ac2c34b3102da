"""A deliberately plain log-average miss rate and COCO accumulation, written line by line from
docs/evaluation.md.

Loops and lists only, no numpy: it exists to be obviously right and to check the vectorised
evaluator against it. Inputs are plain dicts in COCO style. A setting is a name, or a tuple
((low, high), occlusions, border, squarify ratio or None) for a custom one.
"""

import math
import sys

LEADERBOARD_REFS = [0.0100, 0.0178, 0.0316, 0.0562, 0.1000, 0.1778, 0.3162, 0.5623, 1.0000]
MATLAB_REFS = [10.0 ** (-2 + k / 4) for k in range(9)]
# Dollar's 10.^(-4:.25:0): the 17 reference points of MR-4.
MR4_REFS = [10.0 ** (-4 + k * 0.25) for k in range(17)]

# The 2024 challenge's IoU thresholds and COCO's recall points, as numpy's linspace computes them
# (start + k * step, the last one set to the end).
_STEP = (0.95 - 0.5) / 9
COCO_IOU_THRESHOLDS = [0.5 + k * _STEP for k in range(9)] + [0.95]
RECALL_POINTS = [k * 0.01 for k in range(100)] + [1.0]
EPS = sys.float_info.epsilon  # np.spacing(1)

SETTINGS = {
    "reasonable": ((55, math.inf), {0, 1}),
    "reasonable-small": ((50, 75), {0, 1}),
    "reasonable-heavy": ((50, math.inf), {2}),
    "all-pedestrians": ((20, math.inf), {0, 1, 2}),
    "near": ((115, math.inf), {0}),
    "medium": ((45, 115), {0}),
    "far": ((1, 45), {0}),
    "occ-none": ((1, math.inf), {0}),
    "occ-partial": ((1, math.inf), {1}),
    "occ-heavy": ((1, math.inf), {2}),
}


def parameters(setting):
    """((low, high), occlusions, border, squarify) of a setting name or custom tuple."""
    if isinstance(setting, str):
        return (*SETTINGS[setting], 5, None)
    return setting


def is_ignored(ann, image, setting):
    (lo, hi), occlusions, border, _ = parameters(setting)
    x, y, w, h = ann["bbox"]
    width, height = image.get("width", 640), image.get("height", 512)
    return bool(
        ann["ignore"]
        or ann["height"] < lo
        or ann["height"] > hi
        or ann["occlusion"] not in occlusions
        or x < border
        or y < border
        or x + w > width - border
        or y + h > height - border
    )


def squarify(box, ratio):
    """bbApply('squarify', bb, 3, ratio): keep the height, width = ratio x height, same centre."""
    x, y, w, h = box
    d = h * ratio - w
    return [x - d / 2, y, w + d, h]


def overlap(d, g, g_ignored):
    dx, dy, dw, dh = d
    gx, gy, gw, gh = g
    iw = min(dx + dw, gx + gw) - max(dx, gx)
    if iw <= 0:
        return 0.0
    ih = min(dy + dh, gy + gh) - max(dy, gy)
    if ih <= 0:
        return 0.0
    inter = iw * ih
    if g_ignored:
        return inter / (dw * dh)
    return inter / (dw * dh + gw * gh - inter)


def match_image(dets, gts, threshold=0.5):
    """dets: [(score, bbox)] in file order; gts: [(ann_id, bbox, ignored)] in file order.

    Returns [(score, kind, ann_id)] in matching order, kind 'tp', 'fp' or 'ignored'.
    """
    dets = sorted(dets, key=lambda d: -d[0])  # Python's sort is stable
    gts = sorted(gts, key=lambda g: g[2])  # non-ignored first, stable
    taken = [False] * len(gts)
    out = []
    for score, box in dets:
        best = threshold
        candidate = None
        for k, (_, g_box, g_ignored) in enumerate(gts):
            if taken[k]:
                continue
            if candidate is not None and g_ignored:
                break
            o = overlap(box, g_box, g_ignored)
            if o < best:
                continue
            candidate = k
            best = o
        if candidate is None:
            out.append((score, "fp", None))
        elif gts[candidate][2]:
            out.append((score, "ignored", gts[candidate][0]))
        else:
            taken[candidate] = True
            out.append((score, "tp", gts[candidate][0]))
    return out


def matched_sequence(images, annotations, detections, setting, split_ids, protocol, iou=0.5):
    """Per image matching of the split's images in id order: ([(score, kind, ann_id)], n_gt, n_images).

    Under the leaderboard, images without detections are left out with their pedestrians, and each
    image keeps its 1,000 best detections.
    """
    leaderboard = protocol == "leaderboard"
    ratio = parameters(setting)[3]
    by_id = {img["id"]: img for img in images}
    ids = sorted(i for i in by_id if i in split_ids)
    dets_of = {i: [] for i in by_id}
    for d in detections:
        dets_of[d["image_id"]].append((d["score"], d["bbox"]))
    anns_of = {i: [] for i in by_id}
    for a in annotations:
        anns_of[a["image_id"]].append(a)
    sequence = []
    n_gt = 0
    for image_id in ids:
        dets = dets_of[image_id]
        if leaderboard:
            dets = sorted(dets, key=lambda d: -d[0])[:1000]
        gts = []
        for a in anns_of[image_id]:
            ignored = is_ignored(a, by_id[image_id], setting)
            box = a["bbox"] if ignored or ratio is None else squarify(a["bbox"], ratio)
            gts.append((a["id"], box, ignored))
        if leaderboard and not dets:
            continue
        n_gt += sum(1 for g in gts if not g[2])
        for score, kind, ann_id in match_image(dets, gts, iou):
            if kind == "tp" and leaderboard and ann_id == 0:
                kind = "fp"
            sequence.append((score, kind, ann_id))
    return sequence, n_gt, len(ids)


def plain_lamr(images, annotations, detections, setting, split_ids, protocol, iou=0.5, refs=None):
    """Return (lamr, miss_rates, n_gt) for the images whose ids are in split_ids."""
    matched = matched_sequence(images, annotations, detections, setting, split_ids, protocol, iou)
    return lamr_of(*matched, protocol, refs)


def lamr_of(matched, n_gt, n_images, protocol, refs=None):
    """(lamr, miss_rates, n_gt) of a `matched_sequence`, at the protocol's reference FPPI or ``refs``."""
    leaderboard = protocol == "leaderboard"
    sequence = [(score, kind == "tp") for score, kind, _ in matched if kind != "ignored"]
    if refs is None:
        refs = LEADERBOARD_REFS if leaderboard else MATLAB_REFS
    if n_gt == 0 or n_images == 0:
        return 1.0, [1.0] * len(refs), n_gt
    sequence.sort(key=lambda s: -s[0])
    recalls, fppis = [], []
    tp = fp = 0
    for _, is_tp in sequence:
        if is_tp:
            tp += 1
        else:
            fp += 1
        recalls.append(tp / n_gt)
        fppis.append(fp / n_images)
    if leaderboard:
        miss = []
        for ref in refs:
            last = None
            for k, f in enumerate(fppis):
                if f <= ref:
                    last = k
            if last is not None:
                recall = recalls[last]
            elif recalls:
                recall = recalls[-1]
            else:
                recall = 0.0
            miss.append(1 - recall)
        if min(miss) == 0:
            return 0.0, miss, n_gt
        return math.exp(sum(math.log(m) for m in miss) / len(miss)), miss, n_gt
    miss = [1 - r for r in dollar_reading(fppis, recalls, refs)]
    return math.exp(sum(math.log(max(1e-10, m)) for m in miss) / len(miss)), miss, n_gt


def dollar_reading(fppis, recalls, refs):
    """bbGt's compRoc: xs1 = [-inf; fppi], ys1 = [0; recall]; each reference reads ys1 at the last
    xs1 <= ref."""
    xs1 = [-math.inf] + list(fppis)
    ys1 = [0.0] + list(recalls)
    out = []
    for ref in refs:
        j = [k for k, x in enumerate(xs1) if x <= ref]
        out.append(ys1[j[-1]])
    return out


def plain_coco(images, annotations, detections, setting, split_ids, protocol, iou):
    """COCO's accumulation at one IoU threshold: ([precision at the 101 recall points], final recall,
    n_gt), or None when no pedestrian counts."""
    matched, n_gt, _ = matched_sequence(images, annotations, detections, setting, split_ids, protocol, iou)
    return coco_of(matched, n_gt)


def coco_of(matched, n_gt):
    """COCO's accumulation of a `matched_sequence` (see `plain_coco`)."""
    if n_gt == 0:
        return None
    matched = sorted(matched, key=lambda m: -m[0])
    tp = fp = 0
    recall, precision = [], []
    for _, kind, _ in matched:  # detections in ignore regions stay in the curve, adding nothing
        if kind == "tp":
            tp += 1
        elif kind == "fp":
            fp += 1
        recall.append(tp / n_gt)
        precision.append(tp / (fp + tp + EPS))
    for i in range(len(precision) - 1, 0, -1):
        if precision[i] > precision[i - 1]:
            precision[i - 1] = precision[i]
    at_points = []
    first = 0  # the first detection whose recall reaches the point (recall never decreases)
    for point in RECALL_POINTS:
        while first < len(recall) and recall[first] < point:
            first += 1
        at_points.append(precision[first] if first < len(recall) else 0.0)
    return at_points, (recall[-1] if recall else 0.0), n_gt
