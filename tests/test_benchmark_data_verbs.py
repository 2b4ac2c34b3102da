"""convert, synth, stats and show with --benchmark: each benchmark's native files converted through the
conversion engine give exactly what its reader reads (kaist_kit.datasets.readers), problems are reported
with their file and line as KAIST's are, and the other verbs read the converted files."""

import io
import json
import shutil
import sys
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from bench_cases import FLIR_TEST, M3FD_TEST
from PIL import Image

from kaist_kit.cli import main
from kaist_kit.converters import convert
from kaist_kit.data.groundtruth import read_ground_truth, switch_origin
from kaist_kit.data.results import detections_from_coco
from kaist_kit.datasets.readers import read_benchmark
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
from kaist_kit.errors import InputError
from kaist_kit.metrics.cocoeval import coco_evaluate

NATIVE = {"flir-aligned": "voc", "llvip": "voc", "cvc-14": "cvc-14", "m3fd": "voc"}
SMALL = {"flir-aligned": (320, 256), "llvip": (320, 256), "cvc-14": (320, 236), "m3fd": (320, 240)}


def run(*args) -> tuple[int, str, str]:
    """Exit code, standard output and standard error of a command line, run in this process."""
    err, out = io.StringIO(), io.StringIO()
    old = sys.argv
    sys.argv = ["kaist-kit", *map(str, args)]
    code = 0
    try:
        with redirect_stderr(err), redirect_stdout(out):
            main()
    except SystemExit as exc:
        code = exc.code
    finally:
        sys.argv = old
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """Each benchmark's synthetic set, small (3 training and 5 test frames)."""
    root = tmp_path_factory.mktemp("benchmark-sets")
    for name in NATIVE:
        generate_benchmark(
            name, root / name, BenchmarkSynthConfig(seed=2, train_frames=3, test_frames=5, size=SMALL[name])
        )
    return root


def copy_of(sets, name, tmp_path):
    shutil.copytree(sets / name, tmp_path / name)
    return tmp_path / name


def assert_same(converted, read):
    assert converted.image_names == read.image_names
    assert [c.name for c in converted.classes] == [c.name for c in read.classes]
    assert [c.id for c in converted.classes] == [c.id for c in read.classes]
    assert np.array_equal(converted.ann_image, read.ann_image)
    assert np.array_equal(converted.ann_class, read.ann_class)
    assert np.array_equal(converted.boxes, read.boxes)
    assert np.array_equal(converted.ignore, read.ignore)
    assert converted.labels == read.labels
    assert np.array_equal(converted.image_sizes, read.image_sizes)


@pytest.mark.parametrize("name", list(NATIVE))
@pytest.mark.parametrize("split", ["train", "test"])
def test_converted_splits_read_back_as_the_reader_reads_the_native_files(sets, name, split, tmp_path):
    out = tmp_path / f"{split}.json"
    code, stdout, stderr = run(
        "convert", NATIVE[name], sets / name, "--benchmark", name, "--split", split, "--out", out
    )
    assert code == 0, stderr
    native = split if name != "m3fd" else sets / name / "meta" / f"{split}.txt"
    converted = read_ground_truth(out, name)
    assert_same(converted, read_benchmark(name, sets / name, native))
    assert f"wrote {out}: {converted.n_images} images of {split}" in stderr
    data = json.loads(out.read_text())
    assert data["info"]["benchmark"] == name and data["info"]["split"] == split
    assert [c["name"] for c in data["categories"]] == [c.name for c in converted.classes]
    for image in data["images"]:  # the pictures, where the dataset keeps them
        assert (sets / name / image["file_name"]).is_file() and (sets / name / image["lwir_file_name"]).is_file()
        assert image["file_name"] != image["lwir_file_name"]
    assert all(image["id"] == k for k, image in enumerate(data["images"]))


def test_every_frame_without_a_split_and_archives_as_folders(sets, tmp_path):
    whole = convert("voc", sets / "m3fd", tmp_path / "all.json", benchmark="m3fd")
    assert whole.n_images == 8 and whole.image_set is None
    archive = shutil.make_archive(str(tmp_path / "flir"), "zip", sets / "flir-aligned")
    zipped = convert("voc", archive, tmp_path / "zipped.json", benchmark="flir-aligned", split="test")
    folder = convert("voc", sets / "flir-aligned", tmp_path / "folder.json", benchmark="flir-aligned", split="test")
    assert zipped.info["inputs_sha256"] == folder.info["inputs_sha256"]
    assert zipped.pieces[2:] == folder.pieces[2:]  # all but the info, which names the source
    # The annotation folder itself, its lists beside it.
    inner = convert(
        "voc",
        sets / "flir-aligned" / "align" / "Annotations",
        tmp_path / "inner.json",
        benchmark="flir-aligned",
        split="test",
    )
    assert inner.pieces[2:] == folder.pieces[2:]
    listed = tmp_path / "two.txt"
    listed.write_text("FLIR_09002_PreviewData\nFLIR_09001_PreviewData\n")
    two = convert("voc", sets / "flir-aligned", tmp_path / "two.json", benchmark="flir-aligned", split=str(listed))
    assert read_ground_truth(tmp_path / "two.json", "flir-aligned").image_names == ["FLIR_09002", "FLIR_09001"]
    assert two.image_set == "two"


def test_dropped_dogs_are_notes_as_the_problems_of_kaist_s_formats_are(sets, tmp_path):
    summary = json.loads((sets / "flir-aligned" / "synth.json").read_text())
    dogs = sum(label == "dog" for boxes in summary["truth"].values() for label, _, _ in boxes)
    assert dogs >= 1
    code, stdout, stderr = run(
        "convert",
        "voc",
        sets / "flir-aligned",
        "--benchmark",
        "flir-aligned",
        "--out",
        tmp_path / "all.json",
        "--strict",
    )
    assert code == 0, stderr  # the benchmark's rule, not a defect: --strict passes
    notes = [line for line in stderr.splitlines() if "dog box dropped" in line]
    assert len(notes) == dogs and all(line.startswith("note: ") and "_PreviewData.xml: " in line for line in notes)
    assert f"problems: {dogs} dropped label" in stderr


def test_a_bad_file_leaves_its_frame_out_with_its_file_and_line(sets, tmp_path):
    root = copy_of(sets, "llvip", tmp_path)
    first, second, third = sorted((root / "Annotations").glob("19*.xml"))[:3]
    first.write_text('<!DOCTYPE a [<!ENTITY x "y">]>\n<annotation/>\n')
    second.write_text(second.read_text().replace("<name>person</name>", "<name>mannequin</name>", 1))
    third.write_text(third.read_text()[:-30])
    lines = []
    result = convert("voc", root, tmp_path / "test.json", benchmark="llvip", split="test", echo=lines.append)
    assert result.n_images == 3  # 5 test frames, 2 left out
    assert any(line.startswith(f"problem: {first}: refused: a document type declaration") for line in lines)
    assert any(line.startswith(f"problem: {third}:") and "invalid XML" in line for line in lines)
    unknown = [line for line in lines if "mannequin" in line]
    assert unknown and unknown[0].startswith(f"problem: {second}: label 'mannequin' is none of LLVIP's classes")
    data = json.loads((tmp_path / "test.json").read_text())
    kept = [a for a in data["annotations"] if a["label"] == "mannequin"]
    assert kept and all(a["ignore"] == 1 and a["category_id"] == 0 for a in kept)
    with pytest.raises(InputError, match="--strict: .*malformed file.*unknown label.*nothing written"):
        convert("voc", root, tmp_path / "strict.json", benchmark="llvip", split="test", strict=True)
    assert not (tmp_path / "strict.json").exists()


def test_cvc14_lines_origins_and_frames_of_one_modality(sets, tmp_path):
    root = copy_of(sets, "cvc-14", tmp_path)
    lines = []
    centre = convert("cvc-14", root, tmp_path / "centre.json", benchmark="cvc-14", split="test", echo=lines.append)
    assert any(
        line.startswith("note: ") and "1 frame annotated in the visible modality only left out" in line
        for line in lines
    )
    corner = convert("cvc-14", root, tmp_path / "corner.json", benchmark="cvc-14", split="test", origin="corner")
    read = read_ground_truth(tmp_path / "centre.json", "cvc-14")
    assert centre.info["box_origin"] == "centre" and corner.info["box_origin"] == "corner"
    assert np.array_equal(
        switch_origin(read_benchmark("cvc-14", root, "test")).boxes,
        read_ground_truth(tmp_path / "corner.json", "cvc-14").boxes,
    )
    assert {image["period"] for image in json.loads((tmp_path / "centre.json").read_text())["images"]} == {
        "day",
        "night",
    }
    night = convert("cvc-14", root, tmp_path / "night.json", benchmark="cvc-14", split="night")
    assert night.n_images == sum(name.startswith("Night/") for name in read.image_names)
    path = sorted((root / "Day" / "Visible" / "NewTest" / "Annotations").glob("*_1000*.txt"))[0]
    path.write_text(path.read_text() + "12 14 6 10 1 0 0 0 0\n")
    lines = []
    broken = convert("cvc-14", root, tmp_path / "broken.json", benchmark="cvc-14", split="test", echo=lines.append)
    assert broken.n_images == centre.n_images - 1
    number = len(path.read_text().splitlines())
    assert any(line.startswith(f"problem: {path}:{number}: 9 fields, expected 11") for line in lines)


def test_wrong_benchmark_and_format_name_the_right_ones(sets, tmp_path):
    with pytest.raises(
        InputError,
        match="look like FLIR-aligned voc annotations: convert them with `kaist-kit "
        "convert voc --benchmark flir-aligned`",
    ):
        convert("voc", sets / "flir-aligned", tmp_path / "x.json", benchmark="llvip", split="test")
    with pytest.raises(InputError, match="look like M3FD voc annotations"):
        convert("xml", sets / "m3fd", tmp_path / "x.json")
    code, _, stderr = run("convert", "voc", sets / "m3fd", "--out", tmp_path / "x.json")
    assert (
        code == 2
        and stderr.strip()
        == "error: voc annotations are another benchmark's: name it, --benchmark flir-aligned|llvip|m3fd"
    )
    code, _, stderr = run("convert", "sanitized", sets / "m3fd", "--benchmark", "m3fd", "--out", tmp_path / "x.json")
    assert code == 2 and "M3FD's annotations are read as voc, coco, not sanitized" in stderr
    for args, message in (
        (["--benchmark", "llvip"], "give --split train or --split test"),
        (
            ["--benchmark", "llvip", "--split", "test", "--image-set", "test-all-20"],
            "an image set (--image-set) is KAIST's",
        ),
        (["--split", "test"], "voc annotations are another benchmark's"),
    ):
        code, _, stderr = run("convert", "voc", sets / "llvip", *args, "--out", tmp_path / "x.json")
        assert code == 2 and message in stderr and len(stderr.splitlines()) == 1, (args, stderr)
    code, _, stderr = run("convert", "cvc-14", sets / "cvc-14", "--benchmark", "cvc-14", "--out", tmp_path / "x.json")
    assert code == 2 and "give --split train, test, day or night" in stderr
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("name, path", [("flir-aligned", FLIR_TEST), ("m3fd", M3FD_TEST)])
def test_the_coco_conversions_in_circulation_score_as_the_originals(name, path, tmp_path):
    if not path.is_file():
        pytest.skip(f"{path} not found (the shared data folder)")
    out = tmp_path / "converted.json"
    code, stdout, stderr = run("convert", "coco", path, "--benchmark", name, "--out", out)
    assert code == 0, stderr
    original, converted = read_ground_truth(path, name), read_ground_truth(out, name)
    assert list(converted.image_ids) == list(original.image_ids)  # string ids, as written
    for field in ("boxes", "areas", "ann_class", "iscrowd", "ignore"):
        assert np.array_equal(getattr(converted, field), getattr(original, field)), field
    assert converted.image_scenes == original.image_scenes
    if name == "flir-aligned":
        assert "note: " in stderr and "class 'bike' (id 2) read as FLIR-aligned's 'bicycle'" in stderr
    image = json.loads(out.read_text())["images"][0]
    frame = original.image_names[0]
    assert image["im_name"] == frame and frame in image["file_name"] and frame in image["lwir_file_name"]
    rng = np.random.default_rng(4)
    records = [
        {
            "image_id": original.image_ids.tolist()[i],
            "category_id": original.classes[c].id,
            "bbox": [
                float(box[0]) + rng.normal(0, 2),
                float(box[1]) + rng.normal(0, 2),
                float(box[2]) * rng.uniform(0.8, 1.2),
                float(box[3]) * rng.uniform(0.8, 1.2),
            ],
            "score": float(rng.random()),
        }
        for i, c, box in zip(original.ann_image, original.ann_class, original.boxes)
    ]
    scores = [coco_evaluate(gt, detections_from_coco(records, gt)).stats() for gt in (original, converted)]
    assert scores[0] == scores[1]


def test_synth_writes_each_benchmark_s_layout_at_its_size(tmp_path):
    code, stdout, stderr = run("synth", tmp_path / "llvip", "--benchmark", "llvip", "--train", 1, "--test", 1)
    assert code == 0, stderr
    assert stderr.startswith(f"wrote {tmp_path / 'llvip'}: 1 training and 1 test frames in LLVIP's layout at 1280x1024")
    with Image.open(next((tmp_path / "llvip" / "infrared" / "test").glob("*.jpg"))) as picture:
        assert picture.size == (1280, 1024)
    code, _, stderr = run(
        "synth", tmp_path / "flir", "--benchmark", "flir-aligned", "--train", 1, "--test", 2, "--size", "160x128"
    )
    assert code == 0 and "in FLIR-aligned's layout at 160x128" in stderr
    assert len((tmp_path / "flir" / "align" / "align_validation.txt").read_text().split()) == 2
    code, _, stderr = run("synth", tmp_path / "q", "--benchmark", "cvc-14", "--quirks")
    assert code == 2 and "--quirks" in stderr and not (tmp_path / "q").exists()


def test_stats_per_class_and_scene(sets, tmp_path):
    convert("cvc-14", sets / "cvc-14", tmp_path / "test.json", benchmark="cvc-14", split="test")
    convert("cvc-14", sets / "cvc-14", tmp_path / "train.json", benchmark="cvc-14", split="train")
    code, stdout, stderr = run(
        "stats",
        tmp_path / "train.json",
        tmp_path / "test.json",
        "--benchmark",
        "cvc-14",
        "--json",
        "--plot",
        tmp_path / "heights.png",
    )
    assert code == 0, stderr
    stats = json.loads(stdout[: stdout.rindex("]") + 1])
    for one, split in zip(stats, ("train", "test")):
        gt = read_benchmark("cvc-14", sets / "cvc-14", split)
        person = one["classes"]["person"]
        assert person["boxes"] == int((~gt.ignore).sum()) and person["ignored"] == int(gt.ignore.sum())
        assert one["images"] == gt.n_images
        assert person["height_quantiles"]["50%"] == pytest.approx(float(np.median(gt.boxes[~gt.ignore, 3])))
        assert sum(s["images"] for s in one["scenes"].values()) == gt.n_images
        assert one["scenes"]["night"]["images"] == sum(name.startswith("Night/") for name in gt.image_names)
    assert (tmp_path / "heights.png").read_bytes()[:4] == b"\x89PNG"
    if FLIR_TEST.is_file():
        code, stdout, _ = run("stats", FLIR_TEST, "--benchmark", "flir-aligned")
        assert code == 0 and "bicycle │   360" in stdout and "day   │    702" in stdout


def test_show_draws_both_pictures_with_classes_and_detections(sets, tmp_path):
    root = copy_of(sets, "flir-aligned", tmp_path)
    convert("voc", root, root / "test.json", benchmark="flir-aligned", split="test")
    gt = read_ground_truth(root / "test.json", "flir-aligned")
    records = [
        {
            "image_id": gt.image_ids.tolist()[i],
            "category_id": gt.classes[c].id,
            "bbox": [float(v) for v in box],
            "score": 0.9,
        }
        for i, c, box in zip(gt.ann_image, gt.ann_class, gt.boxes)
    ]
    (tmp_path / "mine_result.json").write_text(json.dumps(records))
    frame = gt.image_names[int(gt.ann_image[0])]
    code, stdout, stderr = run(
        "show",
        frame,
        "--gt",
        root / "test.json",
        "--benchmark",
        "flir-aligned",
        "--det",
        tmp_path / "mine_result.json",
        "--out",
        tmp_path / "frame.png",
    )
    assert code == 0, stderr
    assert stderr.strip() == f"{frame} drawn to {tmp_path / 'frame.png'}"
    with Image.open(tmp_path / "frame.png") as picture:
        assert picture.size[0] > 2 * 160
    code, _, stderr = run("show", "FLIR_00042", "--gt", root / "test.json", "--benchmark", "flir-aligned")
    assert code == 2 and "'FLIR_00042' is neither a frame nor an image id" in stderr
    code, _, stderr = run(
        "show",
        frame,
        "--gt",
        root / "test.json",
        "--benchmark",
        "flir-aligned",
        "--images",
        tmp_path / "nowhere",
        "--out",
        tmp_path / "x.png",
    )
    assert code == 2 and "no visible and thermal pictures of FLIR-aligned frame" in stderr


def test_show_cvc14_fir_frames_of_another_size_without_the_visible_boxes(sets, tmp_path):
    from kaist_kit.output.show import class_colours, pair_figure

    root = copy_of(sets, "cvc-14", tmp_path)
    convert("cvc-14", root, root / "test.json", benchmark="cvc-14", split="test")
    gt = read_ground_truth(root / "test.json", "cvc-14")
    k = int(gt.ann_image[0])
    frame = gt.image_names[k]
    period, stem = frame.split("/")
    fir = root / period / "FIR" / "NewTest" / "FramesPos" / f"{stem}.tif"
    Image.new("L", (100, 80), 90).save(fir)
    code, stdout, stderr = run(
        "show", frame, "--gt", root / "test.json", "--benchmark", "cvc-14", "--out", tmp_path / "frame.png"
    )
    assert code == 0, stderr
    visible = root / period / "Visible" / "NewTest" / "FramesPos" / f"{stem}.tif"
    truth = [(gt.boxes[b], "person", False) for b in np.flatnonzero(gt.ann_image == k)]
    figure = pair_figure(
        visible, fir, frame, truth, class_colours=class_colours(["person"]), modalities=("visible", "fir")
    )
    left, right = figure.axes[:2]
    assert len(left.patches) == len(truth) and not right.patches
    assert "100 x 80: no boxes" in right.get_title()
    assert [text.get_text() for text in figure.legends[0].get_texts()] == ["person (ground truth)"]


def test_check_data_reads_another_benchmark_s_files_and_pictures(sets, tmp_path):
    root = copy_of(sets, "flir-aligned", tmp_path)
    for split in ("train", "test"):
        convert("voc", root, root / "annotations" / f"{split}.json", benchmark="flir-aligned", split=split)
    code, stdout, stderr = run("check-data", root, "--benchmark", "flir-aligned")
    assert code == 0, stdout + stderr
    assert "with box" in stdout and "boxes" in stdout
    assert "pictures: 16 checked (320 x 256), all there and whole" in stdout  # 8 frames, both pictures
    thermal = root / "align" / "JPEGImages" / "FLIR_09001_PreviewData.jpeg"
    Image.new("RGB", (64, 64)).save(thermal)
    (root / "align" / "JPEGImages" / "FLIR_00001_RGB.jpg").unlink()
    code, stdout, stderr = run("check-data", root, "--benchmark", "flir-aligned")
    assert code == 2
    assert f"problem: 1 picture missing (first: {root / 'align' / 'JPEGImages' / 'FLIR_00001_RGB.jpg'})" in stdout
    assert f"{thermal}: 64 x 64, not the 320 x 256 of its annotations" in stdout
    code, _, stderr = run("check-data", sets / "llvip", "--benchmark", "llvip")
    assert code == 2 and "no annotation files" in stderr and "kaist-kit convert --benchmark llvip" in stderr
