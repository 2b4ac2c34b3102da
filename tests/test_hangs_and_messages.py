"""Work bounded whatever a file holds, and messages that say what happened.

Hangs and slowness: the writer looks through a folder for stale temporaries once, not at every write
(20,000 files into one folder were quadratic); a JPEG of megabytes of fill bytes costs a few reads; a
FIFO as the ground truth's URL is refused (tests/test_fetch.py). Messages: `diagnose --images` at a
missing path or a FIFO, a rerun of `submit` into its own --out, a whole picture followed by other data,
a FIFO named like an annotation file, archive entries that extract to one place, `stats --plot` without
boxes, and a config that cannot be read (no mmengine, or one that raises).
"""

import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from kaist_kit.errors import InputError
from kaist_kit.io import archives, pictures, write

SHARED_KAIST = Path(__file__).resolve().parents[2] / "shared" / "data" / "kaist"


def _run(*args, cwd=None, code=None):
    command = [sys.executable, "-c", code, *map(str, args)] if code else [sys.executable, "-m", "kaist_kit", *args]
    return subprocess.run(list(map(str, command)), capture_output=True, text=True, cwd=cwd)


def _one_line_error(proc) -> str:
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def _jpeg(width=64, height=48, **options) -> bytes:
    buffer = io.BytesIO()
    pixels = (np.random.default_rng(1).random((height, width, 3)) * 255).astype(np.uint8)
    Image.fromarray(pixels).save(buffer, "JPEG", **options)
    return buffer.getvalue()


# --- hangs and slowness ------------------------------------------------------------------------------


def test_many_writes_into_one_folder_look_through_it_once(tmp_path, monkeypatch):
    scans = []
    real = write.remove_stale_temporaries
    monkeypatch.setattr(write, "remove_stale_temporaries", lambda folder: scans.append(folder) or real(folder))
    folder = tmp_path / "bundle"
    for k in range(200):
        write.write_bytes_atomic(folder / f"entry-{k:04d}.txt", b"x")
    assert len(scans) == 1
    # Another process's temporary appears (and that process is gone): the folder changed, and the next
    # write looks through it again and removes it.
    stale = folder / f".entry.txt.{2**22 + 7}.0123456789.kaist-kit.tmp"
    stale.write_text("left by a killed process")
    write.write_bytes_atomic(folder / "one-more.txt", b"x")
    assert len(scans) == 2 and not stale.exists()


def test_a_jpeg_of_fill_bytes_costs_a_few_reads(tmp_path, monkeypatch):
    data = _jpeg()
    path = tmp_path / "filled.jpg"
    path.write_bytes(data[:2] + b"\xff" * (24 << 20) + data[2:])  # 24 MiB of fill before the first segment
    asked = []
    pread = os.pread
    monkeypatch.setattr(pictures.os, "pread", lambda fd, n, at: asked.append(n) or pread(fd, n, at))
    header = pictures.read_header(path)
    assert header.problem == "a JPEG picture with more than 1 MiB of fill bytes: not read further"
    assert sum(asked) < 2 << 20
    path.write_bytes(data[:2] + b"\xff" * 100 + data[2:])  # a few are allowed, as JPEG allows them
    header = pictures.read_header(path)
    assert header.problem is None and (header.width, header.height) == (64, 48)


# --- messages ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["missing", "fifo", "file"])
def test_diagnose_images_at_what_is_no_folder_is_refused(tiny_synth, tmp_path, kind):
    images = tmp_path / "images"
    if kind == "fifo":
        os.mkfifo(images)
    elif kind == "file":
        images.write_text("")
    said = {
        "missing": "no such folder",
        "fifo": "is a FIFO (named pipe), not a folder",
        "file": "is a file, not a folder",
    }[kind]
    result = tmp_path / "r.json"
    result.write_text('[{"image_id": 0, "category_id": 1, "bbox": [1, 2, 30, 60], "score": 0.9}]')
    gt = tiny_synth / "test.json"
    line = _one_line_error(_run("diagnose", result, "--gt", gt, "--images", images, "--out", tmp_path / "d"))
    assert line == f"error: {images}: {said}"
    assert not (tmp_path / "d").exists()


def test_submit_reruns_into_its_own_out(tmp_path):
    if not SHARED_KAIST.is_dir():
        pytest.skip(f"{SHARED_KAIST} not found (the shared data folder)")
    gt, result = SHARED_KAIST / "test-all-20.leaderboard.json", SHARED_KAIST / "results" / "MLPD_result.json"
    for _ in range(2):
        proc = _run("submit", result, "--gt", gt, "--out", tmp_path / "entry.json")
        assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry.json", "entry.manifest.json"]
    (tmp_path / "other.json").write_bytes((tmp_path / "entry.json").read_bytes())
    line = _one_line_error(_run("submit", result, "--gt", gt, "--out", tmp_path / "entry.txt"))
    assert "entry.manifest.json beside it is the manifest of entry.json" in line


def test_a_whole_picture_followed_by_other_data_is_whole(tmp_path):
    data = _jpeg(exif=b"Exif\x00\x00" + bytes(300))
    path = tmp_path / "p.jpg"
    for tail in (bytes(100), bytes(70_000), b"\xff\xd8" + bytes(5000)):  # padding, a large block, another start
        path.write_bytes(data + tail)
        assert pictures.read_header(path).problem is None
    path.write_bytes(data[:-200] + bytes(100))  # cut short, then padded: no end marker after the scan
    assert pictures.read_header(path).problem == "a JPEG picture without its end-of-image marker: cut short"
    buffer = io.BytesIO()
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(buffer, "PNG")
    path.write_bytes(buffer.getvalue() + bytes(1000))
    assert pictures.read_header(path).problem is None
    path.write_bytes(buffer.getvalue()[:-12] + bytes(1000))
    assert "cut short" in pictures.read_header(path).problem


def test_a_fifo_named_like_an_annotation_file_is_said_to_be_one(tmp_path):
    (tmp_path / "images").mkdir()
    os.mkfifo(tmp_path / "x.json")
    line = _one_line_error(_run("check-data", tmp_path))
    assert (
        line
        == f"error: {tmp_path / 'x.json'}: is a FIFO (named pipe), not a regular file: the kit reads only regular files"
    )


@pytest.mark.parametrize("names", [["annotations//gt.json", "annotations/gt.json"], ["./a.json", "a.json"]])
def test_archive_entries_that_extract_to_one_place_are_refused(tmp_path, names):
    zipped = tmp_path / "a.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for name in names:
            archive.writestr(name, "{}")
    with pytest.raises(InputError, match=f"two entries named {names[1]!r} \\(also as {names[0]!r}\\)"):
        archives.read_archive(zipped)
    tarred = tmp_path / "a.tar.gz"
    with tarfile.open(tarred, "w:gz") as archive:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 2
            archive.addfile(info, io.BytesIO(b"{}"))
    with pytest.raises(InputError, match="two entries named"):
        archives.read_archive(tarred)


def test_stats_plot_of_a_ground_truth_without_boxes_says_no_warning(tmp_path):
    gt = tmp_path / "empty.json"
    gt.write_text(json.dumps({"images": [{"id": 0, "im_name": "set06/V000/I00019"}], "annotations": []}))
    proc = _run("stats", gt, "--plot", tmp_path / "h.png")
    assert proc.returncode == 0 and "warning" not in proc.stderr.lower(), proc.stderr
    assert (tmp_path / "h.png").is_file()


_WITHOUT_MMENGINE = """
import sys
sys.modules["mmengine"] = None  # as on the core install: importing it fails
sys.argv = ["kaist-kit", *sys.argv[1:]]
from kaist_kit.cli import main
main()
"""


def test_check_data_with_a_config_on_the_core_install_says_what_to_install(tmp_path):
    config = tmp_path / "c.py"
    config.write_text("train_dataloader = None\n")
    line = _one_line_error(_run("check-data", tmp_path, config, code=_WITHOUT_MMENGINE))
    assert "needs the detector extra (mmengine is not installed): pip install -e '.[mmdet]'" in line


def test_a_config_that_raises_is_refused_in_one_line(tmp_path):
    pytest.importorskip("mmengine", reason="configs are read by mmengine (the detector extra)")
    config = tmp_path / "raises.py"
    config.write_text("x = 1 / 0\n")
    line = _one_line_error(_run("check-data", tmp_path, config))
    assert line == f"error: {config}: cannot read the config: ZeroDivisionError: division by zero"
    config.write_text("train_dataloader = dict(dataset=[1, 2])\n")
    line = _one_line_error(_run("check-data", tmp_path, config))
    assert "train_dataloader.dataset is list [1, 2], not a dict" in line
