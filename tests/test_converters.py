"""Converters: the real files reproduce the leaderboard's ground truth; odd input is survived and reported."""

import hashlib
import json
import subprocess
import sys
import tarfile

import pytest

from kaist_kit.converters import SOURCE_FORMATS, convert
from kaist_kit.data.groundtruth import ground_truth_from_coco
from kaist_kit.data.imagesets import read_image_list, standard_list
from kaist_kit.data.results import load_detections
from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.errors import InputError
from kaist_kit.metrics.evaluate import evaluate
from kaist_kit.metrics.settings import SETTINGS

LEADERBOARD_KEYS = ("images", "annotations", "categories")


def parsed(path):
    return json.loads(path.read_text())


def test_improved_bbgt_reproduces_the_leaderboard_ground_truth(kaist, tmp_path):
    out = tmp_path / "gt.json"
    result = convert(
        "improved", kaist / "test-improved-bbgt.tar.gz", out, image_set="test-all-20", compat="leaderboard"
    )
    assert (result.n_images, result.n_annotations) == (2252, 4254)
    assert result.labels == {"cyclist": 90, "people": 597, "person": 3390, "person?": 177}
    assert not result.problems.counts and not result.findings
    mine, theirs = parsed(out), parsed(kaist / "test-all-20.leaderboard.json")
    for key in LEADERBOARD_KEYS:
        assert mine[key] == theirs[key], key
    assert mine["info"]["source_format"] == "improved" and mine["info"]["image_set"] == "test-all-20"


def test_evaluation_on_converted_ground_truth_matches_the_original(kaist, leaderboard_gt, tmp_path):
    """The kit's layout numbers its boxes from 1: it scores as the leaderboard's file with its ids moved
    up by one, so that the leaderboard protocol finds the box the leaderboard's id 0 hides."""
    out = tmp_path / "gt.json"
    convert("improved", kaist / "test-improved-bbgt.tar.gz", out, image_set="test-all-20")  # kit layout
    converted = load_ground_truth(out)
    assert converted.ann_ids.min() == 1 and len(set(converted.ann_ids.tolist())) == len(converted.ann_ids)
    data = json.loads((kaist / "test-all-20.leaderboard.json").read_bytes())
    for ann in data["annotations"]:
        ann["id"] += 1
    from_1 = ground_truth_from_coco(data)
    for name in ("MBNet_result.txt", "MLPD_result.json"):
        for protocol in ("leaderboard", "matlab"):
            a, b, c = (
                evaluate(gt, load_detections(kaist / "results" / name, gt), SETTINGS, protocols=[protocol])
                for gt in (from_1, converted, leaderboard_gt)
            )
            assert [r.lamr for r in a] == [r.lamr for r in b], (name, protocol)
            if protocol == "leaderboard":  # the one box with id 0 changes what the leaderboard's file gives
                assert [r.lamr for r in b] != [r.lamr for r in c], name
            else:
                assert [r.lamr for r in b] == [r.lamr for r in c], name


@pytest.fixture(scope="module")
def xml_conversion(tmp_path_factory):
    from conftest import KAIST

    archive = KAIST / "annotations-xml-original.tar.gz"
    if not archive.is_file():
        pytest.skip(f"real KAIST files not found at {KAIST}")
    out = tmp_path_factory.mktemp("xml") / "all.json"
    lines = []
    result = convert("xml", archive, out, echo=lines.append)
    return result, out, lines, archive


def test_official_xml_tree_converts_whole(xml_conversion):
    result, out, lines, _ = xml_conversion
    assert result.n_images == 95324
    # The counts the dataset's format notes (../shared/docs/formats.md) give for the whole tree.
    assert result.labels == {"cyclist": 6538, "people": 14209, "person": 87297, "person?": 1585}
    assert dict(result.problems.counts) == {"stray file": 1} and not result.findings
    assert (
        len(lines) == 1
        and lines[0].startswith("note: ")
        and lines[0].endswith(
            "set01/V001/annotations-xml-new - 바로 가기.lnk: not an annotation file of this format, skipped"
        )
    )
    data = parsed(out)
    assert len(data["images"]) == 95324 and len(data["annotations"]) == result.n_annotations
    first = data["images"][0]
    assert first["im_name"] == "set00/V000/I00000" and first["period"] == "day"
    assert first["file_name"] == "set00/V000/visible/I00000.jpg"
    assert first["lwir_file_name"] == "set00/V000/lwir/I00000.jpg"
    assert [i["id"] for i in data["images"]] == list(range(95324))
    assert [a["id"] for a in data["annotations"]] == list(range(1, result.n_annotations + 1))


def test_official_xml_test_frames_hold_the_improved_labels(xml_conversion, kaist, tmp_path):
    _, _, _, archive = xml_conversion
    out = tmp_path / "test.json"
    convert("xml", archive, out, image_set="test-all-20", compat="leaderboard")
    mine, theirs = parsed(out), parsed(kaist / "test-all-20.leaderboard.json")
    for key in LEADERBOARD_KEYS:
        assert mine[key] == theirs[key], key


def test_standard_list_rule_reproduces_every_official_list(kaist):
    with tarfile.open(kaist / "annotations-xml-original.tar.gz") as archive:
        frames = [n.split("annotations-xml-new/")[1][:-4] for n in archive.getnames() if n.endswith(".xml")]
    for path in sorted((kaist / "imageSets").glob("*.txt")):
        if path.stem.endswith("-Seq"):
            continue
        assert standard_list(path.stem, frames) == read_image_list(path), path.stem


# Synthetic trees: every format, with the real dataset's defects.


@pytest.fixture(scope="module")
def quirky(tmp_path_factory):
    from kaist_kit.tools.synth import SynthConfig, generate

    root = tmp_path_factory.mktemp("synth") / "kaist"
    generate(root, SynthConfig(seed=3, train_frames=12, test_frames=8, width=160, height=128, quirks=True))
    return root


def test_every_format_of_the_synthetic_tree(quirky, tmp_path):
    size = (160, 128)
    original = convert("original", quirky / "annotations", tmp_path / "o.json", image_size=size)
    xml = convert("xml", quirky / "annotations-xml-new", tmp_path / "x.json")
    assert original.n_images == xml.n_images == 20
    o, x = parsed(tmp_path / "o.json"), parsed(tmp_path / "x.json")
    strip = lambda anns: [{k: a[k] for k in ("image_id", "bbox", "label", "occlusion")} for a in anns]  # noqa: E731
    assert strip(o["annotations"]) == strip(x["annotations"])
    assert o["images"] == x["images"]
    assert dict(xml.problems.counts) == {"stray file": 1}
    assert not original.problems.counts  # CRLF files read like the others

    sanitized = convert("sanitized", quirky / "annotations-sanitized", tmp_path / "s.json", image_size=size)
    assert sanitized.problems.counts["zero-size box"] == 3 and sanitized.problems.failing == 3
    assert "person?" not in sanitized.labels  # the sanitized set's own label
    improved = convert(
        "improved", quirky / "annotations-improved", tmp_path / "i.json", image_size=size, image_set="test-all-20"
    )
    assert improved.n_images == 8 and improved.image_set == "test-all-20"


def test_paired_keeps_both_boxes_and_reports_disagreeing_files(quirky, tmp_path):
    lines = []
    result = convert(
        "paired", quirky / "annotations-paired", tmp_path / "p.json", image_size=(160, 128), echo=lines.append
    )
    assert result.problems.counts == {"pair count mismatch": 1}
    assert result.n_images == 11  # 12 training frames, one left out
    assert any("set00/V000/lwir/I00003.txt: " in line and "frame left out" in line for line in lines)
    data = parsed(tmp_path / "p.json")
    assert data["info"]["reference_modality"] == "lwir"
    for ann in data["annotations"]:
        assert ann["bbox"] == ann["bbox_lwir"]
        dx = ann["bbox_lwir"][0] - ann["bbox_visible"][0]
        assert abs(dx) <= 2 and ann["bbox_lwir"][2:] == ann["bbox_visible"][2:]
        if "unpaired" in (ann["label_visible"], ann["label_lwir"]):
            assert ann["ignore"] == 1
    visible = convert("paired", quirky / "annotations-paired", tmp_path / "v.json", reference="visible")
    assert all(a["bbox"] == a["bbox_visible"] for a in parsed(tmp_path / "v.json")["annotations"])
    assert visible.info["reference_modality"] == "visible"


def test_problems_reported_are_those_the_format_declares(quirky, tmp_path):
    sources = {
        "original": "annotations",
        "xml": "annotations-xml-new",
        "sanitized": "annotations-sanitized",
        "paired": "annotations-paired",
        "improved": "annotations-improved",
    }
    assert set(sources) == set(SOURCE_FORMATS)
    seen = set()
    for name, folder in sources.items():
        result = convert(name, quirky / folder, None, image_set="train-all-02" if name != "improved" else None)
        assert set(result.problems.counts) <= SOURCE_FORMATS[name].problems, name
        assert not result.findings, name
        seen |= set(result.problems.counts)
    assert {"stray file", "zero-size box", "pair count mismatch"} <= seen


def test_object_columns_round_trip():
    from kaist_kit.converters.records import AnnotatedObject, ObjectColumns

    rows = [
        (3, AnnotatedObject("person", 1, 2, 30, 60, 1, (1, 2, 30, 40))),
        (3, AnnotatedObject("people", 5.5, 6, 7, 8, ign=1)),
        (9, AnnotatedObject("cyclist", 1, 2, 3, 4, paired={"label_lwir": "cyclist"})),
    ]
    columns = ObjectColumns.of(rows)
    assert columns.image_id == [3, 3, 9] and columns.label == ["person", "people", "cyclist"]
    assert columns.visible == [(1, 2, 30, 40), None, None] and columns.ign == [0, 1, 0]
    assert columns.rows() == rows
    assert ObjectColumns.of([]) == ObjectColumns.empty() and ObjectColumns.empty().rows() == []


def test_strict_writes_nothing_and_keeps_an_existing_file(quirky, tmp_path):
    out = tmp_path / "s.json"
    out.write_text("keep me")
    with pytest.raises(InputError, match="--strict: 3 zero-size boxes; nothing written"):
        convert("sanitized", quirky / "annotations-sanitized", out, strict=True)
    assert out.read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]
    convert("xml", quirky / "annotations-xml-new", out, strict=True)  # a stray file is only a note
    assert parsed(out)["images"]


def bbgt(*lines, header="% bbGt version=3"):
    return "\n".join([header, *lines]) + "\n"


def write_flat(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def test_bad_bbgt_lines_leave_their_frame_out_with_file_and_line(tmp_path):
    folder = write_flat(
        tmp_path / "ann",
        {
            "set06_V000_I00019.txt": bbgt("person 1 2 30 60 0 0 0 0 0 0 0", "person 1 2 30"),
            "set06_V000_I00039.txt": bbgt("person 1 2 x 60 0 0 0 0 0 0 0"),
            "set06_V000_I00059.txt": bbgt("person 1 2 30 60 5 0 0 0 0 0 0"),
            "set06_V000_I00079.txt": bbgt("person 1 2 nan 60 0 0 0 0 0 0 0"),
            "set06_V000_I00099.txt": bbgt("alien 1 2 30 60 0 0 0 0 0 0 0", "person 5 6 -3 60 0 0 0 0 0 0 0"),
            "set06_V000_I00119.txt": bbgt(),
            "set06_V000_I00139.txt": "person 1 2 30 60 0 0 0 0 0 0 0\n",
            "set06_V000_I00159.txt": bbgt("person 1 2 30 60", header="% bbGt version=0"),
            "set06_V000_I00179.txt": bbgt("person 1 2 30 60 1 1 2 30 40 0", header="% bbGt version=2"),
        },
    )
    lines = []
    result = convert("improved", folder, tmp_path / "gt.json", echo=lines.append)
    text = "\n".join(lines)
    assert f"{folder}/set06_V000_I00019.txt:3: expected a label and 11 numbers" in text
    assert f"{folder}/set06_V000_I00039.txt:2: 'x' is not a number" in text
    assert f"{folder}/set06_V000_I00059.txt:2: occlusion 5 is not 0, 1 or 2" in text
    assert f"{folder}/set06_V000_I00079.txt:2: non-finite number" in text
    assert f"{folder}/set06_V000_I00099.txt:2: label 'alien' kept as an ignore region" in text
    assert f"{folder}/set06_V000_I00099.txt:3: negative-size box person 5 6 -3 60 skipped" in text
    assert f"{folder}/set06_V000_I00139.txt:1: no '% bbGt version=N' header" in text
    assert result.n_images == 5  # four frames left out
    data = parsed(tmp_path / "gt.json")
    names = [i["im_name"] for i in data["images"]]
    assert names == [
        "set06/V000/I00099",
        "set06/V000/I00119",
        "set06/V000/I00139",
        "set06/V000/I00159",
        "set06/V000/I00179",
    ]
    # Ids follow the frame list; a frame left out leaves its id unused.
    assert [i["id"] for i in data["images"]] == [4, 5, 6, 7, 8]
    alien = data["annotations"][0]
    assert alien["label"] == "alien" and alien["ignore"] == 1 and alien["category_id"] == 0
    versions = {a["image_id"]: a for a in data["annotations"]}
    assert versions[7]["bbox"] == [1, 2, 30, 60] and versions[7]["occlusion"] == 0
    assert versions[8]["occlusion"] == 1 and versions[8]["vis_bbox"] == [1, 2, 30, 40]


XML = """<annotation>
  <size><width>640</width><height>512</height></size>
  {objects}
</annotation>
"""
OBJECT = (
    "<object><name>{name}</name><bndbox><x>{x}</x><y>20</y><w>30</w><h>60</h></bndbox><occlusion>1</occlusion></object>"
)


def test_odd_xml_files_fall_back_to_a_full_parser(tmp_path):
    regular = XML.format(objects=OBJECT.format(name="person", x=10) + OBJECT.format(name="people", x=50))
    reordered = XML.format(
        objects="<object><occlusion>1</occlusion><bndbox><h>60</h><w>30</w><y>20</y>"
        "<x>10</x></bndbox><name> person </name></object>"
    )
    truncated = regular[: regular.index("<name>people")]
    files = {
        "set06/V000/I00019.xml": regular,
        "set06/V000/I00039.xml": reordered,
        "set06/V000/I00059.xml": truncated,
        "set06/V000/I00079.xml": XML.format(objects=""),
    }
    for rel, text in files.items():
        (tmp_path / "xml" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "xml" / rel).write_text(text)
    lines = []
    result = convert("xml", tmp_path / "xml", tmp_path / "gt.json", echo=lines.append)
    assert result.n_images == 3
    assert len(lines) == 1 and "set06/V000/I00059.xml:3: invalid XML" in lines[0]
    data = parsed(tmp_path / "gt.json")
    by_image = {}
    for a in data["annotations"]:
        by_image.setdefault(a["image_id"], []).append((a["label"], a["bbox"], a["occlusion"]))
    assert by_image[0] == [("person", [10, 20, 30, 60], 1), ("people", [50, 20, 30, 60], 1)]
    assert by_image[1] == [("person", [10, 20, 30, 60], 1)]
    assert 3 not in by_image and [i["id"] for i in data["images"]] == [0, 1, 3]


def test_image_ids_follow_the_list_order(tmp_path):
    folder = write_flat(tmp_path / "ann", {f"set06_V000_I{n:05d}.txt": bbgt() for n in (19, 39, 59)})
    listing = tmp_path / "mine.txt"
    listing.write_bytes(b"set06/V000/I00059\r\nset06/V000/I00019\r\nset06/V000/I00099\r\n")
    lines = []
    result = convert("improved", folder, tmp_path / "gt.json", image_set=str(listing), echo=lines.append)
    assert [i["im_name"] for i in parsed(tmp_path / "gt.json")["images"]] == ["set06/V000/I00059", "set06/V000/I00019"]
    assert result.problems.counts == {"no annotation file": 1} and result.problems.failing == 0
    assert lines[0].startswith("note: ") and "1 frames of mine have no annotation file" in lines[0]


def test_content_hash_follows_the_inputs(tmp_path):
    folder = write_flat(tmp_path / "ann", {"set06_V000_I00019.txt": bbgt("person 1 2 30 60 0 0 0 0 0 0 0")})
    first = convert("improved", folder, None).info["inputs_sha256"]
    assert convert("improved", folder, None).info["inputs_sha256"] == first
    (folder / "set06_V000_I00019.txt").write_text(bbgt("person 1 2 30 61 0 0 0 0 0 0 0"))
    second = convert("improved", folder, None).info["inputs_sha256"]
    assert second != first
    content = (folder / "set06_V000_I00019.txt").read_bytes()
    assert second == hashlib.sha256(b"set06_V000_I00019.txt\0" + hashlib.sha256(content).digest()).hexdigest()


def test_parallel_and_single_process_outputs_are_identical(quirky, tmp_path, monkeypatch):
    import kaist_kit.converters.engine as engine

    monkeypatch.setattr(engine, "PARALLEL_FROM", 1)
    parallel = convert("xml", quirky / "annotations-xml-new", None, workers=2)  # streamed as walked
    single = convert("xml", quirky / "annotations-xml-new", None, workers=1)
    assert parallel.text == single.text
    assert parallel.problems.records == single.problems.records
    # Frames that the walk meets out of name order are planned first, with the same result.
    write_flat(tmp_path / "flat" / "a", {"set06_V000_I00039.txt": bbgt("person 1 2 30 60 0 0 0 0 0 0 0")})
    write_flat(tmp_path / "flat" / "b", {"set06_V000_I00019.txt": bbgt("person 5 6 30 60 0 0 0 0 0 0 0")})
    streamed = convert("improved", tmp_path / "flat", None, workers=2)
    planned = convert("improved", tmp_path / "flat", None, workers=1)
    assert streamed.text == planned.text
    assert [i["im_name"] for i in json.loads(streamed.text)["images"]] == ["set06/V000/I00019", "set06/V000/I00039"]


def test_cli_convert_errors(tmp_path, quirky):
    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "kaist_kit", "convert", *map(str, args)], capture_output=True, text=True
        )

    proc = run("sanitized", quirky / "annotations-sanitized", "--out", tmp_path / "s.json", "--strict")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("error: ") and not (tmp_path / "s.json").exists()
    proc = run("xml", tmp_path / "nowhere", "--out", tmp_path / "x.json")
    assert proc.returncode == 2 and "no such file or folder" in proc.stderr
    proc = run("xml", quirky / "annotations", "--out", tmp_path / "x.json")
    assert proc.returncode == 2 and "no xml annotation files found" in proc.stderr
    proc = run("improved", quirky / "annotations-improved", "--out", tmp_path / "i.json", "--image-set", "test-all-20")
    assert proc.returncode == 0 and "8 images of test-all-20" in proc.stderr
