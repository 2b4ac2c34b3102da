"""Folders written whole or not at all: `diagnose --out` builds its report beside the folder and moves it
into place (`kaist_kit.io.write.atomic_folder`), so that a full disk leaves nothing, not even an empty
folder; into an earlier report's folder its files are moved one by one, each replacing its namesake."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kaist_kit.errors import InputError
from kaist_kit.io import read, write

LINUX = sys.platform.startswith("linux")


def _result(tmp_path, gt) -> Path:
    data = json.loads(gt.read_text())
    path = tmp_path / "r.json"
    records = [
        {"image_id": a["image_id"], "category_id": 1, "bbox": a["bbox"], "score": 0.9}
        for a in data["annotations"]
        if not a.get("ignore")
    ]
    path.write_text(json.dumps(records))
    return path


def _diagnose(tmp_path, gt, out, *more, limit: int | None = None):
    def limited():
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "kaist_kit", "diagnose", _result(tmp_path, gt), "--gt", gt, "--out", out, *more],
        capture_output=True,
        text=True,
        preexec_fn=limited if limit else None,
    )


@pytest.mark.skipif(not LINUX, reason="RLIMIT_FSIZE")
def test_diagnose_on_a_full_disk_leaves_no_folder(tiny_synth, tmp_path):
    """No file may grow past 16 KiB (EFBIG, as a full disk's ENOSPC): the first figure fails."""
    out = tmp_path / "reports" / "diag"
    proc = _diagnose(tmp_path, tiny_synth / "test.json", out, "--resamples", "20", limit=16 << 10)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("error: ") and "cannot write" in proc.stderr
    assert not out.exists()
    assert [p.name for p in (tmp_path / "reports").iterdir()] == []  # no staging folder left either


def test_a_second_report_replaces_the_first_s_files_and_keeps_the_rest(tiny_synth, tmp_path):
    out = tmp_path / "diag"
    assert _diagnose(tmp_path, tiny_synth / "test.json", out, "--resamples", "20").returncode == 0
    first = {p.relative_to(out): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    (out / "notes.txt").write_text("mine")
    proc = _diagnose(tmp_path, tiny_synth / "test.json", out, "--resamples", "20", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    second = {p.relative_to(out): p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert set(second) == set(first) | {Path("notes.txt")} and (out / "notes.txt").read_text() == "mine"
    assert all(second[name] != first[name] for name in first)  # each replaced
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".kaist-kit.tmp")]


def test_the_folder_writer_merges_only_when_asked_and_never_onto_an_input(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with pytest.raises(InputError, match="the folder is not empty"):
        with write.atomic_folder(out):
            pass
    with write.atomic_folder(out, merge=True) as staging:
        (staging / "sub").mkdir()
        (staging / "sub" / "new.txt").write_text("new")
        (staging / "old.txt").write_text("replaced")
    assert (out / "old.txt").read_text() == "replaced" and (out / "sub" / "new.txt").read_text() == "new"
    with read.input_scope():
        read.read_bytes(out / "old.txt")
        with pytest.raises(InputError, match="one of this command's inputs"):
            with write.atomic_folder(out, merge=True) as staging:
                (staging / "old.txt").write_text("onto an input")
    assert (out / "old.txt").read_text() == "replaced"
    with pytest.raises(RuntimeError), write.atomic_folder(tmp_path / "never") as staging:
        (staging / "half.txt").write_text("half")
        raise RuntimeError("stopped")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_what_is_staged_is_recorded_under_its_final_names(tmp_path):
    made = []
    with write.recording_outputs(made.extend), write.atomic_folder(tmp_path / "report") as staging:
        write.write_text_atomic(staging / "a" / "b.txt", "x")
    real = Path(os.path.realpath(tmp_path / "report"))
    assert ("file", real / "a" / "b.txt") in made and ("folder", real) in made
    assert not [path for _, path in made if ".kaist-kit.tmp" in str(path)]
