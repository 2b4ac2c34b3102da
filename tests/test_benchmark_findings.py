"""The findings on every benchmark: each fires on a doctored result (boxes as corners, image ids off
by one, category ids counted from 0, detections of other images, unsorted detections, CVC-14 boxes
of the other origin) and stays quiet on the clean one; an error finding stops `eval` with the
option that reads the file right."""

import json

import numpy as np
import pytest
from test_benchmark_scoring import FLIR_TEST, M3FD_TEST, generated_detections, real, write_json
from test_inputs import run_cli

from kaist_kit.data.detections import ReadOptions
from kaist_kit.data.groundtruth import ground_truth_to_coco, read_ground_truth
from kaist_kit.data.results import load_detections
from kaist_kit.datasets.readers import read_benchmark
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
from kaist_kit.metrics.per_class import benchmark_protocol
from kaist_kit.scoring.findings import inspect
from kaist_kit.scoring.run import open_truth

BENCHMARKS = ["flir-aligned", "m3fd", "llvip", "cvc-14"]
CONFIDENT = {"corners", "id-offset", "wrong-gt", "category-offset", "origin"}


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """Per benchmark: its ground truth as the verbs take it (the real conversions; the synthetic
    folders), and a clean result sorted by image and descending score."""
    made = {}
    for name in BENCHMARKS:
        folder = tmp_path_factory.mktemp(name)
        if name in ("flir-aligned", "m3fd"):
            gt = FLIR_TEST if name == "flir-aligned" else M3FD_TEST
            if not gt.is_file():
                continue
            annotations = read_ground_truth(gt, name)
        else:
            gt = folder / name
            generate_benchmark(name, gt, BenchmarkSynthConfig(seed=4, train_frames=1, test_frames=60))
            annotations = read_benchmark(name, gt, "test")
        records = generated_detections(annotations, seed=7, drop=0.1, background=60)
        order = {image_id: k for k, image_id in enumerate(annotations.image_ids)}
        records.sort(key=lambda r: (order[r["image_id"]], -r["score"]))
        made[name] = gt, records, annotations, folder
    return made


def the_set(sets, name):
    if name not in sets:
        real(FLIR_TEST if name == "flir-aligned" else M3FD_TEST)  # skips with the reason
    return sets[name]


def found(gt, name, records, path, options=None, protocols=None, origin=None):
    truth = open_truth(gt, name, origin=origin)
    dets = load_detections(write_json(path, records), truth.annotations, options or ReadOptions())
    specs = [benchmark_protocol(p) for p in protocols or truth.benchmark.protocols]
    settings = truth.benchmark.lamr_settings[:1]
    return {f.code: f for f in inspect(dets, truth.annotations, settings, ("all",), specs)}


def integer_ids(annotations, folder):
    """The ground truth as a COCO file with integer image ids 1..N (as some conversions write them),
    and the map from the ids read."""
    data = ground_truth_to_coco(annotations)
    ids = {image["id"]: k + 1 for k, image in enumerate(data["images"])}
    for image in data["images"]:
        image["id"] = ids[image["id"]]
    for ann in data["annotations"]:
        ann["image_id"] = ids[ann["image_id"]]
    return write_json(folder / "integer-ids.json", data), ids


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_clean_result_has_no_confident_finding(sets, name, tmp_path):
    gt, records, annotations, _ = the_set(sets, name)
    codes = found(gt, name, records, tmp_path / "clean.json")
    assert not CONFIDENT & set(codes) and "unsorted" not in codes, codes


@pytest.mark.parametrize("name", BENCHMARKS)
def test_boxes_written_as_corners(sets, name, tmp_path):
    gt, records, annotations, _ = the_set(sets, name)
    corners = [
        dict(r, bbox=[r["bbox"][0], r["bbox"][1], r["bbox"][0] + r["bbox"][2], r["bbox"][1] + r["bbox"][3]])
        for r in records
    ]
    codes = found(gt, name, corners, tmp_path / "corners.json")
    assert "corners" in codes and codes["corners"].fix == "rerun with --corners", codes
    assert not CONFIDENT & set(found(gt, name, corners, tmp_path / "c.json", ReadOptions(corners=True)))


@pytest.mark.parametrize("name", BENCHMARKS)
def test_image_ids_off_by_one(sets, name, tmp_path):
    _, records, annotations, folder = the_set(sets, name)
    gt, ids = integer_ids(annotations, folder)
    clean = [dict(r, image_id=ids[r["image_id"]]) for r in records]
    assert not CONFIDENT & set(found(gt, name, clean, tmp_path / "clean.json"))
    # 0-based ids for a ground truth counting from 1: the first image's detections are of no image
    shifted = [dict(r, image_id=r["image_id"] - 1) for r in clean if r["image_id"] > 1]
    codes = found(gt, name, shifted, tmp_path / "shifted.json")
    assert "id-offset" in codes and codes["id-offset"].fix == "rerun with --id-offset 1", codes
    assert not CONFIDENT & set(found(gt, name, shifted, tmp_path / "s.json", ReadOptions(id_offset=1)))


@pytest.mark.parametrize("name", BENCHMARKS)
def test_category_ids_counted_from_zero(sets, name, tmp_path):
    gt, records, annotations, _ = the_set(sets, name)
    if len(annotations.classes) == 1:  # one class: class index 0 is no class of the ground truth
        zero = [dict(r, category_id=0) for r in records]
        codes = found(gt, name, zero, tmp_path / "zero.json")
        assert "unknown-categories" in codes or "category-offset" in codes, codes
        assert not CONFIDENT & set(found(gt, name, zero, tmp_path / "z.json", ReadOptions(category_offset=1)))
        return
    zero = [dict(r, category_id=r["category_id"] - 1) for r in records]
    codes = found(gt, name, zero, tmp_path / "zero.json")
    assert "category-offset" in codes and codes["category-offset"].fix == "rerun with --category-offset 1", codes
    assert not CONFIDENT & set(found(gt, name, zero, tmp_path / "z.json", ReadOptions(category_offset=1)))


@pytest.mark.parametrize("name", BENCHMARKS)
def test_detections_of_other_images(sets, name, tmp_path):
    gt, records, annotations, _ = the_set(sets, name)
    ids = list(annotations.image_ids)
    moved = {image_id: ids[(k + len(ids) // 2) % len(ids)] for k, image_id in enumerate(ids)}
    codes = found(gt, name, [dict(r, image_id=moved[r["image_id"]]) for r in records], tmp_path / "moved.json")
    assert "wrong-gt" in codes, codes


def test_unsorted_detections_on_the_protocols_that_read_them_in_order(sets, tmp_path):
    gt, records, annotations, _ = the_set(sets, "llvip")
    reverse = sorted(records, key=lambda r: (r["image_id"], r["score"]))
    assert any(benchmark_protocol(p).needs_sorted for p in ("leaderboard",))
    codes = found(gt, "llvip", reverse, tmp_path / "reverse.json", protocols=["leaderboard"])
    assert "unsorted" in codes, codes
    assert "unsorted" not in found(gt, "llvip", reverse, tmp_path / "r.json", protocols=["coco"])


def test_cvc14_boxes_of_the_other_origin(sets, tmp_path):
    gt, records, annotations, _ = the_set(sets, "cvc-14")
    # detections made by a tool that read x, y as the corner, on frames whose x, y is the centre
    corner = [
        dict(r, bbox=[r["bbox"][0] + r["bbox"][2] / 2, r["bbox"][1] + r["bbox"][3] / 2, *r["bbox"][2:]])
        for r in records
    ]
    codes = found(gt, "cvc-14", corner, tmp_path / "corner.json")
    assert "origin" in codes and codes["origin"].fix == "rerun with --origin corner", codes
    assert not CONFIDENT & set(found(gt, "cvc-14", corner, tmp_path / "c.json", origin="corner"))


def test_eval_stops_on_a_misread_file_with_the_fix(sets, tmp_path):
    gt, records, annotations, _ = the_set(sets, "m3fd")
    zero = write_json(tmp_path / "yolo.json", [dict(r, category_id=r["category_id"] - 1) for r in records])
    proc = run_cli("eval", zero, "--gt", gt)
    assert proc.returncode == 2 and proc.stdout == ""
    [error] = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert "category-offset" in error and "rerun with --category-offset 1" in error
    proc = run_cli("eval", zero, "--gt", gt, "--category-offset", "1", "--split", "all", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    fixed = json.loads(proc.stdout)["results"]
    assert {r["category"] for r in fixed} == {c.name for c in annotations.classes} | {"mean"}
    assert all(np.isfinite(r["ap50"]) and r["ap50"] > 0.5 for r in fixed if r["category"] == "mean")


def test_numbers_written_as_text_say_what_pycocotools_does(sets, tmp_path):
    gt, records, annotations, _ = the_set(sets, "flir-aligned")
    texts = [dict(r, score=str(r["score"])) if k == 3 else r for k, r in enumerate(records)]
    codes = found(gt, "flir-aligned", texts, tmp_path / "texts.json")
    assert codes["string-values"].level == "warning"
    assert "pycocotools crashes" in codes["string-values"].line() and "leaderboard" not in codes["string-values"].line()
    assert "string-values" not in found(gt, "flir-aligned", records, tmp_path / "clean.json")
