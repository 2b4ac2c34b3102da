"""Image lists get split names of their own, and the diagnosis' misses tables say whose operating point
they read."""

import json
import warnings
from pathlib import Path

import pytest
from conftest import det, frames, make_dets, make_gt, person
from test_inputs import run_cli

from kaist_kit.diagnosis import DiagnosisParams, diagnose
from kaist_kit.diagnosis.report import tables
from kaist_kit.errors import KitWarning
from kaist_kit.imagesets import list_split_names


@pytest.mark.parametrize("paths, taken, names", [
    (["lists/day.txt"], [], ["day.txt"]),
    (["all.txt", "night.txt", "set06.txt", "campus-night.txt", "road.txt"], [],
     ["all.txt", "night.txt", "set06.txt", "campus-night.txt", "road.txt"]),
    (["mine.txt"], [], ["mine"]),
    (["a/x.txt", "b/x.txt"], [], ["x", "x.txt"]),
    (["a/x.txt", "b/x.txt", "c/x.txt"], [], ["x", "x.txt", "c/x.txt"]),
    (["x.txt"], ["x"], ["x.txt"]),
    (["lists/day"], [], ["lists/day"]),
    (["x.txt", "x.txt"], [], ["x", "x.txt"]),
    (["x.txt", "x.txt", "x.txt", "x.txt"], [], ["x", "x.txt", "x.txt (2)", "x.txt (3)"]),
])
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
    proc = run_cli("eval", kaist / "results" / "MLPD_result.txt", "--gt", kaist / "test-all-20.leaderboard.json",
                   "--split", "day", "--images", tmp_path / "a" / "day.txt", "--images", tmp_path / "b" / "day.txt",
                   "--format", "json")
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
    proc = run_cli("diagnose", Path(kaist / "results" / "MLPD_result.txt"), "--gt",
                   kaist / "test-all-20.leaderboard.json", "--resamples", "20")
    assert proc.returncode == 0
    assert "Each split is read at its own operating point" in " ".join(proc.stdout.split())
