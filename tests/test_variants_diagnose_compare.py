"""`diagnose` and `compare` at another IoU, over another FPPI range, with custom settings and scene splits:
the same numbers as `eval`, and error types at the matching's own threshold."""

import json
import warnings

import numpy as np
import pytest
from conftest import det, frames, make_dets, make_gt, person
from plain_diagnosis import plain_error_types
from test_diagnosis import error_case, error_types_by_record, run_cli, small_files  # noqa: F401  (a fixture)

from kaist_kit.diagnosis import FP_TYPES, DiagnosisParams, diagnose, type_false_positives
from kaist_kit.diagnosis.compute import OUTCOMES, intersecting_pairs
from kaist_kit.errors import KitWarning
from kaist_kit.metrics.bootstrap import Resampling
from kaist_kit.metrics.evaluate import Evaluation
from kaist_kit.metrics.settings import LEADERBOARD, MATLAB, SETTINGS, get_protocol, with_fppi_range
from kaist_kit.scoring.comparison import compare

SQUARE = ((55, float("inf")), {0, 1}, 5, 0.41)  # reasonable, squarified, as plain_lamr takes it
SQUARE_NAME = "height=55:inf,occlusion=none+partial,border=5,squarify=0.41"


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize("iou", [0.6, 0.75])
def test_error_types_at_the_matchings_threshold_match_plain_loops(iou):
    rng = np.random.default_rng(900 + int(100 * iou))
    seen = dict.fromkeys(FP_TYPES, 0)
    for _ in range(40):
        images, annotations, records = error_case(rng)
        gt = make_gt(images, annotations)
        evaluation = quiet(
            Evaluation, gt, make_dets(gt, records), ["reasonable", "all-pedestrians", SQUARE_NAME], iou=iou
        )
        pairs = intersecting_pairs(evaluation)
        for protocol in ("leaderboard", "matlab"):
            types = type_false_positives(evaluation, pairs, get_protocol(protocol))
            for row, setting in enumerate(["reasonable", "all-pedestrians", SQUARE]):
                want = plain_error_types(images, annotations, records, setting, protocol, iou)
                assert error_types_by_record(evaluation, types, row) == want, (iou, protocol, setting)
                for name, _ in want.values():
                    seen[name] += 1
    assert min(seen.values()) > 0, seen


def test_duplicates_follow_the_threshold_and_the_squarified_box():
    # A pedestrian taken at IoU 0.8; a second detection at IoU 0.6 is a duplicate at 0.5, not at 0.75
    # (a scale error: same centre). A narrow pedestrian (20 x 100) is taken, where the setting squarifies,
    # by a detection of its squarified box (41 x 100); a detection 30 wide on it is then a duplicate
    # (IoU 0.73 with the squarified box), while as annotated it is the true positive.
    gt = make_gt(frames(2), [person(1, 0, (100, 100, 40, 100)), person(2, 1, (300, 100, 20, 100))])
    records = [
        det(0, (100, 100, 40, 80), 0.9),
        det(0, (100, 100, 40, 60), 0.8),
        det(1, (289.5, 100, 41, 100), 0.9),
        det(1, (295, 100, 30, 100), 0.8),
    ]
    dets = make_dets(gt, records)
    kinds = {}
    for iou in (0.5, 0.75):
        found = quiet(
            diagnose,
            gt,
            dets,
            DiagnosisParams(
                settings=("reasonable", "reasonable,squarify"), splits=("all",), resamples=5, examples=0, iou=iou
            ),
        )
        out = found.outcomes
        for row, setting in enumerate(out.settings):
            kinds[(iou, setting)] = [
                FP_TYPES[k] if k >= 0 else OUTCOMES[out.status[row, d]] for d, k in enumerate(out.fp_type[row])
            ]
    assert kinds[(0.5, "reasonable")] == ["TP", "duplicate", "scale", "TP"]
    assert kinds[(0.75, "reasonable")] == ["TP", "scale", "scale", "scale"]
    assert kinds[(0.5, SQUARE_NAME)] == ["TP", "duplicate", "TP", "duplicate"]


def test_diagnose_and_compare_score_as_eval(kaist, leaderboard_gt):
    from kaist_kit.data.results import load_detections

    dets = {
        name: load_detections(kaist / "results" / f"{name}_result.txt", leaderboard_gt) for name in ("MBNet", "MLPD")
    }
    mr4 = with_fppi_range(MATLAB, (1e-4, 1.0))
    found = quiet(
        compare,
        leaderboard_gt,
        list(dets.items()),
        mr4,
        ["reasonable-h50", "reasonable,squarify"],
        ["campus-night", "set07"],
        resampling=Resampling(20),
        iou=0.6,
    )
    assert found.settings == ["reasonable-h50", SQUARE_NAME] and found.to_dict()["iou"] == 0.6
    assert found.to_dict()["fppi_range"] == [1e-4, 1.0]
    for name, d in dets.items():
        evaluation = Evaluation(leaderboard_gt, d, ["reasonable-h50", SQUARE_NAME])
        for setting in found.settings:
            for split in found.splits:
                want = evaluation.score(setting, split, mr4, iou=0.6)
                assert found.scores[(name, setting, split)].result.lamr == want.lamr
    params = DiagnosisParams(
        protocol="leaderboard",
        settings=("reasonable",),
        splits=("road-day",),
        resamples=10,
        examples=0,
        iou=0.75,
        fppi_range=(1e-3, 1.0),
    )
    diagnosis = quiet(diagnose, leaderboard_gt, dets["MBNet"], params)
    want = Evaluation(leaderboard_gt, dets["MBNet"], ["reasonable"]).score(
        "reasonable", "road-day", with_fppi_range(LEADERBOARD, (1e-3, 1.0)), iou=0.75
    )
    view = diagnosis.view("reasonable", "road-day")
    assert view.result.lamr == want.lamr and len(view.result.fppi_refs) == 13
    data = diagnosis.to_dict()
    assert data["iou"] == 0.75 and len(data["fppi_refs"]) == 13
    with pytest.raises(ValueError, match="between 0 and 1"):
        DiagnosisParams(iou=1.5)


def test_cli_diagnose_and_compare_take_the_variants(small_files, tmp_path):  # noqa: F811
    gt_path, result, other = small_files
    done = run_cli(
        "diagnose",
        result,
        "--gt",
        gt_path,
        "--resamples",
        10,
        "--format",
        "json",
        "--split",
        "all",
        "--iou",
        "0.6",
        "--fppi-range",
        "1e-4:1",
        "--setting",
        "height=50:inf,occlusion=none+partial",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["iou"] == 0.6 and len(data["fppi_refs"]) == 17
    assert data["main_setting"] == "height=50:inf,occlusion=none+partial,border=5"
    assert set(data["settings"]) == {data["main_setting"], *SETTINGS}
    done = run_cli(
        "compare",
        result,
        other,
        "--gt",
        gt_path,
        "--resamples",
        10,
        "--iou",
        "0.75",
        "--split",
        "all",
        "--fppi-range",
        "1e-4:1",
        "--setting",
        "reasonable-h50",
    )
    assert done.returncode == 0, done.stderr
    assert "LAMR (%) at IoU 0.75 over FPPI 0.0001 to 1" in done.stdout and "reasonable-h50" in done.stdout
    for args, message in (
        (("--iou", "0.5", "--iou", "0.6"), "one threshold"),
        (("--split", "downtown"), "holds no"),
        (("--fppi-range", "1:2:3"), "FPPI range"),
    ):
        done = run_cli("compare", result, other, "--gt", gt_path, *args)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, args
