"""Every verb knows all its inputs before it writes its first output: an output onto any input (the
result, the ground truth, an --images list, a picture it draws from), or two outputs onto one place,
is one line and exit code 2, with nothing written, on disk or on standard output."""

import hashlib
import json
import shutil

import pytest
from conftest import frames, person
from test_inputs import run_cli

BOX = [100, 100, 40, 100]


def snapshot(folder):
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def refused(proc, *fragments):
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def work(tmp_path):
    """A ground truth of 30 images and results in files whose names a figure could take (a COCO result
    is recognised by its text, whatever its name)."""
    gt = {
        "images": frames(30, night_from=15),
        "annotations": [person(i + 1, i, BOX) for i in range(30)],
        "categories": [{"id": 1, "name": "person"}],
    }
    hits = [{"image_id": i, "category_id": 1, "bbox": BOX, "score": 0.9} for i in range(30)]
    ghosts = [{"image_id": i, "category_id": 1, "bbox": [400, 300, 30, 80], "score": 0.5} for i in range(30)]
    for name in ("gt.json", "gt.png"):
        (tmp_path / name).write_text(json.dumps(gt))
    for name in ("a_result.json", "a.png", "b.svg"):
        (tmp_path / name).write_text(json.dumps(hits + ghosts))
    (tmp_path / "list.png").write_text("set06/V000/I00001\nset09/V000/I00020\n")
    from PIL import Image

    for modality in ("visible", "lwir"):
        (tmp_path / "images" / "set06" / "V000" / modality).mkdir(parents=True)
        for n in (1, 2):
            Image.new("RGB", (640, 512)).save(tmp_path / "images" / "set06" / "V000" / modality / f"I{n:05d}.png")
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "a.png", "--gt", "gt.json", "--plot", "a.png"],
        ["eval", "a_result.json", "--gt", "gt.png", "--plot", "gt.png"],
        ["eval", "a_result.json", "--gt", "gt.json", "--images", "list.png", "--plot", "list.png"],
        ["compare", "a.png", "b.svg", "--gt", "gt.json", "--plot", "b.svg", "--resamples", "5"],
        ["stats", "gt.png", "--plot", "gt.png"],
        ["diagnose", "a.png", "--gt", "gt.json", "--resamples", "5", "--out", "report", "--matches", "a.png"],
        ["diagnose", "a_result.json", "--gt", "gt.png", "--resamples", "5", "--out", "report", "--matches", "gt.png"],
        ["show", "set06/V000/I00001", "--gt", "gt.json", "--images", "images", "--det", "a.png", "--out", "a.png"],
        [
            "show",
            "set06/V000/I00001",
            "--gt",
            "gt.json",
            "--images",
            "images",
            "--out",
            "images/set06/V000/visible/I00001.png",
        ],
    ],
    ids=lambda args: " ".join(args),
)
def test_an_output_onto_an_input_writes_nothing(work, monkeypatch, args):
    monkeypatch.chdir(work)
    before = snapshot(work)
    refused(run_cli(*args), "is one of this command's inputs")
    assert snapshot(work) == before


@pytest.mark.parametrize("matches", ["report/report.md", "report/diagnosis.json", "report/mr-fppi.png"])
def test_diagnose_refuses_two_outputs_in_one_place(work, monkeypatch, matches):
    monkeypatch.chdir(work)
    before = snapshot(work)
    refused(
        run_cli(
            "diagnose", "a_result.json", "--gt", "gt.json", "--resamples", "5", "--out", "report", "--matches", matches
        ),
        "is written twice by this command",
    )
    assert snapshot(work) == before


def test_diagnose_never_writes_onto_a_picture_it_draws(tiny_synth, tmp_path, monkeypatch):
    """The examples' pictures are inputs too, known before the report is written."""
    gt = json.loads((tiny_synth / "test.json").read_text())
    ghosts = [
        {"image_id": image["id"], "category_id": 1, "bbox": [10, 10, 20, 40], "score": 0.9} for image in gt["images"]
    ]
    hits = [
        {"image_id": a["image_id"], "category_id": 1, "bbox": a["bbox"], "score": 0.5}
        for a in gt["annotations"]
        if not a["ignore"]
    ]
    result = tmp_path / "ghosts_result.json"
    result.write_text(json.dumps(ghosts + hits))
    images = tmp_path / "images"
    shutil.copytree(tiny_synth / "images", images)
    args = ["diagnose", result, "--gt", tiny_synth / "test.json", "--images", images, "--resamples", "5"]
    proc = run_cli(*args, "--out", tmp_path / "first", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    drawn = [e for e in json.loads(proc.stdout)["examples"] if e.get("picture")]
    assert drawn, "no example was drawn"
    frame = drawn[0]["frame"]
    set_name, video, stem = frame.split("/")
    picture = next((images / set_name / video / "lwir").glob(f"{stem}.*"))
    before = snapshot(tmp_path)
    refused(run_cli(*args, "--out", tmp_path / "second", "--matches", picture), "is one of this command's inputs")
    assert snapshot(tmp_path) == before


def test_show_draws_every_frame_or_none(work, monkeypatch):
    monkeypatch.chdir(work)
    before = snapshot(work)
    # the same frame twice, by name and by id: one place written twice
    refused(
        run_cli("show", "set06/V000/I00001", "1", "--gt", "gt.json", "--images", "images", "--out", "f.png"),
        "is written twice by this command",
    )
    assert snapshot(work) == before
    proc = run_cli(
        "show", "set06/V000/I00001", "set06/V000/I00002", "--gt", "gt.json", "--images", "images", "--out", "f.png"
    )
    assert proc.returncode == 0, proc.stderr
    assert (work / "f_set06_V000_I00001.png").is_file() and (work / "f_set06_V000_I00002.png").is_file()


def test_the_leaderboard_site_keeps_to_a_folder_of_its_own(work, monkeypatch):
    monkeypatch.chdir(work)
    subs = work / "subs"
    subs.mkdir()
    shutil.copy(work / "a_result.json", subs / "a_result.json")
    shutil.copy(work / "b.svg", subs / "b_result.json")
    mine = work / "www"
    (mine / "entries").mkdir(parents=True)
    (mine / "index.html").write_text("my own page")
    before = snapshot(work)
    for out, why in (
        ("subs", "the site's pages would be scored as entries"),
        ("subs/site", "the site's pages would be scored as entries"),
        ("www", "which no leaderboard of the kit wrote there"),
    ):
        refused(run_cli("leaderboard", "subs", "--gt", "gt.json", "--out", out), why)
        assert snapshot(work) == before
    for run in range(2):  # the second run reuses the site's cache, which it replaces
        proc = run_cli("leaderboard", "subs", "--gt", "gt.json", "--out", "site")
        assert proc.returncode == 0, proc.stderr
        assert ("2 scored" if run == 0 else "2 unchanged") in proc.stdout
