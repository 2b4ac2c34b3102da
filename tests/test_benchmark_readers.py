"""The other benchmarks' annotation files: each native layout read back exactly from a synthetic set
written in it, the COCO conversions in circulation (string ids, scenes, 'bike'), CVC-14's rules (the
test frames of both modalities, the box origin), LLVIP's release, and errors that name the file."""

import json

import numpy as np
import pytest
from bench_cases import FLIR_TEST, M3FD_TEST

from kaist_kit.data.groundtruth import ground_truth_from_coco, ground_truth_to_coco, read_ground_truth, switch_origin
from kaist_kit.data.results import detections_from_coco
from kaist_kit.datasets import UNNAMED
from kaist_kit.datasets.cvc14 import read_cvc14
from kaist_kit.datasets.llvip import LLVIP_2021_BOXES, llvip_release
from kaist_kit.datasets.readers import read_benchmark
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
from kaist_kit.errors import InputError
from kaist_kit.scoring.findings import origin_check


@pytest.fixture(scope="module")
def synth_sets(tmp_path_factory):
    """Each benchmark's synthetic set at its own frame size (2 training and 4 test frames)."""
    root = tmp_path_factory.mktemp("benchmarks")
    return {
        name: (
            root / name,
            generate_benchmark(name, root / name, BenchmarkSynthConfig(seed=3, train_frames=2, test_frames=4)),
        )
        for name in ("flir-aligned", "llvip", "cvc-14", "m3fd")
    }


def read_test_split(name, root):
    return read_benchmark(name, root, root / "meta" / "test.txt" if name == "m3fd" else "test")


@pytest.mark.parametrize("name", ["flir-aligned", "llvip", "cvc-14", "m3fd"])
def test_native_files_read_back_exactly(synth_sets, name):
    root, summary = synth_sets[name]
    annotations = read_test_split(name, root)
    written = {frame: boxes for frame, boxes in summary.truth.items() if frame in annotations.image_names}
    assert len(written) == annotations.n_images == 4
    for k, frame in enumerate(annotations.image_names):
        boxes = np.flatnonzero(annotations.ann_image == k)
        got = sorted(
            (annotations.labels[b], [float(v) for v in annotations.boxes[b]], not annotations.ignore[b]) for b in boxes
        )
        want = sorted(
            (label, [float(v) for v in box], counts) for label, box, counts in written[frame] if label != "dog"
        )
        assert got == [(("person?" if not c else label), box, c) for label, box, c in want], frame
    assert all(tuple(size) == (summary.config["size"] or tuple(size)) for size in annotations.image_sizes)


def test_flir_aligned_drops_dogs_and_says_so(synth_sets):
    root, summary = synth_sets["flir-aligned"]
    annotations = read_benchmark("flir-aligned", root, "train")
    dogs = sum(label == "dog" for frame in annotations.image_names for label, _, _ in summary.truth[frame])
    assert dogs == 1 and any(note.startswith("1 dog box dropped") for note in annotations.notes)
    assert [c.name for c in annotations.classes] == ["person", "bicycle", "car"]
    assert annotations.image_sizes.tolist() == [[640, 512]] * 2


def test_cvc14_test_frames_are_those_of_both_modalities(synth_sets):
    root, _ = synth_sets["cvc-14"]
    annotations = read_cvc14(root, "test")
    assert annotations.n_images == 4 and "1 frame annotated in the visible modality only left out" in annotations.notes
    assert read_cvc14(root, "day").n_images == 2 and read_cvc14(root, "night").n_images == 2
    assert annotations.image_scenes == ["day", "day", "night", "night"]
    corner = read_cvc14(root, "test", origin="corner")
    assert np.array_equal(corner.boxes[:, :2] - corner.boxes[:, 2:] / 2, annotations.boxes[:, :2])
    assert np.array_equal(switch_origin(corner).boxes, annotations.boxes)
    assert switch_origin(annotations).box_origin == "corner"


def test_cvc14_origin_check_says_when_the_other_reading_fits_far_better(tmp_path):
    """Detections made for the boxes read with x, y as the corner fit the centre reading badly."""
    lines = []
    for k in range(30):
        x, y = 60 + (k % 5) * 110, 120 + (k // 5) * 50
        lines.append(f"{x} {y} 40 100 1 0 0 0 0 {k} 0")
    for modality in ("Visible", "FIR"):
        folder = tmp_path / "Day" / modality / "NewTest" / "Annotations"
        folder.mkdir(parents=True)
        for frame in range(2):
            (folder / f"2014_05_04_10_00_00_10000{frame}.txt").write_text("\n".join(lines) + "\n")
    centre = read_cvc14(tmp_path, "day")
    corner = read_cvc14(tmp_path, "day", origin="corner")
    records = [
        {"image_id": image_id, "category_id": 1, "bbox": [float(v) for v in corner.boxes[b]], "score": 1 - b / 100}
        for b, image_id in enumerate(corner.image_ids[i] for i in corner.ann_image)
    ]
    check = origin_check(centre, detections_from_coco(records, centre))
    assert check.origin == "centre" and check.close == 0 and check.close_other == 60 and check.far_better
    assert "with x, y read as the corner" in check.line()
    assert not origin_check(corner, detections_from_coco(records, corner)).far_better


def test_llvip_release_from_the_box_counts():
    images, boxes = LLVIP_2021_BOXES["test"]

    def fake(n_images, n_boxes):
        gt = {
            "images": [{"id": f"{190001 + k:06d}", "width": 1280, "height": 1024} for k in range(n_images)],
            "annotations": [
                {"id": b + 1, "image_id": f"{190001 + b % n_images:06d}", "category_id": 1, "bbox": [10, 10, 20, 40]}
                for b in range(n_boxes)
            ],
            "categories": [{"id": 1, "name": "person"}],
        }
        return ground_truth_from_coco(gt, benchmark="llvip")

    assert llvip_release(fake(images, boxes), "test").name == "2021"
    assert llvip_release(fake(images, boxes + 40), "test").name == "2023"
    assert llvip_release(fake(10, 40), "test").name == "unknown"


def test_the_public_flir_conversion_reads_with_its_string_ids_scenes_and_bike():
    if not FLIR_TEST.is_file():
        pytest.skip(f"{FLIR_TEST} not found (the shared data folder)")
    annotations = read_ground_truth(FLIR_TEST, "flir-aligned")
    assert annotations.n_images == 1013 and len(annotations.ann_ids) == 8591
    # Images in id order (the file lists FLIR_09266 first), as COCO's evaluator takes them.
    assert annotations.image_ids[0] == "FLIR_08864.jpeg_RGB" and annotations.image_names[0] == "FLIR_08864"
    assert list(annotations.image_ids) == sorted(annotations.image_ids)
    assert annotations.counts() == {"person": 4107, "bicycle": 360, "car": 4124}
    assert "class 'bike' (id 2) read as FLIR-aligned's 'bicycle'" in annotations.notes
    assert annotations.split_mask("day").sum() == 702 and annotations.split_mask("night").sum() == 311
    assert annotations.class_index("bike") == annotations.class_index("bicycle") == 1


def test_the_public_m3fd_conversion_reads_with_its_scenes():
    if not M3FD_TEST.is_file():
        pytest.skip(f"{M3FD_TEST} not found (the shared data folder)")
    annotations = read_ground_truth(M3FD_TEST, "m3fd")
    assert annotations.n_images == 840 and len(annotations.ann_ids) == 7062
    scenes = {name: int(annotations.split_mask(name).sum()) for name in ("daytime", "night", "overcast", "challenge")}
    assert scenes == {"daytime": 320, "night": 140, "overcast": 205, "challenge": 148}
    with pytest.raises(
        InputError,
        match="no image of the ground truth is in the split 'campus'; its splits are all, "
        "challenge, daytime, night, overcast",
    ):
        annotations.split_mask("campus")


def test_coco_round_trip(synth_sets):
    root, _ = synth_sets["m3fd"]
    annotations = read_benchmark("m3fd", root)
    again = ground_truth_from_coco(json.loads(json.dumps(ground_truth_to_coco(annotations))), benchmark="m3fd")
    for field in ("image_ids", "image_names", "labels"):
        assert list(getattr(again, field)) == list(getattr(annotations, field))
    for field in ("image_sizes", "ann_image", "ann_class", "ann_ids", "boxes", "areas", "iscrowd", "ignore"):
        assert np.array_equal(getattr(again, field), getattr(annotations, field)), field


def test_errors_name_the_file(tmp_path):
    gt = {"images": [{"id": 1}, {"id": "2"}], "annotations": [], "categories": [{"id": 1, "name": "person"}]}
    path = tmp_path / "gt.json"
    path.write_text(json.dumps(gt, indent=1))
    with pytest.raises(InputError, match=r"gt.json(:\d+)?: image ids mix integers and strings"):
        read_ground_truth(path, UNNAMED)
    gt["images"][1]["id"] = 2
    gt["annotations"] = [{"id": 1, "image_id": 3, "category_id": 1, "bbox": [0, 0, 1, 1]}]
    path.write_text(json.dumps(gt, indent=1))
    with pytest.raises(InputError, match=r"gt.json:\d+: annotation for image_id 3, which is not among the images"):
        read_ground_truth(path, UNNAMED)
    annotations = ground_truth_from_coco({**gt, "annotations": []}, benchmark=UNNAMED)
    with pytest.raises(
        InputError,
        match="image_id '1' is not an integer \\(written as a string; the ground truth's ids are integers\\)",
    ):
        detections_from_coco([{"image_id": "1", "category_id": 1, "bbox": [0, 0, 1, 1], "score": 1}], annotations)

    root = tmp_path / "flir" / "align"
    (root / "Annotations").mkdir(parents=True)
    (root / "align_validation.txt").write_text("FLIR_00001_PreviewData\n")
    xml = root / "Annotations" / "FLIR_00001_PreviewData.xml"
    xml.write_text(
        "<annotation><object><name>truck</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>9</xmax>"
        "<ymax>9</ymax></bndbox></object></annotation>"
    )
    with pytest.raises(InputError, match="FLIR_00001_PreviewData.xml: label 'truck' is none of FLIR-aligned's classes"):
        read_benchmark("flir-aligned", tmp_path / "flir")
    cvc = tmp_path / "cvc" / "Day" / "Visible" / "NewTest" / "Annotations"
    cvc.mkdir(parents=True)
    (cvc / "2014_05_04_10_00_00_000001.txt").write_text("320 240 40 80 1 0 0 0 0 1\n")
    (tmp_path / "cvc" / "Day" / "FIR" / "NewTest" / "Annotations").mkdir(parents=True)
    (tmp_path / "cvc" / "Day" / "FIR" / "NewTest" / "Annotations" / "2014_05_04_10_00_00_000001.txt").write_text("")
    with pytest.raises(InputError, match=r"000001.txt:1: 10 fields, expected 11"):
        read_cvc14(tmp_path / "cvc", "day")
    with pytest.raises(InputError, match="no such folder"):
        read_benchmark("llvip", tmp_path / "nowhere")


def test_the_docs_example_runs(tmp_path, monkeypatch, capsys):
    """docs/benchmarks-other.md's Python example, as written."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "benchmarks-other.md").read_text()
    code = text.split("<!-- docs:test -->\n```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/benchmarks-other.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    rows = [line for line in printed if line.startswith("{")]
    assert len(rows) == 8  # three classes and their mean, for each of two protocols
    means = [row for row in rows if "'category': 'mean'" in row]
    assert "'ap50': 1.0," in means[0] and "'ap50': 0.995," in means[1]  # YOLOv5's sentinel costs half a step
