"""IoU thresholds, AP / AR, reference FPPI ranges, custom settings and scene splits: their rules, one by one."""

import json
import math
import warnings

import numpy as np
import pytest
from conftest import det, frames, make_dets, make_gt, person

from kaist_kit.errors import InputError, KitWarning
from kaist_kit.metrics import coco
from kaist_kit.metrics.challenge import CHALLENGE2024_COLUMNS, challenge2024_leaderboard, challenge2024_scores
from kaist_kit.metrics.evaluate import Evaluation, evaluate
from kaist_kit.metrics.matching import squarified
from kaist_kit.metrics.settings import (
    LEADERBOARD,
    MATLAB,
    PRESETS,
    SETTINGS,
    get_setting,
    parse_fppi_range,
    parse_setting,
    with_fppi_range,
)

BOX = (100, 100, 40, 100)
ELSEWHERE = (400, 200, 40, 100)


def evaluation_of(images, annotations, records, settings=("reasonable",)):
    gt = make_gt(images, annotations)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        return Evaluation(gt, make_dets(gt, records), list(settings))


# ------------------------------------------------------------------------------------------------
# IoU thresholds


def test_challenge_thresholds_are_numpy_linspace_floats():
    # The 2024 evaluator's thresholds, as its own expression computes them; the one printed 0.9 is
    # one unit in the last place below the decimal 0.9. Recall points likewise.
    assert coco.IOU_THRESHOLDS == tuple(np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True))
    assert coco.IOU_THRESHOLDS[8] == 0.8999999999999999 == np.nextafter(0.9, 0)
    assert [t for t in coco.IOU_THRESHOLDS if t != round(t, 2)] == [0.8999999999999999]
    assert coco.IOU_THRESHOLDS[2] == 0.6 and coco.IOU_THRESHOLDS[5] == 0.75
    assert coco.RECALL_POINTS.tolist() == np.linspace(0, 1, 101).tolist() and len(coco.RECALL_POINTS) == 101


def test_overlap_of_exactly_the_challenge_float_counts_for_ap_but_not_at_iou_0_9():
    # A detection whose IoU with a 32 x 128 pedestrian is exactly 0.8999999999999999: the challenge's
    # tenth-but-one threshold takes it (so AP and AR do), --iou 0.9 (the decimal) does not.
    pedestrian, detection = (100.0, 100.0, 32.0, 128.0), (100.0, 100.0, 35.55555555555556, 128.0)
    evaluation = evaluation_of(frames(2), [person(1, 0, pedestrian)], [det(0, detection, 0.9)])
    pairs = evaluation.pairs_at(0.5)
    assert pairs.iou.tolist() == [0.8999999999999999]
    for protocol in ("leaderboard", "matlab"):
        precision, recall, _ = evaluation.precision_recall("reasonable", "all", protocol)
        assert recall.tolist() == [1.0] * 9 + [0.0]
        assert evaluation.score("reasonable", "all", protocol, iou=0.9).recall == 0.0
        assert evaluation.score("reasonable", "all", protocol, iou=coco.IOU_THRESHOLDS[8]).recall == 1.0


def test_overlap_exactly_at_a_threshold_matches():
    # IoU 2400 / 4000 is the float 0.6; an ignore region covering 0.75 of a detection takes it at 0.75.
    images = frames(3)
    anns = [person(1, 0, BOX), person(2, 1, (300, 100, 40, 75), ignore=1)]
    records = [det(0, (100, 100, 40, 60), 0.9), det(1, (300, 100, 40, 100), 0.8)]
    evaluation = evaluation_of(images, anns, records)
    assert sorted(evaluation.pairs_at(0.5).iou.tolist() + evaluation.pairs_at(0.5).iod.tolist())[-2:] == [0.75, 1.0]
    for iou, status in ((0.5, [1, -1]), (0.6, [1, -1]), (0.75, [0, -1]), (np.nextafter(0.75, 1), [0, 0])):
        assert evaluation.matches_at(iou).status[0].tolist() == status, iou
    for protocol in ("leaderboard", "matlab"):
        assert evaluation.score("reasonable", "all", protocol, iou=0.6).recall == 1.0
        assert evaluation.score("reasonable", "all", protocol, iou=np.nextafter(0.6, 1)).recall == 0.0


def test_one_matching_per_threshold_shared_by_settings_splits_and_metrics():
    evaluation = evaluation_of(
        frames(4, night_from=2),
        [person(1, 0, BOX), person(2, 2, BOX)],
        [det(0, BOX, 0.9), det(2, BOX, 0.8)],
        settings=list(SETTINGS),
    )
    first = evaluation.matches_at(0.75)
    evaluation.score("far", "night", "matlab", iou=0.75)
    evaluation.metric_values(["ap", "ar", "ap75"], "reasonable", "day", "leaderboard")
    evaluation.metric_values(["ap50"], "occ-none", "all", "matlab")
    assert evaluation.matches_at(0.75) is first
    assert evaluation.matched_thresholds == coco.IOU_THRESHOLDS
    with pytest.raises(ValueError, match="between 0 and 1"):
        evaluation.matches_at(1.0)


def test_evaluation_made_at_another_threshold_reads_it_by_default():
    # What the diagnosis and the comparison build on: `matches`, `score` and `curve_terms` at its IoU.
    images, anns = frames(3), [person(1, 0, BOX), person(2, 1, BOX)]
    records = [det(0, (100, 100, 40, 70), 0.9), det(1, BOX, 0.8), det(2, ELSEWHERE, 0.7)]
    at_half, strict = evaluation_of(images, anns, records), evaluation_of(images, anns, records)
    strict = Evaluation(strict.gt, make_dets(strict.gt, records), ["reasonable"], iou=0.75)
    assert strict.matches is strict.matches_at(0.75) and strict.iou == 0.75
    for protocol in ("leaderboard", with_fppi_range(MATLAB, (1e-4, 1.0))):
        got, want = strict.score("reasonable", "all", protocol), at_half.score("reasonable", "all", protocol, iou=0.75)
        assert (got.iou, got.lamr, got.miss_rates) == (0.75, want.lamr, want.miss_rates)
        assert got.lamr != at_half.score("reasonable", "all", protocol).lamr
        assert strict.curve_terms("reasonable", "all", protocol).positive.tolist() == [False, True, False]


# ------------------------------------------------------------------------------------------------
# AP and AR


def test_coco_accumulation_by_hand():
    # TP 0.9, FP 0.8, TP 0.7, FP 0.6 with three pedestrians: precision 1 up to recall 1/3, 2/3 up to
    # recall 2/3, nothing beyond; 34 of the 101 recall points read the first, 33 the second.
    images = frames(4)
    anns = [person(1, 0, BOX), person(2, 1, BOX), person(3, 2, BOX)]
    records = [det(0, BOX, 0.9), det(3, ELSEWHERE, 0.8), det(1, BOX, 0.7), det(2, ELSEWHERE, 0.6)]
    values = evaluation_of(images, anns, records).metric_values(["ap50", "ap75", "ap", "ar"], "reasonable")
    eps = np.spacing(1)
    first, second = 1 / (0 + 1 + eps), 2 / (1 + 2 + eps)
    assert values["ap50"] == np.mean([first] * 34 + [second] * 33 + [0.0] * 34)
    assert values["ap50"] == values["ap75"] == values["ap"] == pytest.approx(56 / 101, rel=1e-12)
    assert values["ar"] == np.mean([2 / 3] * 10)  # COCO's mean of the ten final recalls

    # A detection in an ignore region, anywhere in the curve, changes nothing.
    region = (250, 300, 40, 100)
    ignored = anns + [person(4, 3, region, ignore=1)]
    same = evaluation_of(images, ignored, records + [det(3, region, 0.95), det(3, region, 0.65)]).metric_values(
        ["ap50", "ar"], "reasonable"
    )
    assert same == {"ap50": values["ap50"], "ar": values["ar"]}


def test_ap_under_each_protocols_rules():
    # The leaderboard's rules carry over: a match to annotation id 0 is a false positive, and
    # images without detections leave with their pedestrians; the devkit's count both.
    images = frames(3)
    anns = [person(0, 0, BOX), person(1, 1, BOX), person(2, 2, BOX)]
    records = [det(0, BOX, 0.9), det(1, BOX, 0.8)]
    evaluation = evaluation_of(images, anns, records)
    leaderboard = evaluation.metric_values(["ap50", "ar"], "reasonable", "all", "leaderboard")
    matlab = evaluation.metric_values(["ap50", "ar"], "reasonable", "all", "matlab")
    assert leaderboard["ar"] == 1 / 2  # one of the two pedestrians of images with detections
    assert matlab["ar"] == np.mean([2 / 3] * 10)
    assert leaderboard["ap50"] < matlab["ap50"]


def test_ap_and_ar_are_undefined_without_pedestrians():
    gt = make_gt(frames(2), [person(1, 0, BOX, occlusion=2)])
    (row,) = evaluate(
        gt, make_dets(gt, [det(0, BOX, 0.9)]), ["reasonable"], ["all"], ["matlab"], metrics=["ap50", "ar"]
    )
    assert math.isnan(row.value("ap50")) and math.isnan(row.value("ar"))
    assert row.to_dict()["ap50"] is None


def test_json_rows_name_their_iou_and_metrics():
    gt = make_gt(frames(2), [person(1, 0, BOX)])
    dets = make_dets(gt, [det(0, BOX, 0.9), det(1, ELSEWHERE, 0.5)])
    rows = evaluate(
        gt,
        dets,
        ["reasonable", "near"],
        ["all", "day"],
        ["leaderboard"],
        ious=[0.5, 0.75],
        metrics=["lamr", "ap50", "ar"],
    )
    assert [(r.setting, r.iou, r.split) for r in rows] == [
        (s, t, split) for s in ("reasonable", "near") for t in (0.5, 0.75) for split in ("all", "day")
    ]
    keys = list(rows[0].to_dict())
    assert keys == [
        "method",
        "protocol",
        "setting",
        "split",
        "iou",
        "lamr",
        "miss_rates",
        "fppi_refs",
        "recall",
        "n_images",
        "n_gt",
        "ap50",
        "ar",
    ]
    only_ap = evaluate(gt, dets, metrics=["ap"])[0].to_dict()
    assert "lamr" not in only_ap and only_ap["iou"] == 0.5 and 0 < only_ap["ap"] <= 1
    with pytest.raises(ValueError, match="unknown metric"):
        evaluate(gt, dets, metrics=["map"])


def test_challenge2024_category_other_than_zero_scores_minus_one():
    gt = make_gt(frames(2), [person(1, 0, BOX)])
    dets = make_dets(gt, [det(0, BOX, 0.9)])
    good = challenge2024_scores(gt, dets)
    assert good["AP_iou50"] == np.mean([1 / (1 + np.spacing(1))] * 101) and good["AP_iou50:95"] == 1.0
    assert good["MR_iou50_all"] == 0.0 and good["MR_iou50_night"] == -1.0  # no pedestrian at night
    wrong = challenge2024_scores(gt, dets, category_id=1)
    assert set(wrong.values()) == {-1.0} and len(wrong) == 12
    shown = challenge2024_leaderboard(wrong)
    assert list(shown) == list(CHALLENGE2024_COLUMNS)
    assert {k: v for k, v in shown.items() if k.startswith("MR")} == dict.fromkeys(
        ["MR_-2_iou50_all", "MR_-2_iou50_day", "MR_-2_iou50_night"], -100.0
    )
    assert {k: v for k, v in shown.items() if k.startswith("AP")} == dict.fromkeys(
        ["AP_iou50", "AP_iou75", "AP_iou50:95"], -1.0
    )


# ------------------------------------------------------------------------------------------------
# Reference FPPI range


def test_fppi_range_reference_points():
    assert with_fppi_range(LEADERBOARD) is LEADERBOARD  # its nine rounded values, bit for bit
    assert LEADERBOARD.fppi_refs == (0.0100, 0.0178, 0.0316, 0.0562, 0.1000, 0.1778, 0.3162, 0.5623, 1.0000)
    assert with_fppi_range(MATLAB) is MATLAB
    mr4 = with_fppi_range(LEADERBOARD, (1e-4, 1.0))
    assert mr4.fppi_refs == tuple(10.0 ** (-4 + k / 4) for k in range(17))
    assert mr4.name == "leaderboard" and mr4.below_first_reads_last
    assert with_fppi_range(MATLAB, (1e-4, 1.0)).fppi_refs == mr4.fppi_refs
    assert len(with_fppi_range(MATLAB, (1e-3, 10.0)).fppi_refs) == 17
    assert parse_fppi_range("1e-4:1") == (1e-4, 1.0)
    for bad in ("1e-4", "1:1e-4", "0:1", "a:b", "1e-2:inf"):
        with pytest.raises(ValueError, match="FPPI range"):
            parse_fppi_range(bad)


# ------------------------------------------------------------------------------------------------
# Custom settings


def test_custom_setting_spelling_and_names():
    s = get_setting("height=50:inf,occlusion=none+partial")
    assert s.name == "height=50:inf,occlusion=none+partial,border=5"
    assert (s.height, s.occlusions, s.border, s.squarify) == ((50, math.inf), frozenset({0, 1}), 5, None)
    assert get_setting(s.name) == s  # the name reads back as the same setting
    square = get_setting("reasonable,squarify")
    assert square.name == "height=55:inf,occlusion=none+partial,border=5,squarify=0.41"
    assert (
        get_setting("occlusion=heavy, height=20:80, border=0, squarify=0.5").name
        == "height=20:80,occlusion=heavy,border=0,squarify=0.5"
    )
    assert get_setting("height=:").name == "height=0:inf,occlusion=none+partial+heavy,border=5"
    assert get_setting("reasonable-h50") is PRESETS["reasonable-h50"]
    assert get_setting("reasonable") is SETTINGS["reasonable"]
    for bad, message in (
        ("height=50", "LOW:HIGH"),
        ("height=80:50", "range"),
        ("occlusion=some", "occlusion"),
        ("weight=5", "unknown setting parameter"),
        ("border=-1", "negative"),
        ("squarify=0", "positive"),
        ("height=50:inf,height=1:2", "twice"),
        ("nearish,border=3", "unknown setting"),
        ("nearish", "unknown setting"),
    ):
        with pytest.raises(ValueError, match=message):
            get_setting(bad)
    assert parse_setting.cache_info().maxsize  # specs are parsed once


def test_squarify_as_the_devkit_counted_boxes_only():
    # bbApply('squarify', bb, 3, .41): d = h*ar - w; x = x - d/2; w = w + d; y and h kept.
    box = np.array([[100.0, 100.0, 20.0, 100.0], [7.25, 3.5, 33.3, 87.1]])
    x, y, w, h = box.T
    d = h * 0.41 - w
    assert squarified(box, 0.41).tolist() == np.column_stack([x - d / 2, y, w + d, h]).tolist()
    # A narrow pedestrian, and the detection of its squarified box: IoU 20 / 41 as annotated, 1 squarified.
    narrow, square = (100.0, 100.0, 20.0, 100.0), (89.5, 100.0, 41.0, 100.0)
    images = frames(2)
    counted = [person(1, 0, narrow)]
    heavy = [person(1, 0, narrow, occlusion=2)]  # ignored in reasonable: an ignore region that keeps its box
    records = [det(0, square, 0.9)]
    for protocol in ("leaderboard", "matlab"):
        plain = evaluation_of(images, counted, records, ["reasonable"]).score("reasonable", "all", protocol)
        squared = evaluation_of(images, counted, records, ["reasonable,squarify"]).score(
            "reasonable,squarify", "all", protocol
        )
        assert (plain.recall, squared.recall) == (0.0, 1.0)
        region = evaluation_of(images, heavy, records, ["reasonable,squarify"]).score(
            "reasonable,squarify", "all", protocol
        )
        assert region.curve.fppi.tolist() == [0.5]  # a false positive: the region was not squarified
    # Settings that squarify and settings that do not are matched side by side in one Evaluation.
    both = evaluation_of(images, counted, records, ["reasonable", "reasonable,squarify", "near"])
    assert both.matches.status[:, 0].tolist() == [0, 1, 0]


# ------------------------------------------------------------------------------------------------
# Scene and set splits


def test_scene_and_set_splits(leaderboard_gt):
    gt = leaderboard_gt
    size = {
        name: int(gt.split_mask(name).sum())
        for name in (
            "campus",
            "road",
            "downtown",
            "campus-day",
            "campus-night",
            "road-day",
            "road-night",
            "downtown-day",
            "downtown-night",
            "set06",
            "set07",
            "set08",
            "set09",
            "set10",
            "set11",
        )
    }
    assert size == {
        "campus": 823,
        "road": 850,
        "downtown": 579,
        "campus-day": 648,
        "campus-night": 175,
        "road-day": 406,
        "road-night": 444,
        "downtown-day": 401,
        "downtown-night": 178,
        "set06": 648,
        "set07": 406,
        "set08": 401,
        "set09": 175,
        "set10": 444,
        "set11": 178,
    }
    mask = gt.split_mask
    assert np.array_equal(mask("campus"), mask("set06") | mask("set09"))
    assert np.array_equal(mask("road-night"), mask("set10"))
    assert np.array_equal(mask("downtown-day"), mask("set08"))
    assert np.array_equal(mask("day"), mask("set06") | mask("set07") | mask("set08"))
    assert np.array_equal(mask("campus") | mask("road") | mask("downtown"), mask("all"))
    assert np.array_equal(mask(mask("road")), mask("road"))


def test_scene_split_errors():
    gt = make_gt([{"id": 0, "im_name": "frame0"}, {"id": 1, "im_name": "frame1"}], [])
    with pytest.raises(InputError, match="no set number"):
        gt.split_mask("campus")
    gt = make_gt(frames(3), [])  # set06 only
    with pytest.raises(InputError, match="holds no image"):
        gt.split_mask("road")
    for bad in ("park", "campus-dusk", "set6", "set100"):
        with pytest.raises(InputError, match="unknown split"):  # one line, as a command says it
            gt.split_mask(bad)
    assert gt.split_mask("set06").all() and gt.split_mask("campus-day").all()


def test_split_results_equal_image_lists(kaist, leaderboard_gt):
    from kaist_kit.data.results import load_detections

    dets = load_detections(kaist / "results" / "MLPD_result.txt", leaderboard_gt)
    evaluation = Evaluation(leaderboard_gt, dets, ["reasonable"])
    ids = [
        int(i)
        for i, name in zip(leaderboard_gt.image_ids, leaderboard_gt.image_names)
        if name.startswith(("set07", "set10"))
    ]
    for protocol in ("leaderboard", "matlab"):
        by_name = evaluation.score("reasonable", "road", protocol)
        by_ids = evaluation.score("reasonable", ids, protocol)
        assert (by_name.lamr, by_name.n_gt, by_name.split) == (by_ids.lamr, by_ids.n_gt, "road")
    assert json.dumps(by_name.to_dict())  # plain JSON


def test_boxes_near_the_float_range_match_nothing_and_warn_nothing():
    gt = make_gt(frames(2), [person(1, 0, (100, 100, 40, 100)), person(2, 1, (1e308, 1e308, 1e308, 1e308))])
    dets = make_dets(
        gt,
        [
            det(0, (100, 100, 40, 100), 0.9),
            det(0, (1e308, 1e308, 1e308, 1e308), 0.8),
            det(1, (1e308, 1e308, 1e308, 1e308), 0.7),
            det(1, (0, 0, 1e200, 1e200), 0.6),
        ],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = Evaluation(gt, dets).score("all-pedestrians", "all")
    assert result.recall > 0 and math.isfinite(result.lamr)
