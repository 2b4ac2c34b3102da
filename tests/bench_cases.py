"""Generated ground truths and detections for the other benchmarks' metrics, and pycocotools run on them.

`detections_for` perturbs a COCO ground truth (crowd regions, areas that are not w x h) and writes
detections with every case COCO's evaluator treats specially: score ties within and across images,
images without detections, more than 100 detections of a class in an image, detections of the wrong
class, of no listed class, and exactly on a box. `random_ground_truth` builds small ground truths
with empty images, duplicated boxes, a box with id 0, a class without boxes, integer or string ids.
"""

import contextlib
import copy
import io
import json
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared"
FLIR_TEST = SHARED / "data" / "flir-aligned" / "rgb-test-flir.json"
M3FD_TEST = SHARED / "data" / "m3fd" / "m3fd-test.json"


def load(path):
    return json.loads(Path(path).read_text())


def detections_for(gt: dict, seed: int, crowd=0.05, reshape_area=0.05, crowded_images=2):
    """(perturbed ground truth, detections) for a COCO ground truth (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    gt = copy.deepcopy(gt)
    for ann in gt["annotations"]:
        if rng.random() < crowd:
            ann["iscrowd"] = 1
        if rng.random() < reshape_area:
            ann["area"] = float(ann["area"]) * float(rng.uniform(0.2, 3.0))
    classes = [c["id"] for c in gt["categories"]]
    boxes_of = {}
    for ann in gt["annotations"]:
        boxes_of.setdefault(ann["image_id"], []).append(ann)
    pool = [0.9, 0.5, 0.25, 0.125]
    dets = []
    for k, image in enumerate(gt["images"]):
        if rng.random() < 0.05:
            continue  # an image without detections
        for ann in boxes_of.get(image["id"], []):
            if rng.random() < 0.15:
                continue
            x, y, w, h = ann["bbox"]
            for _ in range(int(rng.integers(1, 3))):
                jitter = rng.normal(0, 0.1, 4) * [w, h, w, h]
                category = ann["category_id"] if rng.random() < 0.9 else int(rng.choice(classes))
                box = [x + jitter[0], y + jitter[1], max(1.0, w + jitter[2]), max(1.0, h + jitter[3])]
                if rng.random() < 0.03:
                    box = [float(v) for v in ann["bbox"]]  # exactly on the box
                dets.append((image["id"], category, box))
        width, height = image.get("width", 640), image.get("height", 512)
        for _ in range(int(rng.poisson(3))):
            w, h = rng.uniform(5, 120, 2)
            dets.append(
                (image["id"], int(rng.choice(classes)), [rng.uniform(0, width - w), rng.uniform(0, height - h), w, h])
            )
        if rng.random() < 0.01:
            dets.append((image["id"], max(classes) + 7, [10.0, 10.0, 30.0, 30.0]))  # a class not listed
        if k < crowded_images:  # more than 100 detections of one class in an image
            for _ in range(130):
                w, h = rng.uniform(5, 60, 2)
                dets.append((image["id"], classes[0], [rng.uniform(0, width - w), rng.uniform(0, height - h), w, h]))
    records = []
    for image_id, category, box in dets:
        score = float(rng.choice(pool)) if rng.random() < 0.3 else float(np.round(rng.random(), 3))
        records.append(
            {"image_id": image_id, "category_id": int(category), "bbox": [float(v) for v in box], "score": score}
        )
    order = rng.permutation(len(records))
    return gt, [records[k] for k in order]


def random_ground_truth(rng, string_ids: bool, n_classes: int = 3):
    """A small COCO ground truth with the awkward cases (see the module's docstring)."""
    n_images = int(rng.choice([1, 3, 8, 20]))
    ids = [f"img_{int(v):04d}" if string_ids else int(v) for v in rng.choice(10_000, n_images, replace=False)]
    images = [{"id": i, "file_name": f"{i}.jpg", "width": 320, "height": 256} for i in ids]
    categories = [{"id": c, "name": f"class{c}"} for c in range(1, n_classes + 1)]
    categories.append({"id": n_classes + 5, "name": "never-seen"})  # a class without boxes
    anns = []
    ann_ids = list(rng.permutation(n_images * 12 + 1))
    for image in images:
        for _ in range(int(rng.choice([0, 0, 1, 3, 6]))):
            w, h = float(rng.uniform(4, 140)), float(rng.uniform(4, 140))
            box = [float(rng.uniform(0, 320 - w)), float(rng.uniform(0, 256 - h)), w, h]
            copies = 2 if rng.random() < 0.1 else 1  # duplicated boxes: exact IoU ties
            for _ in range(copies):
                anns.append(
                    {
                        "id": int(ann_ids.pop()),
                        "image_id": image["id"],
                        "category_id": int(rng.integers(1, n_classes + 1)),
                        "bbox": list(box),
                        "area": w * h if rng.random() < 0.9 else float(rng.uniform(100, 20000)),
                        "iscrowd": int(rng.random() < 0.1),
                    }
                )
    return {"images": images, "annotations": anns, "categories": categories}


def pycocotools_eval(gt: dict, records: list, img_ids=None):
    """pycocotools' COCOeval on copies (it writes into its inputs), its printing silenced."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):
        ground = COCO()
        ground.dataset = copy.deepcopy(gt)
        ground.createIndex()
        result = ground.loadRes(copy.deepcopy(records)) if records else COCO()
        if not records:
            result.dataset = {"images": copy.deepcopy(gt["images"]), "annotations": [], "categories": []}
            result.createIndex()
        evaluation = COCOeval(ground, result, "bbox")
        if img_ids is not None:
            evaluation.params.imgIds = list(img_ids)
        evaluation.evaluate()
        evaluation.accumulate()
        evaluation.summarize()
    return evaluation
