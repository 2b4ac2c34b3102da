"""`kaist-kit check-data`: picture sizes read from headers as a decoder reads them, cut-short pictures
found without decoding, missing pictures and annotation files named with the way to make them, files
that are not the named set they say, and the same check stopping `kaist-kit train`."""

import io
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from kaist_kit.io.pictures import read_header
from kaist_kit.tools.datacheck import DatasetFiles, check_data, claimed_set, recognise
from kaist_kit.trainsets.lists import named_list


def _run(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True, **kwargs
    )


def _one_line_error(proc) -> str:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    width=st.integers(1, 700),
    height=st.integers(1, 600),
    kind=st.sampled_from(["JPEG", "JPEG-progressive", "JPEG-exif", "JPEG-grey", "PNG", "PNG-grey"]),
    cut=st.integers(1, 200),
)
def test_a_header_gives_the_size_a_decoder_gives_and_a_cut_picture_is_found(tmp_path_factory, width, height, kind, cut):
    pixels = (np.random.default_rng(width * 1000 + height).random((height, width, 3)) * 255).astype(np.uint8)
    picture = Image.fromarray(pixels)
    if kind.endswith("grey"):
        picture = picture.convert("L")
    options = {"JPEG-progressive": dict(progressive=True), "JPEG-exif": dict(exif=b"Exif\x00\x00" + bytes(3000))}
    buffer = io.BytesIO()
    picture.save(buffer, format=kind.split("-")[0], **options.get(kind, {}))
    data = buffer.getvalue()
    path = tmp_path_factory.mktemp("pictures") / "picture"
    path.write_bytes(data)
    header = read_header(path)
    with Image.open(path) as decoded:
        assert (header.width, header.height) == decoded.size
    assert header.problem is None and header.kind == kind.split("-")[0].lower()
    path.write_bytes(data[: max(1, len(data) - cut)])  # cut short
    assert read_header(path).problem is not None


def test_what_is_not_a_picture_is_said(tmp_path):
    for content, said in [
        (b"", "empty file"),
        (b"GIF89a....", "neither a JPEG nor a PNG"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "ends before its frame header"),
        (b"\xff\xd8" + bytes(12), "broken at byte 2"),
        (b"\x89PNG\r\n\x1a\n\x00", "without its IHDR"),
    ]:
        path = tmp_path / "p"
        path.write_bytes(content)
        assert said in read_header(path).problem
    assert read_header(tmp_path / "nothing.jpg").problem == "missing"
    os.mkfifo(tmp_path / "pipe.jpg")  # read without waiting for a writer
    assert read_header(tmp_path / "pipe.jpg").problem == "not a regular file"
    assert read_header(tmp_path).problem == "not a regular file"


@pytest.fixture
def synth_root(tiny_synth, tmp_path):
    """A copy of the tiny synthetic KAIST to break."""
    root = tmp_path / "kaist-synth"
    shutil.copytree(tiny_synth, root)
    return root


def test_a_whole_data_root_passes_with_a_summary(synth_root):
    check = check_data(
        synth_root,
        [
            DatasetFiles("train", synth_root / "train.json", synth_root / "images"),
            DatasetFiles("test", synth_root / "test.json", synth_root / "images"),
        ],
    )
    assert check.ok and not check.missing and not check.broken
    train = check.annotations[0]
    data = json.loads((synth_root / "train.json").read_text())
    assert train.images == len(data["images"]) and train.day + train.night == train.images
    assert train.pedestrians == sum(1 for a in data["annotations"] if not a["ignore"])
    assert check.pictures == 2 * (
        len(data["images"]) + len(json.loads((synth_root / "test.json").read_text())["images"])
    )
    assert check.sizes == {(160, 128): check.pictures} and check.decoded > 0


def test_missing_cut_and_wrong_size_pictures_stop_it_naming_the_first(synth_root):
    lwir = synth_root / "images" / "set00" / "V000" / "lwir"
    first = sorted(lwir.glob("*.jpg"))[0]
    first.unlink()
    proc = _run("check-data", synth_root)
    line = _one_line_error(proc)
    assert f"1 picture of 1 frame missing (first: {first})" in line
    assert "annotations" in proc.stdout and "train.json" in proc.stdout  # the summary came first
    shutil.copy(sorted(lwir.glob("*.jpg"))[1], first)
    second = sorted(lwir.glob("*.jpg"))[1]
    second.write_bytes(second.read_bytes()[:-100])
    assert f"unusable (first: {second}: a JPEG picture without its end-of-image marker" in _one_line_error(
        _run("check-data", synth_root)
    )
    Image.new("RGB", (640, 512)).save(second)
    line = _one_line_error(_run("check-data", synth_root))
    assert f"{second}: 640 x 512, not the 160 x 128 of its annotations" in line


def test_a_missing_annotation_file_says_how_to_make_it(synth_root, tmp_path):
    """The README's training block without its convert steps: the error names the command."""
    pytest.importorskip("mmdet", reason="kaist-kit train needs the mmdet extra (mmdetection)")
    from models_helpers import CONFIGS

    (synth_root / "train.json").unlink()
    config = CONFIGS / "retinanet_r18_fpn_halfway-fusion_synth.py"
    line = _one_line_error(
        _run("train", config, "--cfg-options", f"data_root={synth_root}", "--work-dir", tmp_path / "work")
    )
    assert line == (
        f"error: {synth_root}/train.json: no such annotation file; make it with: kaist-kit convert "
        f"sanitized {synth_root}/annotations-sanitized --out {synth_root}/train.json --image-size 320x256"
    )
    assert not (tmp_path / "work").exists()  # stopped before anything was built
    proc = _run("check-data", synth_root, config)
    assert _one_line_error(proc) == line


def test_a_file_named_as_a_set_must_hold_that_set(tmp_path):
    frames = list(named_list("val-02"))
    (tmp_path / "annotations").mkdir()
    images = [
        {"id": k, "im_name": f, "width": 640, "height": 512} for k, f in enumerate(frames + ["set00/V000/I00001"])
    ]
    path = tmp_path / "annotations" / "val-02.json"
    path.write_text(json.dumps({"images": images, "annotations": []}))
    assert claimed_set(path) == "val-02" and recognise(frames) == "val-02"
    check = check_data(tmp_path, decode=0)
    assert check.annotations[0].recognised is None
    assert any(
        "holds 2,533 frames, not val-02's 2,532: 1 frames not in it (first: set00/V000/I00001)" in p
        and "make it with: kaist-kit trainset val-02" in p
        for p in check.problems
    )


def test_training_and_validation_on_test_frames_or_shared_videos_are_warned_of(synth_root):
    check = check_data(
        synth_root,
        [
            DatasetFiles("train", synth_root / "train.json", synth_root / "images"),
            DatasetFiles("val", synth_root / "test.json", synth_root / "images"),
        ],
    )
    assert any("the val annotations hold" in w and "of the test sets set06-11" in w for w in check.warnings)
    check = check_data(
        synth_root,
        [
            DatasetFiles("train", synth_root / "train.json", synth_root / "images"),
            DatasetFiles("val", synth_root / "val.json", synth_root / "images"),
        ],
    )
    assert any("training and validation share 1 video (set03/V000)" in w for w in check.warnings)


def test_the_bare_tree_is_checked_in_pairs(synth_root):
    for path in synth_root.glob("*.json"):
        path.unlink()
    check = check_data(synth_root)
    assert check.ok and check.pictures == 2 * len(list((synth_root / "images").rglob("visible/*.jpg")))
    os.unlink(next((synth_root / "images").rglob("visible/*.jpg")))
    assert not check_data(synth_root).ok
