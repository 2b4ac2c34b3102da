"""COCO's multi-class AP and AR equal pycocotools', bit for bit, on the real FLIR-aligned and M3FD test
files and on small generated ground truths with every case COCO's evaluator treats specially."""

import numpy as np
import pytest
from bench_cases import FLIR_TEST, M3FD_TEST, detections_for, load, pycocotools_eval, random_ground_truth

from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.data.results import detections_from_coco
from kaist_kit.datasets import UNNAMED
from kaist_kit.metrics.cocoeval import COCO_METRICS, coco_evaluate

pytest.importorskip("pycocotools", reason="pycocotools is the reference these tests compare with (the dev extra)")


def assert_same_as_pycocotools(gt, records, img_ids=None, benchmark=None):
    reference = pycocotools_eval(gt, records, img_ids)
    annotations = ground_truth_from_coco(gt, benchmark=benchmark or UNNAMED)
    ours = coco_evaluate(annotations, detections_from_coco(records, annotations), img_ids)
    # The accumulated arrays and the twelve summaries are the same floats, not merely close.
    assert np.array_equal(ours.precision, reference.eval["precision"])
    assert np.array_equal(ours.recall, reference.eval["recall"])
    assert ours.stats() == list(reference.stats)
    # Per class: the mean of the class's precision values, as per-class tables take it.
    for k in range(len(ours.class_ids)):
        values = reference.eval["precision"][:, :, k, 0, -1]
        values = values[values > -1]
        want = float(np.mean(values)) if values.size else float("nan")
        assert ours.summary("ap", k) == want or (np.isnan(want) and np.isnan(ours.summary("ap", k)))
    return ours


@pytest.mark.parametrize("path,benchmark", [(FLIR_TEST, "flir-aligned"), (M3FD_TEST, "m3fd")], ids=["flir", "m3fd"])
@pytest.mark.parametrize("seed", range(2))
def test_real_test_files_with_generated_detections(path, benchmark, seed):
    if not path.is_file():
        pytest.skip(f"{path} not found (the shared data folder)")
    gt, records = detections_for(load(path), seed)
    ours = assert_same_as_pycocotools(gt, records, benchmark=benchmark)
    assert 0.05 < ours.summary("ap50") < 0.95  # the generated detections are neither hopeless nor perfect


@pytest.mark.parametrize("path", [FLIR_TEST, M3FD_TEST], ids=["flir", "m3fd"])
def test_a_scene_subset_of_a_real_file(path):
    """A split (FLIR's night, M3FD's overcast) is COCOeval with params.imgIds its images."""
    if not path.is_file():
        pytest.skip(f"{path} not found (the shared data folder)")
    gt, records = detections_for(load(path), 11)
    scene = 2 if path == FLIR_TEST else 3
    ids = sorted(image["id"] for image in gt["images"] if image["scene"] == scene)
    assert_same_as_pycocotools(gt, records, ids)


@pytest.mark.parametrize("seed", range(6))
def test_small_generated_cases(seed):
    rng = np.random.default_rng(500 + seed)
    seen = {"crowd": 0, "id 0": 0, "empty image": 0, "no detections of a class": 0}
    for case in range(25):
        gt = random_ground_truth(rng, string_ids=bool(case % 2))
        gt, records = detections_for(gt, int(rng.integers(1 << 30)), crowd=0.1, crowded_images=int(case % 3 == 0))
        if case % 5 == 0:  # a class without detections
            records = [r for r in records if r["category_id"] != 1]
            seen["no detections of a class"] += 1
        img_ids = None
        if case % 4 == 1:
            img_ids = [image["id"] for image in gt["images"] if rng.random() < 0.6]
        assert_same_as_pycocotools(gt, records, img_ids)
        seen["crowd"] += any(a.get("iscrowd") for a in gt["annotations"])
        seen["id 0"] += any(a["id"] == 0 for a in gt["annotations"])
        seen["empty image"] += len({a["image_id"] for a in gt["annotations"]}) < len(gt["images"])
    assert min(seen.values()) >= 1, seen


def test_no_detections_at_all():
    gt = random_ground_truth(np.random.default_rng(3), string_ids=False)
    ours = assert_same_as_pycocotools(gt, [])
    assert ours.summary("ap") == 0.0


def test_a_match_to_the_ground_truth_with_id_0_is_a_false_positive():
    """COCO stores the matched ground truth's id as the match flag, so id 0 reads as no match."""
    gt = {
        "images": [{"id": 1, "width": 100, "height": 100}],
        "annotations": [
            {"id": 0, "image_id": 1, "category_id": 1, "bbox": [10, 10, 40, 40], "area": 1600, "iscrowd": 0},
            {"id": 5, "image_id": 1, "category_id": 1, "bbox": [60, 60, 30, 30], "area": 900, "iscrowd": 0},
        ],
        "categories": [{"id": 1, "name": "person"}],
    }
    records = [
        {"image_id": 1, "category_id": 1, "bbox": [10, 10, 40, 40], "score": 0.9},
        {"image_id": 1, "category_id": 1, "bbox": [60, 60, 30, 30], "score": 0.8},
    ]
    ours = assert_same_as_pycocotools(gt, records)
    assert ours.recall[0, 0, 0, -1] == 0.5  # one of two found, though both are hit exactly


def test_every_summary_metric_is_named():
    assert COCO_METRICS == (
        "ap",
        "ap50",
        "ap75",
        "ap_small",
        "ap_medium",
        "ap_large",
        "ar1",
        "ar10",
        "ar100",
        "ar_small",
        "ar_medium",
        "ar_large",
    )
