"""Parity with the leaderboard's and the devkit's own numbers on the real benchmark files."""

import json
import warnings

import numpy as np
import pytest
from conftest import shuffled_copy

from kaist_kit.data.detections import ReadOptions
from kaist_kit.data.results import load_detections
from kaist_kit.errors import KitWarning
from kaist_kit.metrics.evaluate import Evaluation, evaluate
from kaist_kit.metrics.settings import SETTINGS
from kaist_kit.scoring.findings import inspect

RESULT_FILES = {
    "MBNet": "MBNet_result.txt",
    "MLPD": "MLPD_result.txt",
    "MBNet-per-image": "MBNet-per-image.tar.gz",
}


def reference(kaist, protocol):
    return json.loads((kaist / "results" / f"reference-lamr.{protocol}.json").read_text())["values"]


@pytest.mark.parametrize("protocol", ["leaderboard", "matlab"])
def test_reference_numbers_reproduced(kaist, leaderboard_gt, protocol):
    values = reference(kaist, protocol)
    expected_methods = {"leaderboard": {"MBNet", "MLPD"}, "matlab": {"MBNet", "MLPD", "MBNet-per-image"}}[protocol]
    assert set(values) == expected_methods
    checked = 0
    for method, settings in values.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KitWarning)
            dets = load_detections(kaist / "results" / RESULT_FILES[method], leaderboard_gt)
        evaluation = Evaluation(leaderboard_gt, dets, list(settings))
        for setting, splits in settings.items():
            for split, want in splits.items():
                got = evaluation.score(setting, split, protocol).lamr
                assert got == pytest.approx(want, abs=1e-12, rel=0), (method, setting, split)
                checked += 1
    assert checked == {"leaderboard": 24, "matlab": 27}[protocol]


def test_published_reasonable_numbers(kaist, leaderboard_gt):
    published = {"MBNet": (8.13, 8.28, 7.86), "MLPD": (7.58, 7.96, 6.95)}
    for method, numbers in published.items():
        dets = load_detections(kaist / "results" / RESULT_FILES[method], leaderboard_gt)
        results = evaluate(leaderboard_gt, dets)
        assert tuple(round(100 * r.lamr, 2) for r in results) == numbers


def test_mbnet_day_differs_between_protocols_by_rounded_references(kaist, leaderboard_gt):
    dets = load_detections(kaist / "results" / "MBNet_result.txt", leaderboard_gt)
    evaluation = Evaluation(leaderboard_gt, dets, ["reasonable"])
    lb = evaluation.score("reasonable", "day", "leaderboard")
    dl = evaluation.score("reasonable", "day", "matlab")
    assert round(100 * lb.lamr, 4) == 8.2819 and round(100 * dl.lamr, 4) == 8.2759
    assert lb.n_gt == dl.n_gt  # only the reference points differ here


def test_coco_json_scores_exactly_as_txt(kaist, leaderboard_gt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        from_json = load_detections(kaist / "results" / "MLPD_result.json", leaderboard_gt)
        from_txt = load_detections(kaist / "results" / "MLPD_result.txt", leaderboard_gt)
    assert len(from_json) == len(from_txt) == 5939
    for protocol in ("leaderboard", "matlab"):
        a = evaluate(leaderboard_gt, from_json, SETTINGS, protocols=[protocol])
        b = evaluate(leaderboard_gt, from_txt, SETTINGS, protocols=[protocol])
        assert [r.lamr for r in a] == [r.lamr for r in b]
        assert [r.miss_rates for r in a] == [r.miss_rates for r in b]


def test_shuffled_file_scores_as_published_with_warning(kaist, leaderboard_gt, tmp_path):
    # The leaderboard scores MBNet's file shuffled within images as 80.05; the kit scores it as the
    # sorted file and says what the leaderboard would do.
    shuffled = shuffled_copy(kaist / "results" / "MBNet_result.txt", tmp_path)
    dets = load_detections(shuffled, leaderboard_gt)
    (unsorted,) = [f for f in inspect(dets, leaderboard_gt) if f.code == "unsorted"]
    assert "not sorted by descending score" in unsorted.message and unsorted.leaderboard == "mis-score"
    results = evaluate(leaderboard_gt, dets)
    assert round(100 * results[0].lamr, 2) == 8.13


def test_per_image_folder_reads_like_the_devkit_aggregator(kaist, leaderboard_gt, tmp_path):
    import tarfile

    with tarfile.open(kaist / "results" / "MBNet-per-image.tar.gz") as archive:
        archive.extractall(tmp_path, filter="data")
    folder = tmp_path / "result"
    from_folder = load_detections(folder, leaderboard_gt)
    from_archive = load_detections(kaist / "results" / "MBNet-per-image.tar.gz", leaderboard_gt)
    assert np.array_equal(from_folder.boxes, from_archive.boxes)
    line = (folder / "set06_V000_I00019.txt").read_text().splitlines()[0].split()
    x1, y1, x2, y2 = map(float, line[1:5])
    first = from_folder.boxes[np.flatnonzero(from_folder.image == 0)[0]]
    assert list(first) == [round(x1 + 1, 4), round(y1 + 1, 4), round(x2 - x1, 4), round(y2 - y1, 4)]
    unshifted = load_detections(folder, leaderboard_gt, ReadOptions(devkit_shift=False))
    assert unshifted.boxes[np.flatnonzero(unshifted.image == 0)[0]][0] == x1


def test_evaluation_is_reused_across_splits_and_protocols(kaist, leaderboard_gt):
    dets = load_detections(kaist / "results" / "MLPD_result.txt", leaderboard_gt)
    evaluation = Evaluation(leaderboard_gt, dets, ["reasonable"])
    day_ids = [i for i, p in zip(leaderboard_gt.image_ids, leaderboard_gt.image_periods) if p == "day"]
    assert day_ids == list(range(1455))
    by_name = evaluation.score("reasonable", "day", "leaderboard").lamr
    by_ids = evaluation.score("reasonable", day_ids, "leaderboard").lamr
    names = [leaderboard_gt.image_names[i] for i in day_ids]
    by_names = evaluation.score("reasonable", names, "leaderboard").lamr
    assert by_name == by_ids == by_names


CHALLENGE_FILES = {"MBNet": ["MBNet_result.txt"], "MLPD": ["MLPD_result.txt", "MLPD_result.json"]}


def test_challenge2024_reference_numbers(kaist, leaderboard_gt):
    # The 2024 challenge evaluator's AP_iou50, AP_iou75, AP_iou50:95 (COCO's average recall) on
    # reasonable / all, and its MR at IoU 0.5, 0.6 and 0.75: the kit's ap50, ap75, ar and lamr.
    from kaist_kit.metrics.challenge import challenge2024_scores

    want = json.loads((kaist / "results" / "reference-challenge2024.json").read_text())
    assert set(want) == set(CHALLENGE_FILES)
    checked = 0
    for method, files in CHALLENGE_FILES.items():
        assert len(want[method]) == 12
        for name in files:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", KitWarning)
                dets = load_detections(kaist / "results" / name, leaderboard_gt)
                got = challenge2024_scores(leaderboard_gt, dets)
            assert set(got) == set(want[method])
            for key, value in want[method].items():
                assert got[key] == pytest.approx(value, abs=1e-12, rel=0), (name, key)
                checked += 1
    assert checked == 36


def test_matlab_variant_numbers(kaist, leaderboard_gt):
    # The devkit's own numbers at IoU 0.6 and 0.75, for MR-4 (17 points 10^(-4:.25:0)) and for
    # height >= 50, all / day / night: --iou, --fppi-range 1e-4:1 and --setting reasonable-h50.
    from kaist_kit.metrics.settings import MATLAB, with_fppi_range

    want = json.loads((kaist / "results" / "reference-lamr.matlab-variants.json").read_text())
    mr4 = with_fppi_range(MATLAB, (1e-4, 1.0))
    assert len(mr4.fppi_refs) == 17
    checked = 0
    for method in ("MBNet", "MLPD"):
        assert len(want[method]) == 12
        dets = load_detections(kaist / "results" / RESULT_FILES[method], leaderboard_gt)
        evaluation = Evaluation(leaderboard_gt, dets, ["reasonable", "reasonable-h50"])
        for key, value in want[method].items():
            variant, split = key.split("/")
            if variant == "h50":
                got = evaluation.score("reasonable-h50", split, MATLAB)
            elif variant == "mr4":
                got = evaluation.score("reasonable", split, mr4)
            else:
                got = evaluation.score("reasonable", split, MATLAB, iou={"iou60": 0.6, "iou75": 0.75}[variant])
            assert got.lamr == pytest.approx(value, abs=1e-12, rel=0), (method, key)
            checked += 1
    assert checked == 24


def test_custom_settings_reproduce_named_ones_exactly(kaist, leaderboard_gt):
    from kaist_kit.metrics.settings import PRESETS, SETTINGS, setting_name

    named = {**SETTINGS, **PRESETS}
    custom = {name: setting_name(s.height, s.occlusions, s.border, s.squarify) for name, s in named.items()}
    dets = load_detections(kaist / "results" / "MBNet_result.txt", leaderboard_gt)
    for protocol in ("leaderboard", "matlab"):
        a = evaluate(leaderboard_gt, dets, list(named), protocols=[protocol], ious=[0.5, 0.75], metrics=["lamr", "ap"])
        b = evaluate(
            leaderboard_gt, dets, list(custom.values()), protocols=[protocol], ious=[0.5, 0.75], metrics=["lamr", "ap"]
        )
        assert [r.setting for r in a] == [s for s in named for _ in range(6)]
        assert [r.setting for r in b] == [custom[s] for s in named for _ in range(6)]
        assert [(r.lamr, r.miss_rates, r.recall, r.n_gt, r.values) for r in a] == [
            (r.lamr, r.miss_rates, r.recall, r.n_gt, r.values) for r in b
        ]
