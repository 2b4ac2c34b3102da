"""Bad input on the other benchmarks' paths of eval, compare, diagnose, submit and fetch: one line on
standard error naming the file (and its line where it has one), exit code 2, no traceback, nothing on
standard output and nothing written."""

import json

import pytest
from test_benchmark_scoring import FLIR_TEST, generated_detections, real, write_json
from test_inputs import run_cli

from kaist_kit.data.groundtruth import read_ground_truth
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark


def one_line_error(proc, *parts):
    """Exit code 2, nothing on stdout, and one error line holding every part (after the line that
    says which benchmark was taken, where there is one)."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if not line.startswith(("benchmark: ", "note: "))]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for part in parts:
        assert str(part) in lines[0], (part, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def flir(tmp_path_factory):
    gt = real(FLIR_TEST)
    folder = tmp_path_factory.mktemp("bad-flir")
    records = generated_detections(read_ground_truth(gt, "flir-aligned"), background=0)[:40]
    return gt, records, folder


def indented(path, data):
    """JSON with one value a line, so that a record's line is its own."""
    path.write_text(json.dumps(data, indent=1))
    return path


def doctored(records, k, **changes):
    made = [dict(r) for r in records]
    made[k].update(changes)
    for key, value in changes.items():
        if value is None:
            del made[k][key]
    return made


@pytest.mark.parametrize(
    "change, message",
    [
        ({"category_id": None}, "detection without 'category_id'"),
        ({"bbox": [1, 2, 3]}, "bbox must be a list of 4 numbers"),
        ({"image_id": "FLIR_99999.jpeg_RGB"}, "is not in the ground truth"),
        ({"image_id": 5}, "the ground truth's ids are strings"),
    ],
)
@pytest.mark.parametrize("verb", ["eval", "compare", "diagnose", "submit"])
def test_a_bad_detection_names_its_file_and_line(flir, verb, change, message):
    gt, records, folder = flir
    bad = indented(folder / f"bad-{verb}-{sorted(change)[0]}.json", doctored(records, 3, **change))
    good = write_json(folder / "good.json", records)
    args = {
        "eval": ["eval", bad],
        "compare": ["compare", good, bad],
        "diagnose": ["diagnose", bad],
        "submit": ["submit", bad, "--check"],
    }[verb]
    line = one_line_error(run_cli(*args, "--gt", gt), message)
    # the line of the fourth record, not the first of the file
    assert line.startswith(f"error: {bad}:") and f"{bad}:1:" not in line


def test_a_truncated_result(flir):
    gt, records, folder = flir
    cut = folder / "cut.json"
    cut.write_text(json.dumps(records)[:-30])
    one_line_error(run_cli("eval", cut, "--gt", gt), f"{cut}:1: truncated JSON")


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d["annotations"][5].update(bbox=[1, 2, 3]),
            "annotation bbox [1, 2, 3] is not a list of four numbers",
        ),
        (lambda d: d["images"][3].update(id=None), "image without an 'id'"),
    ],
)
def test_a_bad_ground_truth_names_its_file_and_line(flir, change, message):
    gt, records, folder = flir
    data = json.loads(gt.read_text())
    change(data)
    bad = indented(folder / "bad-gt.json", data)
    dets = write_json(folder / "dets.json", records)
    for named in ([], ["--benchmark", "flir-aligned"]):
        line = one_line_error(run_cli("eval", dets, "--gt", bad, *named), message)
        assert line.startswith(f"error: {bad}:") and f"{bad}:1:" not in line


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    made = {}
    for name in ("llvip", "cvc-14"):
        root = tmp_path_factory.mktemp(f"bad-{name}") / name
        generate_benchmark(name, root, BenchmarkSynthConfig(seed=5, train_frames=1, test_frames=3))
        made[name] = root
    return made


def test_a_bad_line_of_a_cvc14_annotation_file(folders, tmp_path):
    root = folders["cvc-14"]
    annotation = sorted((root / "Day" / "Visible" / "NewTest" / "Annotations").glob("*.txt"))[0]
    lines = annotation.read_text().splitlines()
    annotation.write_text("\n".join([*lines, "10 20 abc 40 1 0 0 0 0 5 0"]) + "\n")
    dets = write_json(tmp_path / "dets.json", [])
    one_line_error(
        run_cli("eval", dets, "--gt", root, "--benchmark", "cvc-14"), f"{annotation}:{len(lines) + 1}:", "not a number"
    )


def test_a_broken_llvip_xml_file(folders, tmp_path):
    root = folders["llvip"]
    xml = sorted((root / "Annotations").glob("*.xml"))[-1]
    xml.write_text("<annotation><object>\n")
    dets = write_json(tmp_path / "dets.json", [])
    one_line_error(run_cli("eval", dets, "--gt", root, "--benchmark", "llvip"), f"{xml}:2: invalid XML")


def test_options_that_do_not_apply(flir, folders, tmp_path):
    gt, records, folder = flir
    dets = write_json(folder / "dets.json", records)
    cases = [
        (["--gt", folders["llvip"]], "a folder: name the benchmark whose layout it is"),
        (["--gt", gt, "--benchmark", "llvip"], "the ground truth is FLIR-aligned's"),
        (["--gt", gt, "--origin", "corner"], "--origin applies to CVC-14's annotation files"),
        (["--gt", gt, "--protocol", "ms-detr"], "--protocol ms-detr: FLIR-aligned is scored by coco"),
        (["--gt", gt, "--metric", "lamr"], "--metric lamr: the protocols asked for (coco) compute"),
        (["--gt", gt, "--split", "dusk"], "no image of the ground truth is in the split 'dusk'"),
        (["--gt", gt, "--setting", "reasonable"], "--setting applies to the miss rate"),
        (["--gt", gt, "--plot", tmp_path / "f.png"], "--plot: applies to KAIST's scoring"),
        (["--gt", gt, "--llvip-bounds", "kaist"], "--llvip-bounds"),
    ]
    for args, message in cases:
        one_line_error(run_cli("eval", dets, *args), message)
    assert not (tmp_path / "f.png").exists()
    listing = tmp_path / "list.txt"
    listing.write_text("FLIR_09266.jpeg_RGB\nnot-a-frame\n")
    one_line_error(
        run_cli("eval", dets, "--gt", gt, "--images", listing),
        f"{listing}:2: 'not-a-frame' is not an image of the ground truth",
    )


def test_no_pinned_file_and_no_entry_to_package(flir, tmp_path):
    gt, records, folder = flir
    dets = write_json(folder / "dets.json", records)
    one_line_error(run_cli("fetch", "--benchmark", "llvip"), "LLVIP's ground truth is in no public file")
    one_line_error(run_cli("eval", dets, "--benchmark", "cvc-14"), "CVC-14's ground truth is in no public file")
    one_line_error(
        run_cli("submit", dets, "--gt", gt, "--out", tmp_path / "entry.json"),
        "FLIR-aligned has no leaderboard that takes entries",
    )
    assert list(tmp_path.iterdir()) == []
