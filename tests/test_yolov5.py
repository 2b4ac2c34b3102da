"""YOLOv5's val.py AP (``--protocol yolov5``) against a plain implementation of its rules, on generated
cases: duplicated boxes (exact IoU ties), classes without labels or detections, crowd boxes, the
confidence threshold and the 300 detections per image."""

import numpy as np
import pytest
from bench_cases import FLIR_TEST, detections_for, load, random_ground_truth
from plain_yolov5 import plain_yolov5

from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.data.results import detections_from_coco
from kaist_kit.datasets import UNNAMED
from kaist_kit.metrics.yolov5 import THRESHOLDS, Yolov5Protocol, yolov5_evaluate

DEFAULT = Yolov5Protocol()


def compare(gt, records, protocol=DEFAULT):
    annotations = ground_truth_from_coco(gt, benchmark=UNNAMED)
    ours = yolov5_evaluate(annotations, detections_from_coco(records, annotations), protocol=protocol)
    want = plain_yolov5(gt, records, protocol.conf_thres, protocol.max_det)
    assert list(ours.class_ids) == sorted(want)
    for row, class_id in enumerate(ours.class_ids):
        # The plain trapezoid sums in order, numpy's in pairs: the last bits may differ.
        assert ours.ap[row] == pytest.approx(want[class_id], abs=1e-12), class_id
    return ours


@pytest.mark.parametrize("seed", range(8))
def test_generated_cases_match_the_plain_implementation(seed):
    rng = np.random.default_rng(900 + seed)
    for case in range(10):
        gt = random_ground_truth(rng, string_ids=bool(case % 2))
        gt, records = detections_for(gt, int(rng.integers(1 << 30)), crowd=0.1, crowded_images=0)
        for record in records[: len(records) // 5]:
            record["score"] = 0.0005  # below val.py's confidence threshold
        compare(gt, records)


def test_duplicated_boxes_take_val_pys_choice():
    """A detection on two identical labels: val.py's choice between them decides whether a second
    detection of the same object is correct."""
    box = [20.0, 20.0, 40.0, 60.0]
    gt = {
        "images": [{"id": 1, "width": 200, "height": 200}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": box},
            {"id": 2, "image_id": 1, "category_id": 1, "bbox": box},
        ],
        "categories": [{"id": 1, "name": "person"}],
    }
    records = [
        {"image_id": 1, "category_id": 1, "bbox": [21.0, 20.0, 40.0, 60.0], "score": 0.9},
        {"image_id": 1, "category_id": 1, "bbox": [19.0, 21.0, 40.0, 60.0], "score": 0.8},
    ]
    compare(gt, records)


def test_at_most_300_detections_per_image_above_the_threshold():
    gt = {
        "images": [{"id": 1, "width": 640, "height": 640}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [100.0, 100.0, 50.0, 50.0]}],
        "categories": [{"id": 1, "name": "person"}],
    }
    clutter = [
        {"image_id": 1, "category_id": 1, "bbox": [400.0, 400.0, 30.0, 30.0], "score": 0.5 + k / 1000}
        for k in range(300)
    ]
    hit = {"image_id": 1, "category_id": 1, "bbox": [100.0, 100.0, 50.0, 50.0], "score": 0.4}
    assert compare(gt, clutter + [hit]).summary("ap50") == 0.0  # the 301st detection is never seen
    assert compare(gt, clutter + [hit], Yolov5Protocol(max_det=None)).summary("ap50") > 0
    low = dict(hit, score=0.001)  # not above conf_thres
    assert compare(gt, [low]).summary("ap50") == 0.0
    assert compare(gt, [low], Yolov5Protocol(conf_thres=None)).summary("ap50") > 0.99


def test_thresholds_are_torchs_float32_linspace():
    assert THRESHOLDS.dtype == np.float32
    assert [float(t) for t in THRESHOLDS][5] == 0.75 and float(THRESHOLDS[1]) == float(np.float32(0.55))


def test_flir_duplicates_on_the_real_file():
    """FLIR-aligned's test file has three duplicated boxes: the matching there follows val.py's order."""
    if not FLIR_TEST.is_file():
        pytest.skip(f"{FLIR_TEST} not found (the shared data folder)")
    gt = load(FLIR_TEST)
    images = {
        a["image_id"]
        for a in gt["annotations"]
        if a["image_id"] in {"FLIR_09055.jpeg_RGB", "FLIR_09042.jpeg_RGB", "FLIR_09653.jpeg_RGB"}
    }
    gt = {
        **gt,
        "images": [i for i in gt["images"] if i["id"] in images],
        "annotations": [a for a in gt["annotations"] if a["image_id"] in images],
    }
    gt, records = detections_for(gt, 4, crowd=0.0, crowded_images=0)
    compare(gt, records)
