"""The result inspector: its findings on the real files, on synthetic results, and on the mistakes
people make (boxes as corners, ids off by one, another image set, numbers as text, splits without
pedestrians)."""

import json
from dataclasses import replace

import numpy as np
import pytest
from conftest import det, frames, make_dets, make_gt, person

from kaist_kit.converters import convert
from kaist_kit.data.detections import ReadOptions
from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.data.results import load_detections
from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.errors import InputError
from kaist_kit.io.text import json_line
from kaist_kit.metrics.evaluate import ResultFiles, evaluate
from kaist_kit.scoring.findings import CHANCE_RATIO, KINDS, LEVELS, evaluate_inspected, inspect, readings, refuse_errors
from kaist_kit.tools.simulate import DEMO_METHODS, simulate
from kaist_kit.tools.synth import SynthConfig, generate

REAL_RESULTS = ["MBNet_result.txt", "MLPD_result.txt", "MLPD_result.json", "MBNet-per-image.tar.gz"]
CONFIDENT = {"corners", "id-offset", "wrong-gt", "category-offset", "origin"}  # the last two: other benchmarks


def codes(findings):
    return {f.code: f for f in findings}


def as_corners(dets):
    boxes = dets.boxes.copy()
    boxes[:, 2:] += boxes[:, :2]
    return replace(dets, boxes=boxes)


def shifted(dets, shift, n_images):
    image = dets.image + shift
    keep = (image >= 0) & (image < n_images)
    return dets.taking(keep, image=image)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """A synthetic test set of 100 frames at 320 x 256 and the three simulated detectors on it."""
    root = tmp_path_factory.mktemp("findings") / "synth"
    generate(root, SynthConfig(seed=3, train_frames=0, test_frames=100, width=320, height=256))
    convert("improved", root / "annotations-improved", root / "test.json", image_size=(320, 256))
    gt = load_ground_truth(root / "test.json")
    return gt, {m.name: simulate(gt, m, 0) for m in DEMO_METHODS}


def test_every_kind_is_a_complete_spec():
    assert {
        "corners",
        "id-offset",
        "wrong-gt",
        "string-values",
        "no-pedestrians",
        "unsorted",
        "over-1000",
        "empty-images",
        "unknown-ids",
        "category",
        "threshold",
        "non-finite",
        "zero-size",
        "empty",
    } <= set(KINDS)
    for code, kind in KINDS.items():
        assert kind.code == code and kind.level in LEVELS and kind.detects
        assert kind.leaderboard in ("", "crash", "mis-score")
        if kind.level != "note":
            assert kind.costs and kind.fix, code
    assert {code for code, kind in KINDS.items() if kind.level == "error"} == CONFIDENT


# --- the confident findings never fire on real or synthetic results --------------------------------


@pytest.mark.parametrize("name", REAL_RESULTS)
def test_no_confident_finding_on_the_published_files(kaist, leaderboard_gt, name):
    dets = load_detections(kaist / "results" / name, leaderboard_gt)
    assert not CONFIDENT & set(codes(inspect(dets, leaderboard_gt)))
    margins = readings(dets, leaderboard_gt).margins()
    # Measured: the best other reading would need 28 times its close hits, the file as read a tenth
    # of its hits, for a check to fire (speed/finding_margins.py).
    assert margins["reading"] > 20 and margins["chance"] > 8


def test_no_confident_finding_on_synthetic_results(synthetic):
    gt, methods = synthetic
    for name, dets in methods.items():
        assert not CONFIDENT & set(codes(inspect(dets, gt))), name
        margins = readings(dets, gt).margins()
        assert margins["reading"] > 20 and margins["chance"] > 5, name


# --- and fire on the same files misread ----------------------------------------------------------


def test_corners_found_and_measured(kaist, leaderboard_gt):
    dets = as_corners(load_detections(kaist / "results" / "MLPD_result.json", leaderboard_gt))
    (finding,) = [f for f in inspect(dets, leaderboard_gt) if f.level == "error"]
    assert finding.code == "corners" and "look like corners x1, y1, x2, y2" in finding.message
    assert "100.00 as written, 7.58 with --corners" in finding.message
    assert readings(dets, leaderboard_gt).margins()["reading"] > 50


def test_ids_off_by_one_found_both_ways(kaist, leaderboard_gt):
    json_dets = load_detections(kaist / "results" / "MLPD_result.json", leaderboard_gt)
    one_based = codes(inspect(shifted(json_dets, 1, 2252), leaderboard_gt))["id-offset"]
    assert "look written 1-based" in one_based.message and "rerun with --id-offset -1" in one_based.message
    txt_dets = load_detections(kaist / "results" / "MBNet_result.txt", leaderboard_gt)
    zero_based = codes(inspect(shifted(txt_dets, -1, 2252), leaderboard_gt))["id-offset"]
    assert "look written 0-based" in zero_based.message and "8.13 with --id-offset 1" in zero_based.message
    for dets in (shifted(json_dets, 1, 2252), shifted(txt_dets, -1, 2252)):
        assert readings(dets, leaderboard_gt).margins()["reading"] > 2.5  # measured 3.1 and 3.6


def test_corners_and_ids_found_on_synthetic_results(synthetic):
    gt, methods = synthetic
    dets = methods["sim-fusion"]
    assert "corners" in codes(inspect(as_corners(dets), gt))
    assert "--id-offset -1" in codes(inspect(shifted(dets, 1, gt.n_images), gt))["id-offset"].message


def other_image_set(gt, images=1126):
    """The same ground truth with every image's annotations moved to another image: what a result
    meets when it is scored against the ground truth of other frames."""
    data = {
        "images": [
            {"id": int(i), "im_name": n, "width": 640, "height": 512} for i, n in zip(gt.image_ids, gt.image_names)
        ],
        "annotations": [
            {
                "id": int(a),
                "image_id": int(gt.image_ids[(k + images) % gt.n_images]),
                "bbox": b.tolist(),
                "height": float(h),
                "occlusion": int(o),
                "ignore": int(g),
            }
            for a, k, b, h, o, g in zip(gt.ann_ids, gt.ann_image, gt.boxes, gt.heights, gt.occlusion, gt.ignore)
        ],
    }
    return ground_truth_from_coco(data)


def test_another_image_set_found(kaist, leaderboard_gt):
    other = other_image_set(leaderboard_gt)
    for name in ("MBNet_result.txt", "MLPD_result.json"):
        dets = load_detections(kaist / "results" / name, other)
        found = codes(inspect(dets, other))
        assert set(found) & CONFIDENT == {"wrong-gt"}, name
        assert "randomly chosen image" in found["wrong-gt"].message
        measured = readings(dets, other)
        assert measured.hits < CHANCE_RATIO * measured.chance / 2


def moved_boxes(gt, seed):
    """The same images and labels, every box placed at random in its frame: a ground truth whose
    boxes lie elsewhere, with the same image ids."""
    rng = np.random.default_rng(seed)
    data = {
        "images": [
            {"id": int(i), "im_name": n, "width": 640, "height": 512} for i, n in zip(gt.image_ids, gt.image_names)
        ],
        "annotations": [
            {
                "id": int(a),
                "image_id": int(gt.image_ids[k]),
                "bbox": [
                    float(rng.uniform(5, 630 - b[2])),
                    float(rng.uniform(5, 502 - b[3])),
                    float(b[2]),
                    float(b[3]),
                ],
                "height": float(h),
                "occlusion": int(o),
                "ignore": int(g),
            }
            for a, k, b, h, o, g in zip(gt.ann_ids, gt.ann_image, gt.boxes, gt.heights, gt.occlusion, gt.ignore)
        ],
    }
    return ground_truth_from_coco(data)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", ["MBNet_result.txt", "MLPD_result.json"])
def test_boxes_elsewhere_found_whatever_the_chance_baseline(kaist, leaderboard_gt, name, seed):
    moved = moved_boxes(leaderboard_gt, seed)
    dets = load_detections(kaist / "results" / name, moved)
    measured = readings(dets, moved)
    assert measured.almost_none and measured.margins()["almost_none"] > 1.8  # measured 2.1 to 3.0
    found = codes(inspect(dets, moved))["wrong-gt"]
    assert found.level == "error"
    # the chance rule alone would not always catch it: its random placements overlap 5 pedestrians or fewer
    assert "fewer than 1.5 % of the pedestrians" in found.message or measured.chance <= 5
    with pytest.raises(InputError, match=r"\[wrong-gt\]"):
        evaluate_inspected(ResultFiles((kaist / "results" / name,)), moved)
    as_is = evaluate_inspected(ResultFiles((kaist / "results" / name,), options=ReadOptions(as_is=True)), moved)
    assert min(100 * r.lamr for r in as_is.results) > 95  # the silent 100.00 it would be


def test_a_synthetic_sets_results_against_the_real_ground_truth_found(synthetic, leaderboard_gt, tmp_path):
    from kaist_kit.data.writers import write_coco_results

    gt, methods = synthetic
    for name, dets in methods.items():
        path = tmp_path / f"{name}_result.json"
        write_coco_results(path, gt.image_ids[dets.image], dets.boxes, dets.scores)
        on_real = load_detections(path, leaderboard_gt)
        found = codes(inspect(on_real, leaderboard_gt))
        assert set(found) & CONFIDENT == {"wrong-gt"}, name
        assert readings(on_real, leaderboard_gt).margins()["almost_none"] > 3  # measured: no overlap at all
        assert not CONFIDENT & set(codes(inspect(dets, gt)))  # against its own ground truth: nothing


def test_the_published_files_overlap_far_more_than_almost_none(kaist, leaderboard_gt):
    for name in ("MBNet_result.txt", "MLPD_result.json"):
        measured = readings(load_detections(kaist / "results" / name, leaderboard_gt), leaderboard_gt)
        assert measured.margins()["almost_none"] > 40  # 72 % of them overlap a pedestrian


def test_a_poor_detector_is_not_taken_for_another_image_set(leaderboard_gt):
    from kaist_kit.tools.simulate import SimulatedMethod

    # recall 0.05 and 20 false positives per image: a miss rate near 97%, still far above chance
    poor = simulate(leaderboard_gt, SimulatedMethod("poor", {"day": 0.05, "night": 0.05}, {"day": 20, "night": 20}), 0)
    assert not CONFIDENT & set(codes(inspect(poor, leaderboard_gt)))
    assert readings(poor, leaderboard_gt).margins()["almost_none"] > 2.5  # measured 2.9


# --- errors stop the call; --as-is scores as read ----------------------------------------------


def test_errors_stop_unless_as_is(kaist, leaderboard_gt, tmp_path):
    records = json.loads((kaist / "results" / "MLPD_result.json").read_text())
    path = tmp_path / "corners_result.json"
    path.write_text(
        json.dumps(
            [
                dict(r, bbox=[r["bbox"][0], r["bbox"][1], r["bbox"][0] + r["bbox"][2], r["bbox"][1] + r["bbox"][3]])
                for r in records
            ]
        )
    )
    with pytest.raises(InputError, match=r"\[corners\].*rerun with --corners; or pass --as-is") as info:
        evaluate_inspected(ResultFiles((path,)), leaderboard_gt)
    assert info.value.path == str(path) and "\n" not in str(info.value)
    as_is = evaluate_inspected(ResultFiles((path,), options=ReadOptions(as_is=True)), leaderboard_gt)
    assert [round(100 * r.lamr, 2) for r in as_is.results] == [100.0] * 3
    (kept,) = [f for f in as_is.findings if f.code == "corners"]
    assert kept.level == "warning" and kept.message.endswith("(scored as read: --as-is)")
    fixed = evaluate_inspected(ResultFiles((path,), options=ReadOptions(corners=True)), leaderboard_gt)
    assert [round(100 * r.lamr, 2) for r in fixed.results] == [7.58, 7.96, 6.95]
    assert not CONFIDENT & {f.code for f in fixed.findings}
    assert refuse_errors(fixed.findings) == fixed.findings


# --- what the readers count ------------------------------------------------------------------


def test_numbers_as_text_read_and_found(kaist, leaderboard_gt, tmp_path):
    records = json.loads((kaist / "results" / "MLPD_result.json").read_text())
    records[5] = dict(records[5], score=str(records[5]["score"]))
    records[9] = dict(records[9], bbox=[records[9]["bbox"][0], str(records[9]["bbox"][1]), *records[9]["bbox"][2:]])
    path = tmp_path / "text_result.json"
    path.write_text(json.dumps(records, indent=1))
    dets = load_detections(path, leaderboard_gt)
    found = codes(inspect(dets, leaderboard_gt))["string-values"]
    assert found.leaderboard == "crash" and found.level == "warning"
    assert "2 detections with numbers written as text" in found.message
    assert f"(first at {path}:{json_line(path.read_text(), 5)})" in found.message
    assert (
        evaluate(leaderboard_gt, dets)[0].lamr
        == evaluate(leaderboard_gt, load_detections(kaist / "results" / "MLPD_result.json", leaderboard_gt))[0].lamr
    )


def test_far_boxes_found_with_their_line(tmp_path):
    gt = make_gt(frames(3), [person(1, 0, (100, 100, 40, 100))])
    path = tmp_path / "far_result.txt"
    path.write_text("1,100,100,40,100,0.9\n1,1e308,1e308,1e308,1e308,0.8\n2,0,0,1e200,1e200,0.7\n")
    dets = load_detections(path, gt)
    with np.errstate(all="raise"):  # the inspector's own arithmetic does not overflow
        found = codes(inspect(dets, gt))["far-boxes"]
    assert f"2 boxes with a number beyond 1e+06 pixels (first at {path}:2)" in found.message


# --- splits and settings the number says nothing about ------------------------------------------

BOX = (100, 100, 40, 100)


def test_no_pedestrians_in_a_split_of_a_partial_result():
    # Two day and two night images, a pedestrian in each; detections on the day images only.
    gt = make_gt(frames(4, night_from=2), [person(k + 1, k, BOX) for k in range(4)])
    dets = make_dets(gt, [det(0, BOX, 0.9), det(1, BOX, 0.8)])
    found = codes(inspect(dets, gt, splits=["all", "day", "night"], protocols=["leaderboard", "matlab"]))
    message = found["no-pedestrians"].message
    assert "reasonable night (leaderboard: its 2 pedestrians are all in images without detections" in message
    assert "matlab" not in message and "day" not in message
    assert "reads 100.00" in message
    (night,) = [r for r in evaluate(gt, dets, splits=["night"]) if r.split == "night"]
    assert night.lamr == 1.0 and night.n_gt == 0


def test_no_pedestrians_when_the_image_size_ignores_every_box():
    images = [dict(image, width=120, height=120) for image in frames(2)]  # every box near the border
    gt = make_gt(images, [person(1, 0, BOX), person(2, 1, BOX)])
    found = codes(inspect(make_dets(gt, [det(0, BOX, 0.9)]), gt, splits=["all"], protocols=["matlab"]))
    assert "reasonable all (matlab: the ground truth has none there)" in found["no-pedestrians"].message


def test_images_without_detections_counted_per_setting():
    small, tall = (100, 100, 30, 60), (300, 100, 40, 100)  # 60 px: reasonable and reasonable-small
    gt = make_gt(frames(3), [person(1, 0, small), person(2, 1, small), person(3, 1, tall), person(4, 2, tall)])
    dets = make_dets(gt, [det(2, tall, 0.9)])
    found = codes(inspect(dets, gt, settings=["reasonable", "reasonable-small", "reasonable-heavy"]))
    message = found["empty-images"].message
    assert "reasonable 3 pedestrians in 2 images, reasonable-small 2 pedestrians in 2 images:" in message
    assert "reasonable-heavy" not in message
