"""Bad input gives one-line errors naming file and line; suspicious input gives warnings."""

import json
import subprocess
import sys

import pytest
from conftest import frames, make_gt, person

from kaist_kit.data.detections import ReadOptions
from kaist_kit.data.results import load_detections
from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.errors import InputError
from kaist_kit.io.text import json_line
from kaist_kit.scoring.findings import inspect

BOX = [100, 100, 40, 100]


def box(i):
    """A different place in every image, so that a detection in the wrong image misses."""
    return [20 + 18 * i, 100, 40, 100]


@pytest.fixture
def gt():
    return make_gt(frames(30), [person(i + 1, i, box(i)) for i in range(30)])


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def records(n=30, shift=0):
    return [{"image_id": i + shift, "category_id": 1, "bbox": box(i), "score": 0.9} for i in range(n)]


def findings(dets, gt, **kwargs):
    """The inspector's findings about dets, by code."""
    return {f.code: f for f in inspect(dets, gt, **kwargs)}


def error_of(call):
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    return info.value


def test_missing_and_unreadable_files(gt, tmp_path):
    e = error_of(lambda: load_detections(tmp_path / "nope.json", gt))
    assert "no such file" in str(e)
    binary = tmp_path / "blob_result.txt"
    binary.write_bytes(b"1,2,3\n\xff\xfe\x00junk")
    e = error_of(lambda: load_detections(binary, gt))
    assert e.path == str(binary) and e.line == 2 and "not UTF-8" in e.reason


def test_truncated_json_names_the_line(gt, tmp_path):
    text = json.dumps(records(), indent=1)
    path = write(tmp_path, "cut_result.json", text[: len(text) // 2])
    e = error_of(lambda: load_detections(path, gt))
    assert e.reason.startswith("truncated JSON") and e.line == text[: len(text) // 2].count("\n") + 1
    one_line = json.dumps(records())
    path = write(tmp_path, "cut_result.json", one_line[: len(one_line) // 2])
    assert error_of(lambda: load_detections(path, gt)).reason.startswith("truncated JSON")


def test_invalid_json_on_its_only_line_is_not_called_truncated(gt, tmp_path):
    path = write(tmp_path, "bad_result.json", json.dumps(records()).replace('"score": ', '"score": 0', 1))
    e = error_of(lambda: load_detections(path, gt))
    assert e.reason.startswith("invalid JSON: ") and e.line == 1


def test_malformed_txt_line(gt, tmp_path):
    path = write(tmp_path, "m_result.txt", "1,100,100,40,100,0.9\n2,100,100,40\n")
    e = error_of(lambda: load_detections(path, gt))
    assert (e.line, "found 4 fields") == (2, e.reason[e.reason.index("found") :])
    path = write(tmp_path, "m2_result.txt", "1,100,100,40,100,0.9\r\n\r\n3,100,abc,40,100,0.9\r\n")
    e = error_of(lambda: load_detections(path, gt))
    assert e.line == 3 and "'abc' is not a number" in e.reason


@pytest.mark.parametrize(
    "bad, expect",
    [
        ({"bbox": [1, 2, float("nan"), 4]}, "non-finite"),
        ({"score": float("inf")}, "non-finite"),
        ({"bbox": [1, 2, -3, 4]}, "negative box size"),
        ({"image_id": 99}, "image id 99 is not in the ground truth"),
        ({"image_id": 1.5}, "not an integer"),
        ({"category_id": 0}, "category_id 0 is not person"),
        ({"bbox": [1, 2, 3]}, "bbox must be a list of 4 numbers"),
    ],
)
def test_bad_values_in_json_name_their_line(gt, tmp_path, bad, expect):
    recs = records()
    recs[7].update(bad)
    text = json.dumps(recs, indent=1)
    path = write(tmp_path, "bad_result.json", text)
    e = error_of(lambda: load_detections(path, gt))
    assert expect in e.reason
    assert e.line == json_line(text, 7)
    assert text.splitlines()[e.line - 1].strip() == "{"


def test_bad_values_in_txt_name_their_line(gt, tmp_path):
    for line, expect in [
        ("5,1,2,3,inf,0.5", "non-finite"),
        ("5,1,2,-3,4,0.5", "negative"),
        ("31,1,2,3,4,0.5", "image id 31 is not in the ground truth"),
        ("0,1,2,3,4,0.5", "1-based"),
    ]:
        path = write(tmp_path, "t_result.txt", "1,100,100,40,100,0.9\n" + line + "\n")
        e = error_of(lambda path=path: load_detections(path, gt))
        assert e.line == 2 and expect in e.reason, (line, e)


def test_one_based_ids_in_json_are_flagged(gt, tmp_path):
    # The last image has no detection, so every shifted id exists: only the overlap betrays it.
    path = write(tmp_path, "shifted_result.json", json.dumps(records(n=29, shift=1)))
    found = findings(load_detections(path, gt), gt)["id-offset"]
    assert found.level == "error" and "image ids look written 1-based" in found.message
    assert "rerun with --id-offset -1" in found.message
    assert "id-offset" not in findings(load_detections(path, gt, ReadOptions(id_offset=-1)), gt)
    path = write(tmp_path, "all_result.json", json.dumps(records(shift=1)))
    e = error_of(lambda: load_detections(path, gt))
    assert "written 1-based" in e.reason


def test_zero_based_ids_in_txt_are_flagged(gt, tmp_path):
    lines = [f"{i},{','.join(map(str, box(i)))},0.9" for i in range(1, 30)]  # 0-based, image 0 unused
    path = write(tmp_path, "z_result.txt", "\n".join(lines))
    found = findings(load_detections(path, gt), gt)["id-offset"]
    assert "image ids look written 0-based" in found.message and "--id-offset 1" in found.message


def test_ground_truth_errors(tmp_path):
    good = {"images": frames(2), "annotations": [person(1, 0, BOX), person(2, 1, BOX)]}
    bad = json.loads(json.dumps(good))
    bad["annotations"][1]["bbox"] = [1, 2, -5, 4]
    path = write(tmp_path, "gt.json", json.dumps(bad, indent=1))
    e = error_of(lambda: load_ground_truth(path))
    assert "negative size" in e.reason and e.line == json_line(path.read_text(), "annotations", 1)
    bad["annotations"][1] = {**good["annotations"][1], "image_id": 7}
    path = write(tmp_path, "gt.json", json.dumps(bad, indent=1))
    e = error_of(lambda: load_ground_truth(path))
    assert "image_id 7" in e.reason
    e = error_of(lambda: load_ground_truth(write(tmp_path, "x.json", "[1, 2")))
    assert "truncated" in e.reason


def test_per_image_folder_errors(gt, tmp_path):
    folder = tmp_path / "result"
    folder.mkdir()
    (folder / "set06_V000_I00000.txt").write_text("person 1 2 30 80 0.9\nperson 1 2 0.5\n")
    e = error_of(lambda: load_detections(folder, gt))
    assert e.path.endswith("set06_V000_I00000.txt") and e.line == 2
    (folder / "set06_V000_I00000.txt").write_text("person 30 2 1 80 0.9\n")
    e = error_of(lambda: load_detections(folder, gt))
    assert "corner x2, y2 before x1, y1" in e.reason
    (folder / "set06_V000_I00000.txt").write_text("person 1 2 30 80 0.9\n")
    (folder / "set99_V000_I00000.txt").write_text("")
    dets = load_detections(folder, gt)
    found = findings(dets, gt)
    assert "not in the ground truth" in found["unknown-frames"].message
    assert "29 of the 30" in found["missing-files"].message
    assert len(dets) == 1


def test_json_line_points_at_elements():
    text = '{\n "images": [],\n "annotations": [\n  {"id": 1},\n\n  {"id": 2}\n ]\n}'
    assert json_line(text, "annotations", 0) == 4
    assert json_line(text, "annotations", 1) == 6
    assert json_line(text, "annotations", 2) is None
    assert json_line(text, "missing") is None


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True, env=env)


def test_cli_errors_are_one_line_with_exit_code_2(tmp_path):
    gt_path = write(tmp_path, "gt.json", json.dumps({"images": frames(2), "annotations": []}))
    bad = write(tmp_path, "bad_result.txt", "1,2,3\n")
    proc = run_cli("eval", bad, "--gt", gt_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {bad}:1: expected image_id,x,y,w,h,score, found 3 fields"
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    proc = run_cli("eval", tmp_path / "none.json", "--gt", gt_path)
    assert proc.returncode == 2 and "no such file" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli("eval", bad, "--gt", gt_path, "--setting", "unreasonable")
    assert proc.returncode == 2 and "unknown setting" in proc.stderr
