"""One test per row of the "where the two protocols differ" table in docs/evaluation.md."""

import math

import pytest
from conftest import det, frames, make_dets, make_gt, person

from kaist_kit.metrics.evaluate import evaluate
from kaist_kit.scoring.findings import inspect

BOX = (100, 100, 40, 100)  # a reasonable pedestrian, well inside the frame
ELSEWHERE = (400, 200, 40, 100)


def score(images, annotations, records, protocol, split="all", setting="reasonable"):
    gt = make_gt(images, annotations)
    (result,) = evaluate(gt, make_dets(gt, records), [setting], [split], [protocol])
    return result


def found(images, annotations, records, protocol="leaderboard"):
    """What the inspector says about the records, by code: {code: message}."""
    gt = make_gt(images, annotations)
    return {f.code: f.message for f in inspect(make_dets(gt, records), gt, protocols=[protocol])}


def both(images, annotations, records, **kwargs):
    return {p: score(images, annotations, records, p, **kwargs) for p in ("leaderboard", "matlab")}


def test_reference_fppi_values_rounded_on_the_leaderboard():
    # 46 false positives over 1,455 images: FPPI 0.031615, above the leaderboard's rounded 0.0316
    # and below the devkit's exact 10^-1.5, so the pedestrian found right after them counts only
    # in the devkit at the third reference point.
    images = frames(1455)
    records = [det(i, ELSEWHERE, 0.9 - i / 1000) for i in range(1, 47)] + [det(0, BOX, 0.1)]
    r = both(images, [person(1, 0, BOX)], records)
    assert r["leaderboard"].fppi_refs[2] == 0.0316
    assert r["matlab"].fppi_refs[2] == pytest.approx(10**-1.5, rel=1e-15)
    assert r["leaderboard"].miss_rates[2] == 1.0
    assert r["matlab"].miss_rates[2] == 0.0


def test_reference_below_first_fppi_reads_last_point_on_leaderboard():
    # One false positive in 10 images puts the curve's first point at FPPI 0.1; the five smaller
    # references read the recall at the end of the curve (leaderboard) or 0 (devkit).
    images = frames(10)
    anns = [person(1, 0, BOX), person(2, 1, BOX)]
    records = [det(2, ELSEWHERE, 0.9), det(0, BOX, 0.8), det(1, ELSEWHERE, 0.7)]
    r = both(images, anns, records)
    assert r["leaderboard"].miss_rates[:4] == (0.5, 0.5, 0.5, 0.5)
    assert r["matlab"].miss_rates[:4] == (1.0, 1.0, 1.0, 1.0)
    assert r["leaderboard"].miss_rates[4:] == r["matlab"].miss_rates[4:]


def test_zero_miss_rate_gives_zero_on_leaderboard_and_floor_in_devkit():
    images = frames(4)
    records = [det(0, BOX, 0.9), det(1, ELSEWHERE, 0.1)]
    r = both(images, [person(1, 0, BOX)], records)
    assert r["leaderboard"].lamr == 0.0
    assert r["matlab"].lamr == pytest.approx(1e-10, rel=1e-9)


def test_images_without_detections_leave_the_denominator_on_leaderboard():
    images = frames(3)
    anns = [person(1, 0, BOX), person(2, 1, BOX), person(3, 1, ELSEWHERE)]
    records = [det(0, BOX, 0.9), det(2, ELSEWHERE, 0.5)]
    r = both(images, anns, records)
    assert (r["leaderboard"].n_gt, r["matlab"].n_gt) == (1, 3)
    assert r["leaderboard"].recall == 1.0
    assert r["matlab"].recall == pytest.approx(1 / 3)
    assert r["matlab"].lamr > r["leaderboard"].lamr


def test_match_to_annotation_id_zero_is_a_false_positive_on_leaderboard():
    images = frames(2)
    anns = [person(0, 0, BOX), person(1, 1, BOX)]
    records = [det(0, BOX, 0.9), det(1, BOX, 0.8)]
    r = both(images, anns, records)
    assert r["matlab"].recall == 1.0 and r["matlab"].curve.fppi[-1] == 0.0
    assert r["leaderboard"].recall == 0.5
    assert r["leaderboard"].curve.fppi[0] == 0.5  # the match to id 0 became a false positive


def test_more_than_1000_detections_capped_with_warning_on_leaderboard():
    images = frames(2)
    records = [det(0, (300 + k % 50, 200, 30, 70), 0.9 - k * 1e-4) for k in range(1000)]
    records.append(det(0, BOX, 0.01))  # the only true positive, 1,001st by score
    anns = [person(1, 0, BOX)]
    assert "crashes" in found(images, anns, records)["over-1000"]
    assert "1 image with more than 1,000 detections" in found(images, anns, records)["over-1000"]
    assert "over-1000" not in found(images, anns, records, "matlab")
    lb = score(images, anns, records, "leaderboard")
    dl = score(images, anns, records, "matlab")
    assert lb.recall == 0.0 and lb.lamr == 1.0
    assert dl.recall == 1.0


def test_unsorted_detections_score_as_sorted_with_warning():
    images = frames(3)
    anns = [person(1, 0, BOX), person(2, 1, BOX)]
    ordered = [det(0, BOX, 0.9), det(0, ELSEWHERE, 0.3), det(1, ELSEWHERE, 0.8), det(1, BOX, 0.2)]
    shuffled = [ordered[1], ordered[3], ordered[0], ordered[2]]
    for protocol in ("leaderboard", "matlab"):
        want = score(images, anns, ordered, protocol)
        got = score(images, anns, shuffled, protocol)
        assert got.lamr == want.lamr and got.miss_rates == want.miss_rates
    assert "not sorted by descending score" in found(images, anns, shuffled)["unsorted"]
    assert "unsorted" not in found(images, anns, ordered)


def test_empty_result_and_empty_split_read_miss_rate_one():
    images = frames(3)
    anns = [person(1, 0, BOX)]
    assert "crashes on an empty result" in found(images, anns, [])["empty"]
    lb = score(images, anns, [], "leaderboard")
    dl = score(images, anns, [], "matlab")
    for r in (lb, dl):
        assert r.lamr == 1.0 and r.miss_rates == (1.0,) * 9
    for protocol in ("leaderboard", "matlab"):
        empty = score(images, anns, [det(0, BOX, 0.5)], protocol, split=("empty", []))
        assert empty.n_images == 0 and empty.lamr == 1.0
        assert math.isnan(empty.recall)
