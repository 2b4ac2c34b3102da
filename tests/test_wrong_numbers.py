"""Numbers and verdicts that came out wrong with exit code 0: a check that decoded one picture many times,
an XML object with two boxes read as its first, a VOC area of Infinity, fractional VOC coordinates read by
another rule than the conversions the docs cite, another benchmark's file counted as the one named, and
options that meant nothing without a word."""

import json
import shutil
import subprocess
import sys

import pytest

from kaist_kit.converters import convert
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark
from kaist_kit.datasets.voc import parse_voc
from kaist_kit.errors import InputError
from kaist_kit.tools.datacheck import DatasetFiles, check_data
from kaist_kit.trainsets.lists import named_list


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True, cwd=cwd)


def _one_line_error(proc) -> str:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


# --- check-data's sample -------------------------------------------------------------------------


def test_a_sample_larger_than_the_pictures_decodes_each_once(tiny_synth, tmp_path):
    """32 pictures, 64 asked for: each decoded once, the last one too, which does not decode."""
    root = tmp_path / "root"
    shutil.copytree(tiny_synth, root)
    datasets = [
        DatasetFiles("train", root / "train.json", root / "images"),
        DatasetFiles("test", root / "test.json", root / "images"),
    ]
    last = json.loads((root / "test.json").read_text())["images"][-1]["lwir_file_name"]
    picture = root / "images" / last
    data = picture.read_bytes()
    picture.write_bytes(data[: data.find(b"\xff\xda")] + b"\xff\xd9")  # a header and an end, no image data
    check = check_data(root, datasets, decode=64)
    assert check.decoded == check.pictures == 32
    assert [path for path, _ in check.broken] == [str(picture)]  # found, and counted once
    assert not check.ok and "1 picture unusable" in check.problems[0]
    assert check.not_decoded == 1
    picture.write_bytes(data)
    whole = check_data(root, datasets, decode=5)
    assert whole.ok and whole.decoded == 5 and whole.not_decoded == 0


# --- an XML object with two boxes ------------------------------------------------------------------

_XML = (
    "<annotation><filename>{name}</filename><size><width>640</width><height>512</height></size>{objects}</annotation>\n"
)
_OBJECT = "<object><name>person</name>{boxes}<occlusion>0</occlusion></object>"
_BOX = "<bndbox><x>{x}</x><y>100</y><w>20</w><h>50</h></bndbox>"


def _xml_tree(root, frames, doubled: str):
    for frame in frames:
        set_name, video, stem = frame.split("/")
        boxes = _BOX.format(x=100) + (_BOX.format(x=300) if frame == doubled else "")
        path = root / set_name / video / f"{stem}.xml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_XML.format(name=stem, objects=_OBJECT.format(boxes=boxes)))


def test_an_object_with_two_boxes_is_refused_by_convert_and_trainset(tmp_path):
    frames = named_list("train-all-20")
    doubled = frames[7]
    source = tmp_path / "annotations-xml-new"
    _xml_tree(source, frames, doubled)
    lines = []
    result = convert("xml", source, tmp_path / "all.json", image_set="train-all-20", echo=lines.append)
    assert result.n_images == len(frames) - 1  # the frame is left out, said with its file
    path = source / f"{doubled}.xml"
    assert any(line.startswith(f"problem: {path}: object 1 has 2 <bndbox> elements") for line in lines), lines
    with pytest.raises(InputError, match="--strict: .*malformed file"):
        convert("xml", source, tmp_path / "strict.json", image_set="train-all-20", strict=True)
    assert not (tmp_path / "strict.json").exists()
    out = tmp_path / "train-all-20.json"
    line = _one_line_error(_run("trainset", "train-all-20", "--annotations", source, "--out", out))
    assert f"first: {doubled}" in line and not out.exists()


# --- VOC: areas and fractional coordinates -----------------------------------------------------------


def _voc(xmin, ymin, xmax, ymax, name="person") -> bytes:
    return (
        f"<annotation><filename>x.jpg</filename><size><width>640</width><height>512</height></size>"
        f"<object><name>{name}</name><bndbox><xmin>{xmin}</xmin><ymin>{ymin}</ymin><xmax>{xmax}</xmax>"
        f"<ymax>{ymax}</ymax></bndbox></object></annotation>"
    ).encode()


def test_fractional_coordinates_by_the_rule_of_the_conversions_cited():
    """pascal: ganlumomo/voc2coco's int(float(text)) - 1 for xmin and ymin, int(float(text)) for xmax
    and ymax; as-written: LLVIP's converters read int(text), which refuses a fraction."""
    [obj] = parse_voc(_voc("10.7", "20.2", "30.9", "60.5")).objects
    assert obj.box("pascal") == (9, 19, 21, 41)  # not (9.7, 19.2, 21.2, 41.3)
    [whole] = parse_voc(_voc("10", "20", "30", "60")).objects
    assert whole.box("pascal") == (9, 19, 21, 41) and whole.box("as-written") == (10, 20, 20, 40)
    with pytest.raises(ValueError, match="bndbox/xmin '10.7' of the person box is not an integer"):
        obj.box("as-written")
    [negative] = parse_voc(_voc("-0.5", "0", "3.5", "4")).objects
    assert negative.box("pascal") == (-1, -1, 4, 5)  # int() cuts towards zero


@pytest.fixture(scope="module")
def voc_sets(tmp_path_factory):
    root = tmp_path_factory.mktemp("voc-sets")
    for name in ("llvip", "flir-aligned"):
        generate_benchmark(name, root / name, BenchmarkSynthConfig(seed=3, train_frames=1, test_frames=3))
    return root


def test_convert_voc_refuses_an_infinite_area_and_writes_valid_json(voc_sets, tmp_path):
    root = tmp_path / "llvip"
    shutil.copytree(voc_sets / "llvip", root)
    first = sorted((root / "Annotations").glob("19*.xml"))[0]
    first.write_bytes(_voc("0", "0", "1e308", "1e308"))
    out = tmp_path / "llvip.json"
    proc = _run("convert", "voc", root, "--benchmark", "llvip", "--split", "test", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert f"problem: {first}: object 1 (person) is too large: its area is beyond any number" in proc.stderr
    data = json.loads(out.read_text(), parse_constant=lambda name: pytest.fail(f"{name} in the output"))
    assert len(data["images"]) == 2
    assert _run("stats", out, "--benchmark", "llvip").returncode == 0  # the kit reads its own file back
    first.write_bytes(_voc("10.5", "0", "20", "30"))
    proc = _run("convert", "voc", root, "--benchmark", "llvip", "--split", "test", "--out", out, "--strict")
    assert "--strict: 1 malformed file; nothing written" in _one_line_error(proc)
    assert f"problem: {first}: bndbox/xmin '10.5' of the person box is not an integer" in proc.stderr


def test_fractional_pascal_coordinates_convert_as_voc2coco_reads_them(voc_sets, tmp_path):
    root = tmp_path / "flir"
    shutil.copytree(voc_sets / "flir-aligned", root)
    first = sorted(root.rglob("*.xml"))[0]
    text = first.read_text()
    start, end = text.index("<xmin>") + 6, text.index("</xmin>")
    xmin = int(text[start:end])
    first.write_text(text[:start] + f"{xmin}.75" + text[end:])
    converted = convert("voc", root, tmp_path / "f.json", benchmark="flir-aligned")
    boxes = [a["bbox"] for a in json.loads((tmp_path / "f.json").read_text())["annotations"]]
    assert converted.n_annotations == len(boxes)
    assert all(float(v).is_integer() for box in boxes for v in box)  # no 0.75 anywhere


# --- stats and the benchmark named ---------------------------------------------------------------


def test_stats_refuses_another_benchmark_s_file_as_eval_does(tmp_path):
    flir = pytest.importorskip("bench_cases").FLIR_TEST
    if not flir.is_file():
        pytest.skip(f"{flir} not found (the shared data folder)")
    stats = _one_line_error(_run("stats", flir, "--benchmark", "m3fd"))
    evaluated = _one_line_error(_run("eval", flir, "--gt", flir, "--benchmark", "m3fd"))
    assert "the ground truth is FLIR-aligned's" in stats and "not M3FD's" in stats
    assert stats.split(": ", 2)[2] == evaluated.split(": ", 2)[2]


# --- options that meant nothing ------------------------------------------------------------------


def test_id_offset_on_a_per_image_folder_is_refused(tmp_path):
    gt = {
        "images": [{"id": 0, "im_name": "set06/V000/I00019"}],
        "annotations": [{"id": 1, "image_id": 0, "category_id": 1, "bbox": [10, 10, 20, 50]}],
    }
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    folder = tmp_path / "result"
    folder.mkdir()
    (folder / "set06_V000_I00019.txt").write_text("person 10 10 30 60 0.9\n")
    assert _run("eval", folder, "--gt", tmp_path / "gt.json").returncode == 0
    line = _one_line_error(_run("eval", folder, "--gt", tmp_path / "gt.json", "--id-offset", "2"))
    assert "--id-offset moves the image ids of COCO and txt results" in line and str(folder) in line


def test_an_empty_image_set_or_split_is_refused(tiny_synth, tmp_path):
    source = tiny_synth / "annotations-improved"
    line = _one_line_error(_run("convert", "improved", source, "--image-set", "", "--out", tmp_path / "a.json"))
    assert "--image-set '' names nothing" in line
    line = _one_line_error(
        _run("convert", "voc", source, "--benchmark", "llvip", "--split", " ", "--out", tmp_path / "b.json")
    )
    assert "--split ' ' names nothing" in line
    assert not list(tmp_path.iterdir())


def test_a_bbgt_box_whose_area_overflows_leaves_its_frame_out(tmp_path):
    source = tmp_path / "bbgt"
    source.mkdir()
    header = "% bbGt version=3\n"
    (source / "set06_V000_I00019.txt").write_text(header + "person 0 0 1e200 1e200 0 0 0 0 0 0 0\n")
    (source / "set06_V000_I00039.txt").write_text(header + "person 10 10 20 50 0 0 0 0 0 0 0\n")
    lines = []
    result = convert("improved", source, tmp_path / "out.json", echo=lines.append)
    assert result.n_images == 1 and any("too large: its area is beyond any number" in line for line in lines)
    json.loads((tmp_path / "out.json").read_text(), parse_constant=lambda name: pytest.fail(name))
