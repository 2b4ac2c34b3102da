"""Annotation ids as pycocotools reads them: id 0 is never found, an id used twice loads its last box.

The kit's converters number ids from 1, each once; its COCO evaluator gives pycocotools' numbers on files
that break either rule (doctored copies of real and generated ground truths), and both ground-truth
readers say, in one line each, what pycocotools then does.
"""

import copy

import numpy as np
import pytest
from bench_cases import M3FD_TEST, SHARED, detections_for, load, random_ground_truth
from test_cocoeval import assert_same_as_pycocotools

from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.data.results import detections_from_coco
from kaist_kit.datasets import UNNAMED
from kaist_kit.metrics.cocoeval import coco_evaluate
from kaist_kit.metrics.idrules import coco_loaded, id_notes

pytest.importorskip("pycocotools", reason="pycocotools is the reference these tests compare with (the dev extra)")

LLVIP_PUBLIC = SHARED / "data" / "llvip" / "lwir-test-llvip.json"


def perfect(gt: dict) -> list[dict]:
    """A detection on every box that counts, scored in file order."""
    return [
        {"image_id": a["image_id"], "category_id": a["category_id"], "bbox": list(a["bbox"]), "score": 1 - k * 1e-6}
        for k, a in enumerate(gt["annotations"])
        if not a.get("iscrowd")
    ]


def share_ids(gt: dict, rng, pairs: int) -> dict:
    """A copy of ``gt`` in which ``pairs`` boxes take the id of another box (of any image and class)."""
    gt = copy.deepcopy(gt)
    anns = gt["annotations"]
    for _ in range(pairs):
        a, b = rng.choice(len(anns), 2, replace=False)
        anns[int(a)]["id"] = anns[int(b)]["id"]
    return gt


@pytest.mark.parametrize("seed", range(4))
def test_duplicate_ids_score_as_pycocotools_on_generated_files(seed):
    rng = np.random.default_rng(900 + seed)
    seen = 0
    for case in range(12):
        gt = random_ground_truth(rng, string_ids=bool(case % 2))
        if len(gt["annotations"]) < 3:
            continue
        gt, records = detections_for(gt, int(rng.integers(1 << 30)), crowd=0.1)
        gt = share_ids(gt, rng, int(rng.integers(1, 4)))
        if case % 3 == 0:  # the last box of an id is of a class not in the categories: the others vanish
            victim = gt["annotations"][int(rng.integers(len(gt["annotations"])))]
            gt["annotations"].append({**victim, "category_id": 99, "bbox": [0, 0, 5, 5], "area": 25})
        img_ids = None
        if case % 4 == 1:
            img_ids = [image["id"] for image in gt["images"] if rng.random() < 0.6]
        assert_same_as_pycocotools(gt, records + perfect(gt), img_ids)
        seen += 1
    assert seen >= 6


def test_duplicate_ids_in_a_real_file_give_pycocotools_ap_and_are_said():
    """The car AP of perfect detections on M3FD's test file whose car ids are doubled is not 1.0."""
    if not M3FD_TEST.is_file():
        pytest.skip(f"{M3FD_TEST} not found (the shared data folder)")
    gt = load(M3FD_TEST)
    cars = [a for a in gt["annotations"] if a["category_id"] == 2]
    for first, second in zip(cars[0:60:2], cars[1:60:2]):
        second["id"] = first["id"]
    ours = assert_same_as_pycocotools(gt, perfect(gt), benchmark="m3fd")
    car = ours.class_names.index("Car")
    assert ours.summary("ap", car) < 0.99  # pycocotools' number: some car boxes are doubled, others lost
    notes = ground_truth_from_coco(gt, benchmark="m3fd").notes
    assert [n for n in notes if "used more than once" in n] == [
        "30 annotation ids used more than once (60 boxes, first: id "
        f"{cars[0]['id']}): pycocotools loads the last box of an id in place of every box of that id (boxes "
        "doubled, others lost), the kit's COCO AP does the same; give each box an id of its own"
    ]


def test_ids_from_0_in_the_public_llvip_conversion_are_said_and_scored_as_pycocotools():
    if not LLVIP_PUBLIC.is_file():
        pytest.skip(f"{LLVIP_PUBLIC} not found (the shared data folder)")
    gt = load(LLVIP_PUBLIC)
    assert min(a["id"] for a in gt["annotations"]) == 0
    ours = assert_same_as_pycocotools(gt, perfect(gt), benchmark="llvip")
    assert ours.summary("ap50") < 1.0  # the box with id 0 is never found
    renumbered = copy.deepcopy(gt)
    for k, ann in enumerate(renumbered["annotations"], 1):
        ann["id"] = k
    assert assert_same_as_pycocotools(renumbered, perfect(renumbered), benchmark="llvip").summary("ap50") == 1.0
    notes = ground_truth_from_coco(gt, benchmark="llvip").notes
    assert (
        "1 box with annotation id 0: pycocotools never counts a match to it (a detection on it is a false "
        "positive), the kit's COCO AP does the same; number the ids from 1"
    ) in notes
    assert not [n for n in ground_truth_from_coco(renumbered, benchmark="llvip").notes if "annotation id" in n]


def test_the_kaist_reader_says_it_too():
    gt = {
        "images": [{"id": 0, "im_name": "set06/V000/I00019"}],
        "annotations": [
            {"id": 0, "image_id": 0, "category_id": 1, "bbox": [1, 2, 30, 60]},
            {"id": 5, "image_id": 0, "category_id": 1, "bbox": [100, 2, 30, 60]},
            {"id": 5, "image_id": 0, "category_id": 1, "bbox": [200, 2, 30, 60]},
        ],
    }
    notes = ground_truth_from_coco(gt).notes
    assert notes == [
        "1 box with annotation id 0: the leaderboard's evaluator, as pycocotools, never counts a match to it (a "
        "detection on it is a false positive), the leaderboard protocol keeps that rule, the matlab protocol "
        "matches it; number the ids from 1",
        "1 annotation id used more than once (2 boxes, first: id 5): the leaderboard's evaluator, as "
        "pycocotools, loads the last box of an id in place of every box of that id (boxes doubled, others "
        "lost), the kit scores each box as written; give each box an id of its own",
    ]
    gt["annotations"][0]["id"] = 1
    gt["annotations"][2]["id"] = 2
    assert ground_truth_from_coco(gt).notes == []


def test_the_loaded_boxes():
    keep = np.array([True, True, False, True, True])
    assert coco_loaded([1, 2, 3, 4, 5], keep) is None
    # ids 7 7 8 8 7, box 2 left out: the last 7 is box 4 (kept index 3), the last 8 box 3 (kept index 2)
    assert coco_loaded([7, 7, 8, 8, 7], keep).tolist() == [3, 3, 2, 3]
    # the last box of id 9 is one the kit left out: the kept ones of id 9 vanish (-1)
    assert coco_loaded([9, 1, 9, 2, 3], np.array([True, True, False, True, True])).tolist() == [-1, 1, 2, 3]
    assert id_notes([3, "x", 4, None]) == []


def test_the_evaluator_without_repeated_ids_is_unchanged():
    """No id repeated: no box is replaced (the evaluator's grouping is the one it always was)."""
    rng = np.random.default_rng(4)
    gt, records = detections_for(random_ground_truth(rng, string_ids=False), 5)
    for k, ann in enumerate(gt["annotations"], 1):
        ann["id"] = k
    annotations = ground_truth_from_coco(gt, benchmark=UNNAMED)
    assert annotations.coco_loads is None
    ours = coco_evaluate(annotations, detections_from_coco(records, annotations))
    assert ours.stats() == assert_same_as_pycocotools(gt, records).stats()
