"""Image lists get split names of their own, the diagnosis' misses tables say whose operating point they
read, and the tables of diagnose and test fit an 80-column terminal."""

import json
import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

import pytest
from conftest import det, frames, make_dets, make_gt, person
from test_inputs import run_cli
from typer.testing import CliRunner

from kaist_kit.cli import app
from kaist_kit.data.imagesets import list_split_names
from kaist_kit.diagnosis import DiagnosisParams, diagnose
from kaist_kit.diagnosis.report import tables
from kaist_kit.errors import KitWarning


@pytest.mark.parametrize(
    "paths, taken, names",
    [
        (["lists/day.txt"], [], ["day.txt"]),
        (
            ["all.txt", "night.txt", "set06.txt", "campus-night.txt", "road.txt"],
            [],
            ["all.txt", "night.txt", "set06.txt", "campus-night.txt", "road.txt"],
        ),
        (["mine.txt"], [], ["mine"]),
        (["a/x.txt", "b/x.txt"], [], ["x", "x.txt"]),
        (["a/x.txt", "b/x.txt", "c/x.txt"], [], ["x", "x.txt", "c/x.txt"]),
        (["x.txt"], ["x"], ["x.txt"]),
        (["lists/day"], [], ["lists/day"]),
        (["x.txt", "x.txt"], [], ["x", "x.txt"]),
        (["x.txt", "x.txt", "x.txt", "x.txt"], [], ["x", "x.txt", "x.txt (2)", "x.txt (3)"]),
    ],
)
def test_list_split_names_are_unique_and_never_a_builtin_split(paths, taken, names):
    found = list_split_names(paths, taken)
    assert found == names
    assert len(set(found) | set(taken)) == len(found) + len(taken)


def test_eval_scores_a_list_named_like_a_split_as_its_own_column(kaist, tmp_path):
    data = json.loads((kaist / "test-all-20.leaderboard.json").read_text())
    night = [i["im_name"] for i in data["images"] if i["im_name"] >= "set09"][:40]
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "day.txt").write_text("\n".join(night[:20] if folder == "a" else night[20:]) + "\n")
    proc = run_cli(
        "eval",
        kaist / "results" / "MLPD_result.txt",
        "--gt",
        kaist / "test-all-20.leaderboard.json",
        "--split",
        "day",
        "--images",
        tmp_path / "a" / "day.txt",
        "--images",
        tmp_path / "b" / "day.txt",
        "--format",
        "json",
    )
    assert proc.returncode == 0, proc.stderr
    rows = {r["split"]: r["n_images"] for r in json.loads(proc.stdout)["results"]}
    assert rows == {"day": 1455, "day.txt": 20, "b/day.txt": 20}


def test_the_misses_tables_say_each_split_has_its_own_operating_point(tmp_path):
    gt = make_gt(frames(4, night_from=2), [person(k + 1, k, [100, 100, 40, 100]) for k in range(4)])
    dets = make_dets(gt, [det(k, [100, 100, 40, 100], 0.9 - 0.1 * k) for k in range(4)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        found = diagnose(gt, dets, DiagnosisParams(resamples=5))
    for detailed in (False, True):
        misses = [t for t in tables(found, detailed) if t.title.startswith("Missed pedestrians")]
        assert "Each split is read at its own operating point" in misses[0].note
    persons = [t for t in tables(found, True) if t.title.startswith("Every box labelled person")]
    assert "each split's operating-point score" in persons[0].title


def test_diagnose_prints_the_note(kaist):
    proc = run_cli(
        "diagnose",
        Path(kaist / "results" / "MLPD_result.txt"),
        "--gt",
        kaist / "test-all-20.leaderboard.json",
        "--resamples",
        "20",
    )
    assert proc.returncode == 0
    assert "Each split is read at its own operating point" in " ".join(proc.stdout.split())


# --- 80 columns ------------------------------------------------------------------------------------


def lines_fit(text, width=80):
    long = [line for line in text.splitlines() if len(line.rstrip()) > width]
    assert not long, long
    return text


def test_diagnose_tables_fit_80_columns(kaist):
    env = {**os.environ, "COLUMNS": "80"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kaist_kit",
            "diagnose",
            str(kaist / "results" / "MBNet_result.txt"),
            "--gt",
            str(kaist / "test-all-20.leaderboard.json"),
            "--resamples",
            "20",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0
    out = lines_fit(proc.stdout)
    assert "15.42 [" in out and "reasonable-small" in out  # an interval row whole, not wrapped in its cell
    interval_rows = [line for line in out.splitlines() if line.startswith("reasonable-small")]
    assert len(interval_rows) == 1 and interval_rows[0].count("[") == 3


def test_the_test_verbs_table_fits_80_columns(kaist, tmp_path, monkeypatch):
    """`kaist-kit test`'s table, printed after the checkpoint has run (the run itself stubbed)."""
    results = tmp_path / "faster-rcnn_r50_fpn_halfway-fusion_1x_kaist_result.json"
    results.write_bytes((kaist / "results" / "MLPD_result.json").read_bytes())
    run = types.SimpleNamespace(
        results=results,
        ground_truth=kaist / "test-all-20.leaderboard.json",
        settings=["reasonable", "reasonable-small", "reasonable-heavy", "all-pedestrians"],
        protocol="leaderboard",
        table=None,
    )
    predict = types.ModuleType("kaist_kit.models.predict")
    predict.test = lambda *args, **kwargs: run
    monkeypatch.setitem(sys.modules, "kaist_kit.models", types.ModuleType("kaist_kit.models"))
    monkeypatch.setitem(sys.modules, "kaist_kit.models.predict", predict)
    config = tmp_path / "faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py"
    config.write_text("model = dict()\n")
    checkpoint = tmp_path / "epoch_12.pth"
    checkpoint.write_bytes(b"")
    result = CliRunner().invoke(
        app, ["test", str(config), str(checkpoint), "--out", str(results)], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    out = lines_fit(result.stdout)
    assert "faster-rcnn_r50_fpn_halfway-" in out and "7.58" in out and "all-pedestrians" in out
