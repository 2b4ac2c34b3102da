"""Inputs and outputs that once ended in a traceback: each is one line naming the path, exit code 2,
checked before the work, and nothing written."""

import json
import os
import zipfile

import pytest
from conftest import frames, person
from test_inputs import run_cli

BOX = [100, 100, 40, 100]


@pytest.fixture
def small(tmp_path):
    """A ground truth of 30 images with a pedestrian each, and a result that finds them."""
    gt = tmp_path / "gt.json"
    gt.write_text(
        json.dumps(
            {
                "images": frames(30),
                "annotations": [person(i + 1, i, BOX) for i in range(30)],
                "categories": [{"id": 1, "name": "person"}],
            }
        )
    )
    result = tmp_path / "good_result.txt"
    result.write_text("".join(f"{i + 1},100,100,40,100,0.9\n" for i in range(30)))
    return gt, result


def one_line_error(proc, *fragments):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for fragment in fragments:
        assert str(fragment) in lines[0], (fragment, lines[0])
    return lines[0]


def test_a_result_name_longer_than_the_file_system_allows(small, tmp_path):
    gt, _ = small
    long = tmp_path / ("r" * 300 + "_result.txt")
    one_line_error(run_cli("eval", long, "--gt", gt), long, "File name too long")


@pytest.mark.parametrize("verb", ["eval", "compare", "diagnose"])
def test_outputs_that_cannot_be_written(small, tmp_path, verb):
    gt, result = small
    folder = tmp_path / "taken.png"
    folder.mkdir()
    a_file = tmp_path / "taken"
    a_file.write_text("")
    option = "--out" if verb == "diagnose" else "--plot"
    targets = {
        "eval": [folder, a_file / "curves.png", "/proc/curves.png"],
        "compare": [folder, a_file / "curves.png", "/proc/self/curves.png"],
        "diagnose": [a_file, a_file / "inside", "/proc/diagnosis"],
    }[verb]
    results = [result, result.with_name("again_result.txt")] if verb == "compare" else [result]
    if verb == "compare":
        results[1].write_bytes(result.read_bytes())
    for target in targets:
        proc = run_cli(verb, *results, "--gt", gt, option, target, *(["--resamples", "5"] if verb != "eval" else []))
        one_line_error(proc, target)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["gt.json", "good_result.txt", "taken.png", "taken"] + (["again_result.txt"] if verb == "compare" else [])
    )
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder(small, tmp_path):
    gt, result = small
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        one_line_error(run_cli("eval", result, "--gt", gt, "--plot", locked / "c.png"), locked / "c.png")
    finally:
        locked.chmod(0o755)


def test_zips_that_cannot_be_read_as_submitted(small, tmp_path):
    gt, result = small
    encrypted = tmp_path / "encrypted.zip"
    with zipfile.ZipFile(encrypted, "w") as archive:
        archive.writestr("good_result.txt", result.read_bytes())
    data = bytearray(encrypted.read_bytes())
    for header, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # the entry claims encryption
        data[data.find(header) + flags] |= 1
    encrypted.write_bytes(bytes(data))
    one_line_error(run_cli("submit", "--check", encrypted, "--gt", gt), encrypted, "encrypted")

    escaping = tmp_path / "escaping.zip"
    with zipfile.ZipFile(escaping, "w") as archive:
        archive.writestr("../good_result.txt", result.read_bytes())
    one_line_error(run_cli("submit", "--check", escaping, "--gt", gt), escaping, "outside")
    one_line_error(run_cli("eval", escaping, "--gt", gt), escaping, "outside")


def test_a_header_line_is_called_a_header(small, tmp_path):
    gt, result = small
    with_header = tmp_path / "header_result.txt"
    with_header.write_text("image_id,x,y,w,h,score\n" + result.read_text())
    one_line_error(run_cli("eval", with_header, "--gt", gt), f"{with_header}:1: a header line")
    with_header.write_text("\n# detections\nimage_id x y w h score\n" + result.read_text())
    one_line_error(run_cli("eval", with_header, "--gt", gt), f"{with_header}:3: a header line")


def test_image_ids_beyond_64_bits_are_reported_as_written(small, tmp_path):
    gt, result = small
    for name, text, written in (
        ("big_result.txt", "100000000000000000000,1,2,3,4,0.5\n", "100000000000000000000"),
        ("big2_result.txt", "1e20,1,2,3,4,0.5\n", "1e20"),
        (
            "big_result.json",
            '[{"image_id": 100000000000000000000, "bbox": [1, 2, 3, 4], "score": 0.5}]',
            "100000000000000000000",
        ),
    ):
        path = tmp_path / name
        path.write_text(result.read_text() + text if name.endswith(".txt") else text)
        line = one_line_error(run_cli("eval", path, "--gt", gt), path, f"image id {written} is not in the ground truth")
        assert "RuntimeWarning" not in line


def test_a_box_of_1e308_is_a_finding_not_a_numpy_warning(small, tmp_path):
    gt, result = small
    far = tmp_path / "far_result.txt"
    far.write_text(result.read_text() + "1,1e308,1e308,1e308,1e308,0.95\n5,0,0,1e308,1e308,0.95\n")
    proc = run_cli("eval", far, "--gt", gt, "--protocol", "leaderboard", "--protocol", "matlab")
    assert proc.returncode == 0, proc.stderr
    assert "RuntimeWarning" not in proc.stderr and "overflow encountered" not in proc.stderr
    assert f"[far-boxes] {far}: 2 boxes with a number beyond 1e+06 pixels (first at {far}:31)" in proc.stderr
    proc = run_cli("diagnose", far, "--gt", gt, "--resamples", "5")
    assert proc.returncode == 0 and "RuntimeWarning" not in proc.stderr and "[far-boxes]" in proc.stderr


def test_image_list_errors_name_the_list_and_its_line(small, tmp_path):
    gt, result = small
    listed = tmp_path / "some.txt"
    listed.write_text("set06/V000/I00001\r\n\r\nset06/V000/I00002\r\nset06/V000/I99999\r\n")
    one_line_error(
        run_cli("eval", result, "--gt", gt, "--images", listed),
        f"{listed}:4: 'set06/V000/I99999' is not an image of the ground truth",
    )
    listed.write_text("3\n77\n")
    one_line_error(run_cli("eval", result, "--gt", gt, "--images", listed), f"{listed}:2: '77'")


def test_a_method_name_too_long_for_a_zip_entry(small, tmp_path):
    gt, result = small
    out = tmp_path / "s.zip"
    one_line_error(run_cli("submit", result, "--gt", gt, "--out", out, "--method", "M" * 101), "101 characters")
    assert not out.exists()
    long_named = tmp_path / ("x" * 240 + "_result.txt")
    long_named.write_bytes(result.read_bytes())
    proc = run_cli("submit", long_named, "--gt", gt, "--out", out)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
    assert max(len(n.encode()) for n in names) <= 112 and f"{'x' * 100}_result.json" in names


def test_show_says_how_to_draw_several_results(small, tmp_path):
    gt, result = small
    other = tmp_path / "other_result.txt"
    other.write_bytes(result.read_bytes())
    # --det takes one value: the second result is read as a frame to draw
    proc = run_cli("show", "set06/V000/I00001", "--gt", gt, "--det", result, other, "--out", tmp_path / "f.png")
    one_line_error(proc, other, "is a file, not a frame: give each result its own --det")
    assert not (tmp_path / "f.png").exists()


VERBS = ["convert", "synth", "stats", "show", "eval", "diagnose", "compare", "submit", "train", "test", "infer", "demo"]


def test_help_shows_defaults_whole_and_no_bool_labels():
    from typer.testing import CliRunner

    from kaist_kit.cli import app
    from kaist_kit.cli.options import shown_path
    from kaist_kit.datasets.kaist_truth import default_gt_path

    folder = shown_path(default_gt_path().parent)
    for verb in VERBS:
        result = CliRunner().invoke(app, [verb, "--help"], env={"COLUMNS": "80"})
        assert result.exit_code == 0, (verb, result.output)
        assert "<bool>" not in result.stdout and "…" not in result.stdout, verb
        if verb in ("eval", "diagnose", "compare", "show", "submit"):
            assert folder in " ".join(result.stdout.split()), verb
    # a longer default folder than this machine's, in a process of its own (the help reads it at
    # import): on a line of its own, whole
    env = {**os.environ, "COLUMNS": "80", "XDG_DATA_HOME": "/a/rather/long/folder/for/the/kit/data/files"}
    proc = run_cli("eval", "--help", env=env)
    path = "/a/rather/long/folder/for/the/kit/data/files/kaist-kit"
    assert any(line.strip().startswith(path) for line in proc.stdout.splitlines())
