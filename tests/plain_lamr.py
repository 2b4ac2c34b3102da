"""A deliberately plain log-average miss rate, written line by line from docs/evaluation.md.

Loops and lists only, no numpy: it exists to be obviously right and to check the vectorised
evaluator against it. Inputs are plain dicts in COCO style.
"""

import math

LEADERBOARD_REFS = [0.0100, 0.0178, 0.0316, 0.0562, 0.1000, 0.1778, 0.3162, 0.5623, 1.0000]
MATLAB_REFS = [10.0 ** (-2 + k / 4) for k in range(9)]

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


def is_ignored(ann, image, setting):
    (lo, hi), occlusions = SETTINGS[setting]
    x, y, w, h = ann["bbox"]
    width, height = image.get("width", 640), image.get("height", 512)
    return bool(
        ann["ignore"]
        or ann["height"] < lo or ann["height"] > hi
        or ann["occlusion"] not in occlusions
        or x < 5 or y < 5 or x + w > width - 5 or y + h > height - 5
    )


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


def match_image(dets, gts):
    """dets: [(score, bbox)] in file order; gts: [(ann_id, bbox, ignored)] in file order.

    Returns [(score, kind, ann_id)] in matching order, kind 'tp', 'fp' or 'ignored'.
    """
    dets = sorted(dets, key=lambda d: -d[0])  # Python's sort is stable
    gts = sorted(gts, key=lambda g: g[2])  # non-ignored first, stable
    taken = [False] * len(gts)
    out = []
    for score, box in dets:
        best = 0.5
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


def plain_lamr(images, annotations, detections, setting, split_ids, protocol):
    """Return (lamr, miss_rates, n_gt) for the images whose ids are in split_ids."""
    leaderboard = protocol == "leaderboard"
    by_id = {img["id"]: img for img in images}
    ids = sorted(i for i in by_id if i in split_ids)
    dets_of = {i: [] for i in by_id}
    for d in detections:
        dets_of[d["image_id"]].append((d["score"], d["bbox"]))
    anns_of = {i: [] for i in by_id}
    for a in annotations:
        anns_of[a["image_id"]].append(a)
    sequence = []  # (score, is_tp) in image-id order, then matching order
    n_gt = 0
    for image_id in ids:
        dets = dets_of[image_id]
        if leaderboard:
            dets = sorted(dets, key=lambda d: -d[0])[:1000]
        gts = [(a["id"], a["bbox"], is_ignored(a, by_id[image_id], setting)) for a in anns_of[image_id]]
        if leaderboard and not dets:
            continue
        n_gt += sum(1 for g in gts if not g[2])
        for score, kind, ann_id in match_image(dets, gts):
            if kind == "ignored":
                continue
            is_tp = kind == "tp" and not (leaderboard and ann_id == 0)
            sequence.append((score, is_tp))
    n_images = len(ids)
    refs = LEADERBOARD_REFS if leaderboard else MATLAB_REFS
    if n_gt == 0 or n_images == 0:
        return 1.0, [1.0] * 9, n_gt
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
    miss = []
    for ref in refs:
        last = None
        for k, f in enumerate(fppis):
            if f <= ref:
                last = k
        if last is not None:
            recall = recalls[last]
        elif leaderboard and recalls:
            recall = recalls[-1]
        else:
            recall = 0.0
        miss.append(1 - recall)
    if leaderboard:
        if min(miss) == 0:
            return 0.0, miss, n_gt
        return math.exp(sum(math.log(m) for m in miss) / len(miss)), miss, n_gt
    return math.exp(sum(math.log(max(1e-10, m)) for m in miss) / len(miss)), miss, n_gt
