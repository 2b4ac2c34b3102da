"""Every path that comes from a file's content stays inside its root, and no deletion follows a link.

An annotation's picture names, a config's annotation files, a ground truth's frame names, a source
tree's links and a previous run's record of its outputs are text the kit did not write: across the verbs
(check-data, its config, convert and trainset, show, diagnose --images, demo) a path that is absolute,
climbs out with '..' or leads out through a link is refused in one line naming the file, or skipped and
said, and nothing outside is read or removed.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kaist_kit.converters import convert
from kaist_kit.errors import InputError
from kaist_kit.io.rooted import Root, inside
from kaist_kit.io.write import remove_outputs

ESCAPES = ["/etc/passwd", "../../etc/shadow", "set00/../../../etc/hosts", "C:/Windows/win.ini", "a\x00b"]


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True, cwd=cwd)


def _one_line_error(proc) -> str:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def test_the_rule(tmp_path):
    root = tmp_path / "root"
    (root / "in").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (root / "up").symlink_to(tmp_path / "out")
    (root / "in" / "file.jpg").write_text("x")
    (root / "in" / "away.jpg").symlink_to(tmp_path / "out" / "x.jpg")
    (root / "in" / "near.jpg").symlink_to(root / "in" / "file.jpg")
    checked = Root(root)
    for rel in ["in/file.jpg", "in/near.jpg", "in/../in/file.jpg", "missing/x.jpg", "./in/file.jpg"]:
        assert checked.problem(rel) is None, rel
    for rel in [*ESCAPES, "up/x.jpg", "in/away.jpg", "", None, 3]:
        assert checked.problem(rel) is not None, rel
    with pytest.raises(InputError, match=r"^a.json: the picture '\.\./x' climbs out of .*: refused"):
        inside(root, "../x", "a.json", "picture")
    linked = tmp_path / "linked-root"
    linked.symlink_to(root)  # the root itself may be a link
    assert Root(linked).problem("in/file.jpg") is None and Root(linked).problem("up/x.jpg") is not None


# --- check-data ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ESCAPES[:3])
def test_check_data_reads_no_picture_outside_the_data_root(tmp_path, name):
    (tmp_path / "images").mkdir()
    image = {"id": 0, "file_name": name, "lwir_file_name": "set00/V000/lwir/I00000.jpg", "width": 640, "height": 512}
    (tmp_path / "gt.json").write_text(json.dumps({"images": [image], "annotations": []}))
    line = _one_line_error(_run("check-data", tmp_path))
    assert line.startswith(f"error: {tmp_path / 'gt.json'}: the picture of images[0] {name!r}")
    assert "refused" in line and "passwd" not in line.split("refused")[1]


def test_check_data_refuses_a_link_out_of_the_pictures_folder(tmp_path):
    images = tmp_path / "root" / "images" / "set00" / "V000"
    images.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (images / "lwir").symlink_to(tmp_path / "elsewhere")
    image = {"id": 0, "im_name": "set00/V000/I00000", "width": 640, "height": 512}
    (tmp_path / "root" / "gt.json").write_text(json.dumps({"images": [image], "annotations": []}))
    line = _one_line_error(_run("check-data", tmp_path / "root"))
    assert "'set00/V000/lwir/I00000.jpg' leads out of" in line and "through a link" in line


def test_another_benchmark_s_pictures_too(tmp_path):
    image = {"id": 1, "file_name": "../../../etc/passwd", "lwir_file_name": "x.jpg", "width": 10, "height": 10}
    data = {"images": [image], "annotations": [], "categories": [{"id": 1, "name": "person"}]}
    (tmp_path / "test.json").write_text(json.dumps(data))
    assert "climbs out of" in _one_line_error(_run("check-data", tmp_path, "--benchmark", "llvip"))


def test_a_config_s_data_paths_stay_in_its_data_root(tmp_path):
    pytest.importorskip("mmengine", reason="configs are read by mmengine (the detector extra)")
    root = tmp_path / "data"
    root.mkdir()
    for ann_file, said in [
        ("/etc/passwd", "is an absolute path"),
        ("../../etc/passwd", "climbs out of"),
    ]:
        config = tmp_path / "evil.py"
        config.write_text(
            f"train_dataloader = dict(dataset=dict(type='KaistDataset', data_root='.', ann_file={ann_file!r}))\n"
        )
        line = _one_line_error(_run("check-data", root, config))
        assert f"{config}: the train_dataloader.dataset.ann_file {ann_file!r} {said}" in line, line


# --- convert and trainset: a source tree's links ------------------------------------------------------


def test_a_link_out_of_the_source_is_not_read(tmp_path):
    source = tmp_path / "annotations"
    source.mkdir()
    header = "% bbGt version=3\n"
    (source / "set06_V000_I00019.txt").write_text(header + "person 10 10 20 50 0 0 0 0 0 0 0\n")
    secret = tmp_path / "secret.txt"
    secret.write_text(header + "person 1 2 3 4 0 0 0 0 0 0 0\n")
    (source / "set06_V000_I00039.txt").symlink_to(secret)
    lines = []
    result = convert("improved", source, tmp_path / "out.json", echo=lines.append)
    assert result.n_images == 1
    link = source / "set06_V000_I00039.txt"
    assert f"problem: {link}: a link to a file outside the source's folder, not read" in lines
    with pytest.raises(InputError, match="--strict"):
        convert("improved", source, tmp_path / "strict.json", strict=True)
    inner = source / "kept.txt"
    inner.write_text(header)
    (source / "set06_V000_I00039.txt").unlink()
    (source / "set06_V000_I00039.txt").symlink_to(inner)  # a link within the source is read
    assert convert("improved", source, tmp_path / "again.json").n_images == 2


# --- show and diagnose --images ----------------------------------------------------------------------


def _escaping_truth(tmp_path) -> tuple[Path, Path]:
    """A ground truth whose frame is named '../../x', pictures placed where that name leads from
    pictures/, and pictures/ itself."""
    pictures = tmp_path / "deep" / "pictures"
    pictures.mkdir(parents=True)
    for modality in ("visible", "lwir"):
        (tmp_path / modality).mkdir()
        Image.fromarray(np.zeros((512, 640, 3), np.uint8)).save(tmp_path / modality / "x.jpg")
    gt = {
        "images": [{"id": 0, "im_name": "../../x", "period": "day", "width": 640, "height": 512}],
        "annotations": [{"id": 1, "image_id": 0, "category_id": 1, "bbox": [10, 10, 20, 50]}],
    }
    (tmp_path / "gt.json").write_text(json.dumps(gt))
    return tmp_path / "gt.json", pictures


def test_show_refuses_a_frame_named_out_of_the_pictures_folder(tmp_path):
    gt, pictures = _escaping_truth(tmp_path)
    line = _one_line_error(_run("show", "0", "--gt", gt, "--images", pictures, "--out", tmp_path / "f.png"))
    assert f"{gt}: the picture of frame '../../x' '../../visible/x.jpg' climbs out of {pictures}" in line
    assert not (tmp_path / "f.png").exists()


def test_another_benchmark_s_show_too(tmp_path):
    data = {
        "images": [{"id": 1, "file_name": "../../../secret", "width": 64, "height": 64}],
        "annotations": [],
        "categories": [{"id": 1, "name": "person"}],
    }
    (tmp_path / "gt.json").write_text(json.dumps(data))
    (tmp_path / "root").mkdir()
    proc = _run(
        *("show", "1", "--gt", tmp_path / "gt.json", "--benchmark", "llvip"),
        *("--images", tmp_path / "root", "--out", tmp_path / "f.png"),
    )
    assert "'../../../secret' is not a LLVIP frame name" in _one_line_error(proc)  # whose pictures lie inside


def test_diagnose_draws_no_example_from_outside_its_pictures(tmp_path):
    gt, pictures = _escaping_truth(tmp_path)
    (tmp_path / "r.txt").write_text("1,10,10,20,50,0.9\n1,300,300,20,50,0.8\n")
    proc = _run("diagnose", tmp_path / "r.txt", "--gt", gt, "--images", pictures, "--out", tmp_path / "diag")
    assert proc.returncode == 0, proc.stderr
    examples = json.loads((tmp_path / "diag" / "diagnosis.json").read_text())["examples"]
    assert examples and all(example["picture"] is None for example in examples)
    assert not [p for p in (tmp_path / "diag").rglob("*.png") if "example" in p.name]


# --- deletions ---------------------------------------------------------------------------------------


def test_no_deletion_follows_a_link(tmp_path):
    out, secret = tmp_path / "out", tmp_path / "secret"
    out.mkdir()
    secret.mkdir()
    (secret / "victim").write_text("keep me")
    (secret / "victim-too").write_text("keep me")
    (out / "sub").symlink_to(secret)
    (out / "alias").symlink_to(secret / "victim-too")
    (out / "mine").write_text("mine")
    (out / "folder").mkdir()
    remove_outputs(out, ["sub/victim", "alias", "mine", "../secret/victim", "sub"], ["sub", "folder"])
    assert sorted(p.name for p in out.iterdir()) == ["alias", "sub"]
    assert (secret / "victim").read_text() == (secret / "victim-too").read_text() == "keep me"


def test_a_demo_rerun_removes_nothing_through_a_link_its_marker_lists(tmp_path):
    out, secret = tmp_path / "demo", tmp_path / "secret"
    out.mkdir()
    secret.mkdir()
    (secret / "victim.json").write_text("keep me")
    (out / "sub").symlink_to(secret)
    marker = {"kaist_kit_demo": 1, "files": ["sub", "sub/victim.json"], "folders": []}
    (out / "demo.json").write_text(json.dumps(marker))
    proc = _run("demo", "--out", out, "--frames", "2")
    assert proc.returncode == 0, proc.stderr
    assert (secret / "victim.json").read_text() == "keep me" and os.path.islink(out / "sub")
