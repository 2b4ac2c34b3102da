"""A deliberately plain YOLOv5 val.py AP, written from the description in kaist_kit/metrics/yolov5.py.

Loops over images, thresholds, detections and labels; numpy only for float32 scalars (YOLOv5 holds
boxes in float32) and for the one order val.py takes from numpy (its unstable sort of a detection's
candidate labels by IoU, which matters only for exactly equal IoUs). Inputs are COCO dicts.
"""

import numpy as np

THRESHOLDS = [np.float32(t) for t in np.linspace(0.5, 0.95, 10)]


def xyxy32(box):
    x, y, w, h = (float(v) for v in box)
    return [np.float32(x), np.float32(y), np.float32(x + w), np.float32(y + h)]


def iou32(label, det):
    """box_iou of one label and one detection, operation by operation in float32."""
    zero = np.float32(0)
    wx = max(min(label[2], det[2]) - max(label[0], det[0]), zero)
    wy = max(min(label[3], det[3]) - max(label[1], det[1]), zero)
    inter = wx * wy
    area_l = (label[2] - label[0]) * (label[3] - label[1])
    area_d = (det[2] - det[0]) * (det[3] - det[1])
    return inter / (area_l + area_d - inter + np.float32(1e-7))


def correct_in_image(labels, dets, threshold):
    """Indices of the image's detections that are correct at ``threshold``: labels [(class, box)],
    detections [(score, class, box)] in descending score."""
    candidates = []  # (label, detection, IoU) in label-major order, as torch.where lists them
    for li, (l_class, l_box) in enumerate(labels):
        for di, (_, d_class, d_box) in enumerate(dets):
            if l_class == d_class:
                iou = iou32(l_box, d_box)
                if iou >= threshold:
                    candidates.append((li, di, iou))
    if len(candidates) > 1:
        order = np.argsort(np.array([c[2] for c in candidates], np.float32))[::-1]
        candidates = [candidates[k] for k in order]
    label_of = {}
    for li, di, _ in candidates:  # a detection keeps its first (largest-IoU) candidate
        if di not in label_of:
            label_of[di] = li
    winner = {}
    for di in sorted(label_of):  # a label keeps its lowest-index detection
        if label_of[di] not in winner:
            winner[label_of[di]] = di
    return set(winner.values())


def interp(x, xp, fp):
    """numpy's interp: the last j with xp[j] <= x; fp[j] there exactly, else slope * (x - xp[j]) + fp[j]."""
    j = max(k for k in range(len(xp)) if xp[k] <= x)
    if j == len(xp) - 1 or xp[j] == x:
        return fp[j]
    slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j])
    return slope * (x - xp[j]) + fp[j]


def compute_ap(recall, precision):
    mrec = [0.0] + list(recall) + [1.0]
    mpre = [1.0] + list(precision) + [0.0]
    for i in range(len(mpre) - 2, -1, -1):  # the envelope, from the right
        mpre[i] = max(mpre[i], mpre[i + 1])
    xs = [k / 100 for k in range(101)]
    xs[-1] = 1.0
    ys = [interp(x, mrec, mpre) for x in xs]
    return sum((xs[i + 1] - xs[i]) * (ys[i + 1] + ys[i]) / 2 for i in range(100))


def plain_yolov5(gt, records, conf_thres=0.001, max_det=300):
    """{class id: [AP at each of the ten thresholds]} for the classes with labels."""
    classes = {c["id"] for c in gt["categories"]}
    stats = []  # (score, class, [correct at each threshold]) in image order
    n_labels = {}
    for image_id in sorted(image["id"] for image in gt["images"]):
        labels = [
            (a["category_id"], xyxy32(a["bbox"]))
            for a in gt["annotations"]
            if a["image_id"] == image_id and not a.get("iscrowd") and a["category_id"] in classes
        ]
        for cls, _ in labels:
            n_labels[cls] = n_labels.get(cls, 0) + 1
        dets = [
            (r["score"], r["category_id"], xyxy32(r["bbox"]))
            for r in records
            if r["image_id"] == image_id and (conf_thres is None or r["score"] > conf_thres)
        ]
        dets = sorted(dets, key=lambda d: -d[0])[:max_det]  # Python's sort is stable; [:None] keeps all
        hits = [correct_in_image(labels, dets, t) for t in THRESHOLDS]
        for di, (score, cls, _) in enumerate(dets):
            stats.append((score, cls, [di in hit for hit in hits]))
    stats = sorted(stats, key=lambda s: -s[0])
    aps = {}
    for cls in sorted(n_labels):
        mine = [s for s in stats if s[1] == cls]
        ap = []
        for t in range(len(THRESHOLDS)):
            tp = fp = 0
            recall, precision = [], []
            for _, _, ok in mine:
                tp, fp = tp + ok[t], fp + (not ok[t])
                recall.append(tp / (n_labels[cls] + 1e-16))
                precision.append(tp / (tp + fp))
            ap.append(compute_ap(recall, precision) if mine else 0.0)
        aps[cls] = ap
    if not any(ok[t] for _, _, ok in stats for t in range(len(THRESHOLDS))):
        aps = {cls: [0.0] * len(THRESHOLDS) for cls in aps}  # val.py computes nothing then
    return aps
