"""Average precision as YOLOv5's ``val.py`` computes it (``--protocol yolov5``), which papers report for
LLVIP and M3FD beside, or instead of, COCO's.

It differs from COCO's evaluator in its matching and in its integration (ultralytics/yolov5,
``val.py`` ``process_batch`` in its per-threshold form of v7.0 on, and ``utils/metrics.py``
``ap_per_class`` and ``compute_ap``; see docs/benchmarks-other.md):

- detections: those scoring above ``conf_thres`` (0.001), at most ``max_det`` (300) per image, in
  descending score (the order non-maximum suppression leaves them in);
- boxes in float32, as YOLOv5 holds them; IoU = inter / (area1 + area2 - inter + 1e-7) in float32;
- per image and IoU threshold t (float32 ``linspace(0.5, 0.95, 10)``), among the pairs of the same
  class with IoU >= t: each detection keeps its label of largest IoU, then each label keeps the
  detection of lowest index (the highest-scored) among those that kept it, which is correct at t.
  A detection whose best label went to another is a false positive even if a second label was free:
  this is not COCO's greedy matching. There are no crowd or ignore regions (YOLO labels have none:
  COCO crowd boxes are left out, as YOLOv5's COCO converter leaves them out);
- per class with labels: detections of every image in descending score; recall TP / (labels + 1e-16),
  precision TP / (TP + FP); the precision envelope over recall with sentinels (0, 1) and (1, 0); AP
  the trapezoidal integral of its 101-point interpolation (numpy's ``interp`` then ``trapz``).
  mAP50 is the mean over classes with labels of AP at 0.5, mAP50-95 the mean of each class's mean
  over the ten thresholds; AP75 (reported by LLVIP papers) the mean at 0.75.

YOLOv5 leaves two choices to numpy's default (unstable) sort. A detection whose IoU with two labels
is exactly equal (duplicated boxes: FLIR-aligned's test set has three) keeps the label val.py gives it:
the images where that happens are matched with val.py's own sequence of numpy calls, so that the kit
equals val.py run with the same numpy. Detections of equal score are ordered stably here (image
order, then file order), where val.py's order also depends on its data loader's image order (sorted
by aspect ratio); scores order detections as written (float64), not rounded to float32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.detections import Detections
from ..data.groundtruth import GroundTruth
from .coco import candidate_pairs, threshold_index
from .spec import YOLOV5, Metric, Precision, get_metric, names_of

THRESHOLDS = np.linspace(0.5, 0.95, 10).astype(np.float32)  # torch.linspace(0.5, 0.95, 10), float32
EPS_IOU = np.float32(1e-7)
EPS_RECALL = 1e-16
RECALL_GRID = np.linspace(0, 1, 101)
_trapezoid = getattr(np, "trapezoid", None) or np.trapz


@dataclass(frozen=True)
class Yolov5Protocol:
    conf_thres: float | None = 0.001  # val.py's default; detections must score above it
    max_det: int | None = 300  # val.py's default, per image


@dataclass
class Yolov5Evaluation:
    """AP per class with labels (rows) and IoU threshold (columns), and the correct-detection table."""

    ap: np.ndarray  # (C, 10) for the classes with labels, in class id order
    class_ids: tuple[int, ...]
    class_names: tuple[str, ...]
    n_labels: np.ndarray  # (C,)
    n_images: int

    def summary(self, metric: str | Metric, klass: int | None = None) -> float:
        """A metric the YOLOv5 evaluator reads (AP at one of its ten thresholds, or their mean) over the
        classes with labels, or of one of them (by position in `class_ids`); nan without labels."""
        spec = get_metric(metric)
        reading = spec.reading(YOLOV5)
        if not isinstance(reading, Precision):
            raise ValueError(f"the yolov5 protocol computes {', '.join(names_of(YOLOV5))}, not {spec.name!r}")
        ap = self.ap if klass is None else self.ap[[klass]]
        if len(ap) == 0:
            return float("nan")
        if reading.iou is None:
            return float(ap.mean(1).mean())
        return float(ap[:, threshold_index(reading.iou)].mean())


def yolov5_evaluate(
    annotations: GroundTruth, detections: Detections, images=None, protocol: Yolov5Protocol = Yolov5Protocol()
) -> Yolov5Evaluation:
    """YOLOv5's AP of ``detections`` on the images of ``images`` (see the module's docstring)."""
    evaluated = annotations.split_mask("all" if images is None else images)
    rank_of_image = np.empty(annotations.n_images, np.int64)
    rank_of_image[sorted(range(annotations.n_images), key=annotations.image_ids.__getitem__)] = np.arange(
        annotations.n_images
    )
    class_of_id = {info.id: k for k, info in enumerate(annotations.classes)}

    labels = np.flatnonzero(evaluated[annotations.ann_image] & ~annotations.iscrowd)
    labels = labels[np.argsort(rank_of_image[annotations.ann_image[labels]], kind="stable")]
    l_image = rank_of_image[annotations.ann_image[labels]]
    l_class = annotations.ann_class[labels]
    l_box = _xyxy32(annotations.boxes[labels])

    d_class = np.array([class_of_id.get(int(c), -1) for c in detections.category], np.int64)
    keep = evaluated[detections.image]
    if protocol.conf_thres is not None:
        keep &= detections.scores > protocol.conf_thres
    kept = np.flatnonzero(keep)
    kept = kept[np.argsort(-detections.scores[kept], kind="stable")]
    kept = kept[np.argsort(rank_of_image[detections.image[kept]], kind="stable")]
    d_image = rank_of_image[detections.image[kept]]
    if protocol.max_det is not None:
        first = np.searchsorted(d_image, d_image, side="left")
        within = np.arange(len(kept)) - first < protocol.max_det
        kept, d_image = kept[within], d_image[within]
    d_class = d_class[kept]
    d_box = _xyxy32(detections.boxes[kept])
    d_score = detections.scores[kept]

    correct = _correct(d_image, d_class, d_box, l_image, l_class, l_box)  # (D, 10)

    order = np.argsort(-d_score, kind="stable")
    correct, d_class = correct[order], d_class[order]
    classes, n_labels = np.unique(l_class, return_counts=True)
    ap = np.zeros((len(classes), len(THRESHOLDS)))
    if correct.any():  # val.py computes nothing (all zero) when no detection is correct
        for c, (k, n_l) in enumerate(zip(classes, n_labels)):
            hits = correct[d_class == k]
            if not len(hits):
                continue
            tpc = hits.cumsum(0)
            fpc = (1 - hits).cumsum(0)
            recall = tpc / (n_l + EPS_RECALL)
            precision = tpc / (tpc + fpc)
            for j in range(len(THRESHOLDS)):
                ap[c, j] = _integrated(recall[:, j], precision[:, j])
    return Yolov5Evaluation(
        ap,
        tuple(annotations.classes[k].id for k in classes),
        tuple(annotations.classes[k].name for k in classes),
        n_labels,
        int(evaluated.sum()),
    )


def _integrated(recall: np.ndarray, precision: np.ndarray) -> float:
    """YOLOv5's compute_ap: the envelope with sentinels, read at 101 recall points, integrated."""
    mrec = np.concatenate(([0.0], recall, [1.0]))
    mpre = np.concatenate(([1.0], precision, [0.0]))
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    return float(_trapezoid(np.interp(RECALL_GRID, mrec, mpre), RECALL_GRID))


def _xyxy32(boxes: np.ndarray) -> np.ndarray:
    """x, y, w, h (float64) to x1, y1, x2, y2 in float32."""
    out = boxes.copy()
    out[:, 2:] += out[:, :2]
    return out.astype(np.float32)


def _correct(d_image, d_class, d_box, l_image, l_class, l_box) -> np.ndarray:
    """(D, 10) bool: whether each detection is correct at each threshold (val.py's process_batch)."""
    n_det = len(d_image)
    correct = np.zeros((n_det, len(THRESHOLDS)), bool)
    det, lab, iou = _pairs(d_image, d_class, d_box, l_image, l_class, l_box)
    for i, threshold in enumerate(THRESHOLDS):
        p = iou >= threshold
        pd, pl, pi = det[p], lab[p], iou[p]
        if not len(pd):
            continue
        # Each detection keeps its label of largest IoU.
        best = np.lexsort((pl, pi, pd))
        pd, pl, pi = pd[best], pl[best], pi[best]
        last = np.r_[pd[1:] != pd[:-1], True]
        # Where two labels tie for a detection's largest IoU, val.py's choice is the order numpy's default
        # (unstable) sort gives its image's candidates: those images are matched as val.py matches them.
        tied = ~last & np.r_[pi[1:] == pi[:-1], False] & np.r_[pd[1:] == pd[:-1], False]
        tied_images = np.unique(d_image[pd[tied]])
        chosen_d, chosen_l = pd[last], pl[last]
        plain = ~np.isin(d_image[chosen_d], tied_images)
        chosen_d, chosen_l = chosen_d[plain], chosen_l[plain]
        # Each label keeps the first (highest-scored) detection among those that kept it.
        by_label = np.lexsort((chosen_d, chosen_l))
        chosen_d, chosen_l = chosen_d[by_label], chosen_l[by_label]
        correct[chosen_d[np.r_[True, chosen_l[1:] != chosen_l[:-1]][: len(chosen_l)]], i] = True
        for image in tied_images:
            in_image = d_image[pd] == image
            correct[_process_image(pd[in_image], pl[in_image], pi[in_image]), i] = True
    return correct


def _process_image(det: np.ndarray, lab: np.ndarray, iou: np.ndarray) -> np.ndarray:
    """The correct detections of one image at one threshold, ordered exactly as val.py orders them: its
    candidates by label then detection (``torch.where``), sorted by IoU with numpy's default sort and
    reversed, the first candidate of each detection, then the first of each label."""
    order = np.lexsort((det, lab))
    matches = np.column_stack([lab[order], det[order], iou[order]]).astype(np.float32)
    if len(matches) > 1:
        matches = matches[matches[:, 2].argsort()[::-1]]
        matches = matches[np.unique(matches[:, 1], return_index=True)[1]]
        matches = matches[np.unique(matches[:, 0], return_index=True)[1]]
    return matches[:, 1].astype(np.int64)


def _pairs(d_image, d_class, d_box, l_image, l_class, l_box):
    """(detection, label, IoU) of every pair of the same image and class with a positive IoU, IoU in
    float32 with box_iou's operations."""
    key_l = l_image * (int(max(l_class.max(initial=0), d_class.max(initial=0))) + 2) + l_class
    key_d = d_image * (int(max(l_class.max(initial=0), d_class.max(initial=0))) + 2) + d_class
    order = np.argsort(key_l, kind="stable")
    key_sorted = key_l[order]
    start = np.searchsorted(key_sorted, key_d, side="left")
    count = np.where(d_class >= 0, np.searchsorted(key_sorted, key_d, side="right") - start, 0)
    dets, labs, ious = [], [], []
    for det, position in candidate_pairs(start, count):
        lab = order[position]
        iou = _iou32(l_box[lab], d_box[det])
        positive = iou > 0
        dets.append(det[positive])
        labs.append(lab[positive])
        ious.append(iou[positive])
    if not dets:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)
    return np.concatenate(dets), np.concatenate(labs), np.concatenate(ious)


def _iou32(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise IoU of label boxes ``a`` and detection boxes ``b`` (x1, y1, x2, y2, float32) with
    box_iou's operations: (min(a2, b2) - max(a1, b1)).clamp(0).prod / (area_a + area_b - inter + eps)."""
    wh = np.clip(np.minimum(a[:, 2:], b[:, 2:]) - np.maximum(a[:, :2], b[:, :2]), 0, None)
    inter = wh[:, 0] * wh[:, 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a + area_b - inter + EPS_IOU)
