"""Diagnosis: false-positive types, misses, oracles, the bootstrap and its paired test.

Random cases are checked against plain references (tests/plain_diagnosis.py); the shared MBNet and
MLPD results are checked against numbers that follow from the evaluator's own results.
"""

import csv
import io
import json
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import det, frames, make_dets, make_gt, person
from plain_diagnosis import plain_error_types, plain_matches, resampled_set
from test_lamr_differential import random_case

from kaist_kit.data.detections import Detections
from kaist_kit.data.results import load_detections
from kaist_kit.diagnosis import (
    FP_TYPES,
    ORACLES,
    DiagnosisParams,
    diagnose,
    matches_table,
    never_worse,
    type_false_positives,
    write_report,
)
from kaist_kit.errors import KitWarning
from kaist_kit.metrics.bootstrap import (
    Resampling,
    WeightedCurve,
    bootstrap_lamrs,
    fp_limits,
    holm,
    paired_test,
    percentile_interval,
    resample_counts,
)
from kaist_kit.metrics.evaluate import Evaluation, score_curve
from kaist_kit.metrics.matching import overlaps_by_image
from kaist_kit.metrics.settings import LEADERBOARD, MATLAB, SETTINGS, get_protocol
from kaist_kit.scoring.comparison import compare, p_value_tables

PROTOCOLS = ("leaderboard", "matlab")


def error_case(rng, unique_scores=False):
    """A random case with every kind of false positive: duplicates, rescaled and shifted boxes, ghosts."""
    images, annotations, records = random_case(rng)
    for a in annotations:
        if rng.random() < 0.5:
            x, y, w, h = a["bbox"]
            kind = rng.choice(["duplicate", "scale", "shift"])
            if kind == "duplicate":
                box = [x + rng.normal(0, 2), y + rng.normal(0, 2), w, h]
            elif kind == "scale":
                f = rng.uniform(0.4, 2.4)
                box = [x + w / 2 - f * w / 2, y + h / 2 - f * h / 2, f * w, f * h]
            else:
                box = [x + rng.uniform(0.3, 0.7) * w * rng.choice([-1, 1]), y + rng.uniform(-0.3, 0.3) * h, w, h]
            records.append(det(a["image_id"], box, float(rng.random())))
    if unique_scores:
        for r, s in zip(records, rng.permutation(len(records))):
            r["score"] = float(s + 1) / (len(records) + 1)
    return images, annotations, records


def evaluation_of(images, annotations, records, settings=tuple(SETTINGS)):
    gt = make_gt(images, annotations)
    dets = make_dets(gt, records)
    return gt, dets, Evaluation(gt, dets, list(settings))


def quiet_diagnose(gt, dets, method="", **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        return diagnose(gt, dets, DiagnosisParams(**params), method)


# ------------------------------------------------------------------------------------------------
# False-positive types


def error_types_by_record(evaluation, types, row):
    """{record index: (type, ann_id of its pedestrian or None)} of the kit's typing, as plain_error_types."""
    got = {}
    for position in np.flatnonzero(types.kind[row] >= 0):
        target = types.target[row, position]
        got[int(evaluation.file_index[position])] = (
            FP_TYPES[types.kind[row, position]],
            int(evaluation.gt.ann_ids[target]) if target >= 0 else None,
        )
    return got


@pytest.mark.parametrize("seed", range(2))
def test_error_types_match_plain_loops(seed):
    rng = np.random.default_rng(500 + seed)
    seen = dict.fromkeys(FP_TYPES, 0)
    seen["id 0"] = 0
    for _ in range(60):
        images, annotations, records = error_case(rng)
        gt, dets, evaluation = evaluation_of(images, annotations, records)
        pairs = overlaps_by_image(evaluation.image, evaluation.boxes, gt, 0.0)
        for protocol in PROTOCOLS:
            types = type_false_positives(evaluation, pairs, get_protocol(protocol))
            for row, setting in enumerate(evaluation.settings):
                want = plain_error_types(images, annotations, records, setting, protocol)
                assert error_types_by_record(evaluation, types, row) == want, (seed, protocol, setting)
                for name, _ in want.values():
                    seen[name] += 1
                seen["id 0"] += sum(1 for k, v in want.items() if v[1] == 0 and v[0] == "duplicate")
    assert min(seen.values()) > 0, seen  # every type, and the leaderboard's id-0 match, occurred


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_error_types_partition_the_false_positives(rng, protocol):
    for _ in range(25):
        gt, dets, _ = evaluation_of(*error_case(rng))
        found = quiet_diagnose(gt, dets, protocol=protocol, resamples=5, examples=0)
        for view in found.views.values():
            n_fp = int((~view.terms.positive).sum())
            assert sum(view.false_positives["curve"].values()) == n_fp
            fp_at_op = int((~view.terms.positive[: view.operating_point.length]).sum())
            assert sum(view.false_positives["operating_point"].values()) == fp_at_op
            assert view.operating_point.fppi == pytest.approx(fp_at_op / max(view.n_images, 1))


def test_error_type_examples():
    # One image, one pedestrian of 100 px; detections made to be each type, by descending score.
    gt = make_gt(frames(1), [person(7, 0, [300, 200, 40, 100])])
    records = [
        det(0, [300, 200, 40, 100], 0.9),  # true positive
        det(0, [302, 201, 40, 100], 0.8),  # the same pedestrian again: duplicate
        det(0, [290, 175, 60, 150], 0.7),  # same centre, 1.5 times the size: IoU 0.44, a scale error
        det(0, [320, 200, 40, 100], 0.6),  # half a width aside: IoU 1/3, a localization error
        det(0, [100, 100, 40, 100], 0.5),  # nowhere near: ghost
        det(0, [338, 200, 40, 100], 0.4),  # grazing it: IoU 0.026, a ghost too
    ]
    found = quiet_diagnose(gt, make_dets(gt, records), settings=["reasonable"], splits=["all"], resamples=5, examples=5)
    view = found.view("reasonable", "all")
    assert view.false_positives["curve"] == {"duplicate": 1, "scale": 1, "localization": 1, "ghost": 2}
    assert [(e.error, e.score) for e in found.examples] == [
        ("duplicate", 0.8),
        ("scale", 0.7),
        ("localization", 0.6),
        ("ghost", 0.5),
    ]  # one per frame and type


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_matches_export_agrees_with_plain_matching(rng, protocol):
    for _ in range(12):
        images, annotations, records = error_case(rng)
        gt = make_gt(images, annotations)
        found = quiet_diagnose(gt, make_dets(gt, records), protocol=protocol, resamples=2, examples=0)
        rows = list(csv.DictReader(io.StringIO(matches_table(found, gt).to_csv())))
        settings = list(found.params.settings)
        assert len(rows) == len(records) * len(settings)
        for setting in settings:
            matched = plain_matches(images, annotations, records, setting)
            types = plain_error_types(images, annotations, records, setting, protocol)
            for k, record in enumerate(records):
                row = rows[k * len(settings) + settings.index(setting)]
                assert (row["detection"], row["setting"], float(row["score"])) == (str(k), setting, record["score"])
                assert row["image_id"] == str(record["image_id"])
                assert row["frame"] == gt.image_names[gt.image_index(record["image_id"])]
                kind, ann_id = matched[k]
                status = "FP" if k in types else {"tp": "TP", "ignored": "ignored"}[kind]
                error, about = types.get(k, ("", None))
                want = (status, error, "" if ann_id is None else str(ann_id), "" if about is None else str(about))
                got = (row["status"], row["false_positive_type"], row["annotation_id"], row["error_annotation_id"])
                assert got == want, (protocol, setting, k)


def test_matches_beyond_the_leaderboards_limit_are_unscored():
    gt = make_gt(frames(1), [person(1, 0, [300, 200, 40, 100])])
    records = [det(0, [300, 200, 40, 100], 0.9)] + [det(0, [10 + k % 500, 20, 30, 60], 0.5) for k in range(1001)]
    dets = make_dets(gt, records)
    for protocol, unscored in (("leaderboard", 2), ("matlab", 0)):
        found = quiet_diagnose(gt, dets, protocol=protocol, settings=["reasonable"], splits=["all"], resamples=2)
        rows = [r for r in csv.DictReader(io.StringIO(matches_table(found, gt).to_csv()))]
        assert [r["status"] for r in rows].count("unscored") == unscored
        assert all(r["annotation_id"] == r["false_positive_type"] == "" for r in rows if r["status"] == "unscored")


# ------------------------------------------------------------------------------------------------
# Oracles


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_oracles_never_make_lamr_worse(rng, protocol):
    improved = 0
    for _ in range(30):
        gt, dets, _ = evaluation_of(*error_case(rng))
        found = quiet_diagnose(gt, dets, protocol=protocol, resamples=5, examples=0)
        for view in found.views.values():
            assert set(view.oracles) == set(ORACLES)
            for name, lamr in view.oracles.items():
                assert lamr <= view.result.lamr, (name, view.setting, view.split)
                improved += lamr < view.result.lamr
    assert improved > 100  # the fixes do something


def test_oracle_keeps_the_base_reading_where_the_leaderboard_reads_below_the_first_point():
    # 10 images, 3 pedestrians. The curve: ghost (FPPI 0.1), hit, localization error (0.2), hit. The
    # leaderboard reads the references below 0.1 as the curve's final recall, 2/3. With the ghost
    # removed the curve starts with a hit at FPPI 0 and those references read 1/3: worse there,
    # better at 0.1 and 0.1778. The oracle keeps the better reading at each reference.
    gt = make_gt(frames(10), [person(k + 1, k, [100, 100, 40, 100]) for k in range(3)])
    records = [
        det(5, [400, 100, 40, 100], 0.9),
        det(0, [100, 100, 40, 100], 0.8),
        det(2, [120, 100, 40, 100], 0.75),
        det(1, [100, 100, 40, 100], 0.7),
    ]
    dets = make_dets(gt, records)
    base = Evaluation(gt, dets, ["reasonable"]).score("reasonable", "all", LEADERBOARD)
    third, two_thirds = 1 / 3, 2 / 3
    assert base.miss_rates == pytest.approx([third] * 4 + [two_thirds] * 2 + [third] * 3)
    raw = score_curve(np.array([True, False, True]), np.array([0.8, 0.75, 0.7]), 3, 10, LEADERBOARD)
    assert raw.miss_rates == pytest.approx([two_thirds] * 4 + [third] * 5)
    assert raw.lamr > base.lamr  # removing the ghost alone would look harmful
    found = quiet_diagnose(gt, dets, settings=["reasonable"], splits=["all"], resamples=5, examples=0)
    assert found.view("reasonable", "all").oracles["ghosts removed"] == pytest.approx(third)
    assert never_worse(raw, base, LEADERBOARD) == pytest.approx(third)
    # The devkit reads 0 below the first point, so there the fix is simply better.
    matlab = Evaluation(gt, dets, ["reasonable"]).score("reasonable", "all", MATLAB)
    raw = score_curve(np.array([True, False, True]), np.array([0.8, 0.75, 0.7]), 3, 10, MATLAB)
    assert raw.lamr < matlab.lamr and never_worse(raw, matlab, MATLAB) == raw.lamr


def test_oracle_numbers_on_a_small_case():
    # Two images, 4 pedestrians of 80 px; one found, one localization error on another, one ghost,
    # two pedestrians missed.
    peds = [
        person(1, 0, [100, 100, 32, 80]),
        person(2, 0, [300, 100, 32, 80]),
        person(3, 1, [100, 100, 32, 80]),
        person(4, 1, [300, 100, 32, 80]),
    ]
    gt = make_gt(frames(2), peds)
    records = [det(0, [100, 100, 32, 80], 0.9), det(0, [300, 130, 32, 80], 0.8), det(1, [500, 100, 32, 80], 0.7)]
    found = quiet_diagnose(gt, make_dets(gt, records), settings=["reasonable"], splits=["all"], resamples=5, examples=0)
    view = found.view("reasonable", "all")
    assert view.false_positives["curve"] == {"duplicate": 0, "scale": 0, "localization": 1, "ghost": 1}
    # Base: TP, FP (FPPI 0.5), FP (1.0): recall 1/4 at every reference.
    assert view.result.lamr == pytest.approx(0.75)
    # Localization corrected: TP, TP, FP: recall 1/2 everywhere. Ghost removed: same curve without it.
    assert view.oracles["localization errors corrected"] == pytest.approx(0.5)
    assert view.oracles["ghosts removed"] == pytest.approx(0.75)
    # The three missed 80 px pedestrians are medium: found, recall is 1 before any false positive.
    assert view.misses["height"]["medium"].missed_at_end == 3
    assert view.oracles["medium misses found"] == 0.0
    assert view.oracles["near misses found"] == view.oracles["far misses found"] == pytest.approx(0.75)


# ------------------------------------------------------------------------------------------------
# Bootstrap


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_bootstrap_equals_scoring_the_resampled_set(rng, protocol):
    """The weighted curve of a resample scores exactly as the resampled test set built for real."""
    proto = get_protocol(protocol)
    checked = below_first = 0
    for case in range(30):
        images, annotations, records = error_case(rng, unique_scores=True)
        gt, dets, evaluation = evaluation_of(images, annotations, records)
        for setting in ("reasonable", "all-pedestrians", "far"):
            split = str(rng.choice(["all", "day", "night"]))
            mask = gt.split_mask(split)
            if not mask.any():
                continue
            counts = resample_counts(mask, 8, case, split)
            terms = evaluation.curve_terms(setting, split, proto)
            fast = bootstrap_lamrs(WeightedCurve.of(evaluation, terms), counts, proto)
            for r in range(len(counts)):
                new_gt, new_dets = resampled_set(gt, dets, counts[r])
                result = Evaluation(new_gt, new_dets, [setting]).score(setting, "all", proto)
                assert fast[r] == pytest.approx(result.lamr, rel=1e-12, abs=1e-15), (case, setting, split, r)
                checked += 1
                below_first += len(result.curve.fppi) > 0 and result.curve.fppi[0] > proto.fppi_refs[0]
    assert checked > 300 and below_first > 5  # the protocols' corner cases were reached


def test_bootstrap_of_the_identity_resample_is_the_point_estimate(rng):
    for _ in range(20):
        gt, _, evaluation = evaluation_of(*error_case(rng))
        for proto in (LEADERBOARD, MATLAB):
            for setting in ("reasonable", "occ-heavy"):
                for split in ("all", "day", "night"):
                    mask = gt.split_mask(split)
                    terms = evaluation.curve_terms(setting, split, proto)
                    got = bootstrap_lamrs(WeightedCurve.of(evaluation, terms), mask[None].astype(np.int32), proto)
                    assert got[0] == pytest.approx(evaluation.score(setting, split, proto).lamr, rel=1e-12, abs=1e-15)


def test_resampling_is_seeded_and_shared_across_settings():
    mask = np.zeros(50, bool)
    mask[10:40] = True
    a = resample_counts(mask, 100, 3, "day")
    assert (a == resample_counts(mask, 100, 3, "day")).all()
    assert (a != resample_counts(mask, 100, 4, "day")).any()
    assert (a != resample_counts(mask, 100, 3, "night")).any()
    assert (a.sum(axis=1) == 30).all() and not a[:, ~mask].any()


def test_fp_limits_follow_the_curves_float_division():
    # MBNet day: 1,455 images; 46 false positives give FPPI 0.031615, above the leaderboard's 0.0316.
    assert fp_limits(LEADERBOARD, 1455)[2] == 45
    assert fp_limits(MATLAB, 1455)[2] == 46
    for n in (1, 7, 797, 1455, 2252):
        for proto in (LEADERBOARD, MATLAB):
            for m, ref in zip(fp_limits(proto, n), proto.fppi_refs):
                assert m / n <= ref < (m + 1) / n


def test_paired_test_p_value():
    base = np.linspace(0, 1, 99)
    # a is lower in 89 of 99 resamples: 10 flips, p = 2 * 11 / 100.
    t = paired_test(0.1, 0.2, base, base + np.r_[np.full(89, 0.05), np.full(10, -0.05)])
    assert t.difference == pytest.approx(-0.1) and t.p_value == pytest.approx(0.22)
    assert paired_test(0.1, 0.2, base, base + 1).p_value == pytest.approx(2 / 100)  # never 0
    assert paired_test(0.3, 0.3, base, base).p_value == 1.0
    assert paired_test(0.3, 0.2, base + 1, base).p_value == pytest.approx(2 / 100)
    low, high = percentile_interval(np.arange(101.0))
    assert (low, high) == pytest.approx((2.5, 97.5))


def plain_holm(p_values):
    """Holm's step-down procedure as usually written: the smallest p against level / m, and so on."""
    m = len(p_values)
    order = sorted(range(m), key=lambda k: p_values[k])
    out = [None] * m
    for i, k in enumerate(order):
        out[k] = min(1.0, max((m - j) * p_values[order[j]] for j in range(i + 1)))
    return out


def test_holm_adjustment(rng):
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.3]) == [0.3] and holm([]) == []
    for _ in range(200):
        p_values = list(rng.choice([0.002, 0.01, 0.02, 0.5, 1.0], size=rng.integers(1, 8)))
        p_values = [float(p) if rng.random() < 0.5 else float(rng.random()) for p in p_values]
        adjusted = holm(p_values)
        assert adjusted == pytest.approx(plain_holm(p_values), abs=1e-15)
        assert all(p <= a <= 1 for p, a in zip(p_values, adjusted))


# ------------------------------------------------------------------------------------------------
# Edge cases and outputs


def test_no_detections_and_no_pedestrians():
    gt = make_gt(frames(4, night_from=2), [person(1, 0, [100, 100, 40, 100])])
    found = quiet_diagnose(gt, Detections.empty(), resamples=10, examples=2)
    view = found.view("reasonable", "all")
    assert view.result.lamr == 1.0 and view.interval == (1.0, 1.0)
    assert view.false_positives["curve"] == dict.fromkeys(FP_TYPES, 0)
    assert found.foreground["all"].c_star is None
    assert found.examples == []
    matlab = quiet_diagnose(gt, Detections.empty(), protocol="matlab", resamples=10, examples=2)
    assert matlab.view("reasonable", "all").misses["height"]["medium"].missed_at_end == 1
    assert [e.error for e in matlab.examples] == ["missed"]


def test_outputs_written_atomically(tmp_path, rng):
    gt, dets, _ = evaluation_of(*error_case(rng))
    out = tmp_path / "diag"
    found = quiet_diagnose(gt, dets, settings=["reasonable"], resamples=20)
    before = json.dumps(found.to_dict())
    written = write_report(found, gt, dets, out)
    assert json.dumps(found.to_dict()) == before  # the report does not touch the diagnosis
    assert sorted(written.files) == sorted(out.iterdir()) and written.pictures == {}
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        ["diagnosis.json", "report.md", "mr-fppi.png", "false-positives.png", "misses.png", "oracles.png"]
    )
    data = json.loads((out / "diagnosis.json").read_text())
    assert data == json.loads(json.dumps(found.to_dict()))
    cell = data["settings"]["reasonable"]["night"]
    assert set(cell) >= {"lamr", "interval", "false_positives", "misses", "oracles", "filtered_lamr"}
    assert "## Oracles" in (out / "report.md").read_text()


# ------------------------------------------------------------------------------------------------
# The shared results


@pytest.fixture(scope="module")
def shared(kaist, leaderboard_gt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        return {
            name: load_detections(kaist / "results" / f"{name}_result.txt", leaderboard_gt)
            for name in ("MBNet", "MLPD")
        }


@pytest.fixture(scope="module")
def mbnet_diagnosis(leaderboard_gt, shared):
    return quiet_diagnose(leaderboard_gt, shared["MBNet"], "MBNet", examples=3)


def test_mbnet_intervals_under_a_fixed_seed(mbnet_diagnosis):
    # Verified independently: each of the 1,000 resamples of seed 0 was built as a real test set
    # (every drawn image copied) and scored by the evaluator; all 3,000 LAMRs agreed to the last bit
    # with the weighted curves, so these intervals follow from numpy's seeded generator alone.
    want = {
        "all": (0.0671131044079314, 0.0961971270532659),
        "day": (0.06413743904191603, 0.10146939433003833),
        "night": (0.05525656607472082, 0.10474260371902204),
    }
    for split, interval in want.items():
        view = mbnet_diagnosis.view("reasonable", split)
        assert view.interval == pytest.approx(interval, abs=1e-15)
    for view in mbnet_diagnosis.views.values():
        low, high = view.interval
        assert low <= view.result.lamr <= high, (view.setting, view.split)


def test_mbnet_diagnosis_is_stable_under_a_fixed_seed(leaderboard_gt, shared, mbnet_diagnosis):
    again = quiet_diagnose(leaderboard_gt, shared["MBNet"], "MBNet", examples=3)
    assert json.dumps(again.to_dict()) == json.dumps(mbnet_diagnosis.to_dict())


def test_mbnet_counts_follow_from_the_curve(leaderboard_gt, shared, mbnet_diagnosis):
    evaluation = Evaluation(leaderboard_gt, shared["MBNet"])
    for (setting, split), view in mbnet_diagnosis.views.items():
        result = evaluation.score(setting, split)
        assert view.result.lamr == result.lamr
        n_fp = int(round(result.curve.fppi[-1] * result.n_images))
        assert sum(view.false_positives["curve"].values()) == n_fp
        # The operating point holds every false positive up to FPPI 1, i.e. min(all of them, n_images).
        assert sum(view.false_positives["operating_point"].values()) == min(n_fp, result.n_images)
        # Misses there are what the LAMR reads at its last reference, FPPI 1.
        missed = sum(c.missed_at_operating_point for c in view.misses["height"].values())
        assert missed == round(result.n_gt * result.miss_rates[-1])
        missed = sum(c.missed_at_end for c in view.misses["occlusion"].values())
        assert missed == round(result.n_gt * (1 - result.recall))
        assert view.filtered["all"]["all"]["lamr"] == result.lamr
        for lamr in view.oracles.values():
            assert lamr <= result.lamr
    reasonable = mbnet_diagnosis.view("reasonable", "all")
    assert reasonable.false_positives["operating_point"] == {
        "duplicate": 29,
        "scale": 83,
        "localization": 246,
        "ghost": 1894,
    }
    assert sum(reasonable.false_positives["curve"].values()) == 7893
    # Ghosts cost MBNet most, by more than the sampling uncertainty of its LAMR.
    assert min(reasonable.oracles, key=reasonable.oracles.get) == "ghosts removed"
    assert reasonable.oracles["ghosts removed"] < reasonable.interval[0]


def test_mbnet_foreground_is_the_near_setting(leaderboard_gt, shared, mbnet_diagnosis):
    # With the default 115 px the foreground is exactly the devkit's near setting: unoccluded, 115 px
    # or taller, away from the border. c* is the score of near's last true positive.
    evaluation = Evaluation(leaderboard_gt, shared["MBNet"], ["near"])
    for split in ("all", "day", "night"):
        terms = evaluation.curve_terms("near", split)
        near = evaluation.score("near", split)
        fg = mbnet_diagnosis.foreground[split]
        assert fg.pedestrians == near.n_gt
        assert fg.lowest_miss_rate == pytest.approx(1 - near.recall)
        assert fg.c_star == evaluation.scores[terms.sequence[terms.positive]].min()
        main = mbnet_diagnosis.view("reasonable", split)
        false_positives = int(((main.result.curve.scores >= fg.c_star) & ~main.terms.positive).sum())
        assert fg.fppi == pytest.approx(false_positives / main.n_images)
        assert 0 < fg.ghosts_per_image <= fg.fppi


def test_every_person_view_counts_every_person_box(leaderboard_gt, shared, mbnet_diagnosis):
    gt = leaderboard_gt
    with_dets = np.bincount(shared["MBNet"].image, minlength=gt.n_images) > 0
    persons = mbnet_diagnosis.persons["all"].misses["position"]
    # Leaderboard: people in images without any detection leave the denominator.
    assert sum(c.pedestrians for c in persons.values()) == int((~gt.ignore & with_dets[gt.ann_image]).sum())
    assert persons["truncated"].pedestrians > 0 and persons["border margin"].pedestrians > 0
    # The settings ignore them all: no setting's misses count a box at the border.
    for view in mbnet_diagnosis.views.values():
        assert view.misses["position"]["inside"].pedestrians == view.result.n_gt


def test_mlpd_curve_ends_before_fppi_one(leaderboard_gt, shared):
    # MLPD's reasonable curve has 1,755 false positives over 2,252 images (FPPI 0.78): the operating
    # point at FPPI 1 is the whole curve.
    found = quiet_diagnose(
        leaderboard_gt, shared["MLPD"], "MLPD", settings=["reasonable"], splits=["all"], resamples=50, examples=0
    )
    view = found.view("reasonable", "all")
    assert view.false_positives["operating_point"] == view.false_positives["curve"]
    assert sum(view.false_positives["curve"].values()) == 1755
    assert view.operating_point.length == len(view.terms.sequence)


def test_mbnet_resamples_match_real_resampled_sets(leaderboard_gt, shared):
    gt = leaderboard_gt
    for protocol in PROTOCOLS:
        proto = get_protocol(protocol)
        for name, dets in shared.items():
            evaluation = Evaluation(gt, dets, ["reasonable-small"])
            counts = resample_counts(gt.split_mask("night"), 4, 11, "night")
            terms = evaluation.curve_terms("reasonable-small", "night", proto)
            fast = bootstrap_lamrs(WeightedCurve.of(evaluation, terms), counts, proto)
            for r in range(len(counts)):
                new_gt, new_dets = resampled_set(gt, dets, counts[r])
                slow = Evaluation(new_gt, new_dets, ["reasonable-small"]).score("reasonable-small", "all", proto)
                assert fast[r] == pytest.approx(slow.lamr, rel=1e-12), (protocol, name, r)


def test_compare_paired_test_on_shared_results(leaderboard_gt, shared):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        found = compare(
            leaderboard_gt,
            list(shared.items()),
            settings=["reasonable", "reasonable-small"],
            splits=["night"],
            resampling=Resampling(300),
        )
        same = compare(
            leaderboard_gt,
            [("A", shared["MLPD"]), ("B", shared["MLPD"])],
            settings=["reasonable"],
            splits=["all"],
            resampling=Resampling(50),
        )
    by_setting = {d.setting: d for d in found.differences}
    assert [(d.a, d.b) for d in found.differences] == [("MBNet", "MLPD")] * 2
    small = by_setting["reasonable-small"].test
    night = {
        name: Evaluation(leaderboard_gt, dets, ["reasonable-small"]).score("reasonable-small", "night").lamr
        for name, dets in shared.items()
    }
    assert small.difference == night["MBNet"] - night["MLPD"]
    assert small.p_value < 0.05 < by_setting["reasonable"].test.p_value
    assert by_setting["reasonable-small"].sentence().startswith("MLPD is better than MBNet on reasonable-small night")
    assert by_setting["reasonable"].sentence().startswith("MLPD scores lower than, not significantly, MBNet")
    # The paired design: a method against itself differs by exactly 0 in every resample.
    assert same.differences[0].test.p_value == 1.0
    assert same.differences[0].test.low == same.differences[0].test.high == 0.0


def test_compare_of_three_methods_adjusts_p_values(leaderboard_gt, shared):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        three = compare(
            leaderboard_gt,
            [("MBNet", shared["MBNet"]), ("MLPD", shared["MLPD"]), ("MLPD again", shared["MLPD"])],
            settings=["reasonable-small"],
            splits=["night", "all"],
            resampling=Resampling(300),
        )
        two = compare(
            leaderboard_gt,
            list(shared.items()),
            settings=["reasonable-small"],
            splits=["night", "all"],
            resampling=Resampling(300),
        )
    assert three.adjusted and not two.adjusted
    assert [d.holm_p_value for d in two.differences] == [d.test.p_value for d in two.differences]
    for split in ("night", "all"):
        tests = [d for d in three.differences if d.split == split]
        assert [(d.a, d.b) for d in tests] == [("MBNet", "MLPD"), ("MBNet", "MLPD again"), ("MLPD", "MLPD again")]
        # The same test as between two methods alone; MLPD against itself: p = 1.
        alone = next(d for d in two.differences if d.split == split)
        assert tests[0].test == tests[1].test == alone.test and tests[2].test.p_value == 1.0
        assert [d.holm_p_value for d in tests] == holm([d.test.p_value for d in tests])
        assert tests[0].holm_p_value == min(1.0, 3 * alone.test.p_value)
    data = three.to_dict()
    assert data["bootstrap"]["adjustment"].startswith("Holm") and "holm_p_value" in data["differences"][0]
    assert "adjustment" not in two.to_dict()["bootstrap"] and "holm_p_value" not in two.to_dict()["differences"][0]
    # Three methods: a matrix of adjusted p per setting, row against column, symmetric.
    (matrix,) = p_value_tables(three)
    assert matrix.headers == ["split", "method", "MBNet", "MLPD", "MLPD again"]
    assert matrix.rows[0][:3] == ["night", "MBNet", "-"] and matrix.rows[3][:2] == ["all", "MBNet"]
    night = {d.b: d.holm_p_value for d in three.differences if d.split == "night" and d.a == "MBNet"}
    assert matrix.rows[0][3:] == [f"{night['MLPD']:.3g}", f"{night['MLPD again']:.3g}"]
    assert matrix.rows[1][2] == matrix.rows[0][3] and matrix.rows[2][4] == "-"
    assert p_value_tables(two) == []


# ------------------------------------------------------------------------------------------------
# The command line


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True, cwd=cwd)


@pytest.fixture
def small_files(tmp_path, rng):
    images, annotations, records = error_case(rng)
    while not records:
        images, annotations, records = error_case(rng)
    gt_path = tmp_path / "gt.json"
    gt_path.write_text(
        json.dumps({"images": images, "annotations": annotations, "categories": [{"id": 1, "name": "person"}]})
    )
    result = tmp_path / "A_result.json"
    result.write_text(json.dumps(records))
    other = tmp_path / "B_result.json"
    other.write_text(json.dumps([dict(r, score=r["score"] * 0.5 + 0.25 * (k % 2)) for k, r in enumerate(records)]))
    return gt_path, result, other


def test_cli_diagnose_and_compare(small_files, tmp_path):
    gt_path, result, other = small_files
    out = tmp_path / "out"
    done = run_cli("diagnose", result, "--gt", gt_path, "--resamples", 50, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "LAMR (%) of A" in done.stdout and "Oracles, reasonable" in done.stdout
    assert (out / "diagnosis.json").is_file() and (out / "report.md").is_file()
    done = run_cli(
        "diagnose",
        result,
        "--gt",
        gt_path,
        "--resamples",
        20,
        "--format",
        "json",
        "--split",
        "all",
        "--setting",
        "all-pedestrians",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["main_setting"] == "all-pedestrians" and list(data["settings"]["reasonable"]) == ["all"]
    done = run_cli(
        "compare",
        result,
        other,
        "--gt",
        gt_path,
        "--resamples",
        30,
        "--setting",
        "reasonable",
        "--plot",
        tmp_path / "curves.png",
    )
    assert done.returncode == 0, done.stderr
    assert "p = " in done.stdout and (tmp_path / "curves.png").is_file()


def json_leaves(value) -> int:
    if isinstance(value, dict):
        return sum(json_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(json_leaves(v) for v in value)
    return 1


def test_cli_formats_carry_the_json_numbers(small_files):
    gt_path, result, other = small_files
    common = ("--gt", gt_path, "--resamples", 20, "--split", "all", "--split", "night")
    data = json.loads(run_cli("diagnose", result, *common, "--format", "json").stdout)
    done = run_cli("diagnose", result, *common, "--format", "csv")
    assert done.returncode == 0, done.stderr
    cells = {(r["setting"], r["split"], r["quantity"]): r["value"] for r in csv.DictReader(io.StringIO(done.stdout))}
    view = data["settings"]["reasonable-small"]["night"]
    assert float(cells[("reasonable-small", "night", "lamr")]) == view["lamr"]
    assert float(cells[("reasonable-small", "night", "interval.1")]) == view["interval"][1]
    assert (
        int(cells[("reasonable-small", "night", "false_positives.curve.ghost")])
        == view["false_positives"]["curve"]["ghost"]
    )
    assert float(cells[("reasonable-small", "night", "oracles.ghosts removed")]) == view["oracles"]["ghosts removed"]
    assert (
        int(cells[("every person", "all", "misses.position.truncated.pedestrians")])
        == data["every_person"]["all"]["misses"]["position"]["truncated"]["pedestrians"]
    )
    for setting, by_split in data["settings"].items():
        for split, numbers in by_split.items():  # every value but the setting's and split's names
            assert sum(1 for key in cells if key[:2] == (setting, split)) == json_leaves(numbers) - 2
    done = run_cli("diagnose", result, *common, "--format", "markdown")
    assert done.stdout.startswith("# Diagnosis of A") and "## Oracles, reasonable" in done.stdout
    matches = gt_path.parent / "matches" / "A.csv"
    done = run_cli("diagnose", result, *common, "--matches", matches)
    assert done.returncode == 0 and f"matches written to {matches}" in done.stderr
    assert sorted(p.name for p in matches.parent.iterdir()) == ["A.csv"]  # no temporary file left
    rows = list(csv.DictReader(io.StringIO(matches.read_text())))
    assert len(rows) == len(json.loads(result.read_text())) * len(data["settings"])
    assert sum(r["status"] == "FP" and r["setting"] == "reasonable-small" for r in rows) == sum(
        data["settings"]["reasonable-small"]["all"]["false_positives"]["curve"].values()
    )

    common = ("--gt", gt_path, "--resamples", 20, "--setting", "reasonable")
    data = json.loads(run_cli("compare", result, other, *common, "--format", "json").stdout)
    done = run_cli("compare", result, other, *common, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    cells = {(r["setting"], r["split"], r["method"], r["quantity"]): r["value"] for r in rows}
    b_day = data["methods"]["B"]["reasonable"]["day"]
    assert float(cells[("reasonable", "day", "B", "interval.0")]) == b_day["interval"][0]
    night = next(d for d in data["differences"] if d["split"] == "night")
    assert float(cells[("reasonable", "night", "A - B", "p_value")]) == night["p_value"]
    assert len(rows) == 3 * 2 * 3 + 3 * 4  # lamr and interval per method and split, 4 numbers per difference
    done = run_cli("compare", result, other, *common, "--format", "markdown")
    assert "| setting | split | A | B | p |" in done.stdout and done.stdout.count("\n- ") == 3


def test_cli_compare_says_when_p_values_are_adjusted(small_files, tmp_path):
    gt_path, result, other = small_files
    third = tmp_path / "C_result.json"
    third.write_text(json.dumps([dict(r, score=1 - r["score"]) for r in json.loads(result.read_text())]))
    common = ("--gt", gt_path, "--resamples", 20, "--setting", "reasonable", "--split", "all")
    two = run_cli("compare", result, other, *common)
    assert two.returncode == 0 and "Holm" not in two.stdout
    three = run_cli("compare", result, other, third, *common)
    assert three.returncode == 0, three.stderr
    assert "Holm-adjusted p-values, reasonable" in three.stdout
    assert three.stdout.count(", Holm-adjusted p = ") == 3
    markdown = run_cli("compare", result, other, third, *common, "--format", "markdown").stdout
    assert "## Holm-adjusted p-values, reasonable" in markdown and "| split | method | A | B | C |" in markdown


@pytest.mark.parametrize(
    "args, message",
    [
        (("diagnose", "{missing}"), "no such file"),
        (("diagnose", "{result}", "--fppi", "0"), "--fppi"),
        (("diagnose", "{result}", "--setting", "nearish"), "unknown setting"),
        (("diagnose", "{result}", "--resamples", "0"), "--resamples"),
        (("compare", "{result}"), "at least two"),
        (("compare", "{result}", "{result}"), "same name"),
        (("compare", "{result}", "{bad}"), "bad_result.json"),
    ],
)
def test_cli_bad_input_exits_2_without_traceback(small_files, tmp_path, args, message):
    gt_path, result, _ = small_files
    bad = tmp_path / "bad_result.json"
    bad.write_text('[{"image_id": 0, "category_id": 1, "bbox": [1, 2, 3], "score": 0.5}]')
    names = {"missing": tmp_path / "nope.json", "result": result, "bad": bad}
    done = run_cli(*[a.format(**names) for a in args], "--gt", gt_path)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_worst_examples_drawn_on_real_frames(kaist, leaderboard_gt, shared, tmp_path):
    # The 8 demo frames are the only pictures here. Diagnosed on those frames alone, the worst errors
    # all have pictures and are drawn.
    demo = kaist / "demo-images"
    frames_with_pictures = {p.name[:17].replace("_", "/") for p in demo.glob("*_visible.png")}
    on_demo = np.array([name in frames_with_pictures for name in leaderboard_gt.image_names], np.int64)
    gt, dets = resampled_set(leaderboard_gt, shared["MBNet"], on_demo)  # each demo frame once
    found = quiet_diagnose(gt, dets, "MBNet", settings=["reasonable"], splits=["all"], resamples=20, examples=1)
    written = write_report(found, gt, dets, tmp_path, [demo])
    drawn = [(found.examples[k], picture) for k, picture in written.pictures.items()]
    assert {e.error for e, _ in drawn} >= {"duplicate", "localization", "ghost"}
    for example, picture in drawn:
        assert example.frame in frames_with_pictures and (tmp_path / picture).stat().st_size > 10_000
    # The ghost drawn is the highest-scoring ghost of the curve among those frames.
    evaluation = Evaluation(leaderboard_gt, shared["MBNet"], ["reasonable"])
    pairs = overlaps_by_image(evaluation.image, evaluation.boxes, leaderboard_gt, 0.0)
    kind = type_false_positives(evaluation, pairs, LEADERBOARD).kind[0]
    sequence = evaluation.curve_terms("reasonable", "all").sequence
    best = max(
        evaluation.scores[d]
        for d in sequence
        if kind[d] == FP_TYPES.index("ghost")
        and leaderboard_gt.image_names[evaluation.image[d]] in frames_with_pictures
    )
    ghost, picture = next((e, p) for e, p in drawn if e.error == "ghost")
    assert ghost.score == best
    assert f"]({picture})" in (tmp_path / "report.md").read_text()


def test_pictures_do_not_choose_the_examples(kaist, leaderboard_gt, shared, tmp_path):
    # The worst examples are listed whether or not their frames have pictures, and those whose
    # pictures exist are drawn. Here only the worst ghost's frame has pictures (a demo frame's,
    # copied under its name); no frame of the other worst examples has any.
    found = quiet_diagnose(
        leaderboard_gt, shared["MBNet"], "MBNet", settings=["reasonable"], splits=["all"], resamples=20, examples=2
    )
    evaluation = Evaluation(leaderboard_gt, shared["MBNet"], ["reasonable"])
    pairs = overlaps_by_image(evaluation.image, evaluation.boxes, leaderboard_gt, 0.0)
    kind = type_false_positives(evaluation, pairs, LEADERBOARD).kind[0]
    sequence = evaluation.curve_terms("reasonable", "all").sequence
    ghost = next(e for e in found.examples if e.error == "ghost")
    assert ghost.score == max(evaluation.scores[d] for d in sequence if kind[d] == FP_TYPES.index("ghost"))
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    for modality in ("visible", "lwir"):
        shutil.copy(
            kaist / "demo-images" / f"set06_V001_I00459_{modality}.png",
            pictures / f"{ghost.frame.replace('/', '_')}_{modality}.png",
        )
    out = tmp_path / "out"
    written = write_report(found, leaderboard_gt, shared["MBNet"], out, [pictures])
    assert list(written.pictures) == [k for k, e in enumerate(found.examples) if e.frame == ghost.frame]
    assert (out / written.pictures[found.examples.index(ghost)]).stat().st_size > 10_000
    report = (out / "report.md").read_text()
    assert all(f"| {e.error} | {e.frame} |" in report for e in found.examples)
    data = json.loads((out / "diagnosis.json").read_text())
    assert [e["picture"] for e in data["examples"]] == [written.pictures.get(k) for k in range(len(found.examples))]
