"""`kaist-kit submit`: packaging that the leaderboard scores correctly, checks, manifest, errors."""

import hashlib
import json
import random
import tarfile
import warnings
import zipfile

import numpy as np
import pytest
from conftest import frames, make_gt, shuffled_copy
from test_inputs import run_cli

from kaist_kit import __version__
from kaist_kit.data.detections import Detections, ReadOptions
from kaist_kit.data.results import load_detections
from kaist_kit.errors import InputError, KitWarning
from kaist_kit.io.text import json_line
from kaist_kit.metrics.evaluate import evaluate
from kaist_kit.metrics.settings import LEADERBOARD_SETTINGS, SETTINGS
from kaist_kit.submission import check, package
from kaist_kit.submission import submit as submit_module

REAL_RESULTS = ["MBNet_result.txt", "MLPD_result.txt", "MLPD_result.json", "MBNet-per-image.tar.gz"]


def quiet_load(path, gt, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        return load_detections(path, gt, **kwargs)


def quiet_evaluate(gt, dets, settings=("reasonable",), protocol="leaderboard"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)
        return evaluate(gt, dets, settings, protocols=[protocol])


def lamrs(results):
    return [(r.setting, r.split, r.lamr, r.miss_rates) for r in results]


def zip_entries(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def packaged_records(path):
    entries = zip_entries(path)
    (name,) = [n for n in entries if n != "manifest.json"]
    return json.loads(entries[name]), entries[name]


def mlpd_records(kaist):
    return json.loads((kaist / "results" / "MLPD_result.json").read_text())


def write_json(path, records):
    path.write_text(json.dumps(records))
    return path


def codes(report):
    return {f.code: f for f in report.findings}


def inside(report, target="leaderboard"):
    """What ``target``'s evaluator does with the results file inside a checked zip (the zip itself
    is no upload: both evaluators raise on its extension)."""
    assert report.verdict == "crash" and "Exception extension : zip" in report.judged.crash.exception
    return report.inner[1][target].verdict


# --- round trip on the real files -----------------------------------------------------------------


@pytest.mark.parametrize("name", REAL_RESULTS)
def test_packaged_file_scores_exactly_as_its_source(kaist, leaderboard_gt, tmp_path, name):
    source = kaist / "results" / name
    report = package(source, tmp_path / "submission.zip", leaderboard_gt)
    assert report.inspection.counts["packaged"] == report.inspection.counts["in_source"]
    original = quiet_load(source, leaderboard_gt)
    packaged = quiet_load(tmp_path / "submission.zip", leaderboard_gt)  # the strict reader takes it
    assert len(packaged) == len(original)
    # Nothing is dropped and no image holds 1,000 detections, so both protocols must agree to the bit:
    # sorting cannot move a number (every evaluator here sorts), and the cap never applies.
    assert np.bincount(original.image).max() < 1000
    for protocol, settings in (("leaderboard", LEADERBOARD_SETTINGS), ("matlab", SETTINGS)):
        assert lamrs(quiet_evaluate(leaderboard_gt, packaged, settings, protocol)) == lamrs(
            quiet_evaluate(leaderboard_gt, original, settings, protocol)
        )
    lamr = report.manifest["self_evaluation"]["lamr"]
    for r in quiet_evaluate(leaderboard_gt, original, LEADERBOARD_SETTINGS):
        assert lamr[r.setting][r.split] == r.lamr


def test_published_numbers_in_the_manifest(kaist, leaderboard_gt, tmp_path):
    published = {"MBNet_result.txt": (8.13, 8.28, 7.86), "MLPD_result.json": (7.58, 7.96, 6.95)}
    for name, numbers in published.items():
        report = package(kaist / "results" / name, tmp_path / "s.zip", leaderboard_gt)
        reasonable = report.manifest["self_evaluation"]["lamr"]["reasonable"]
        assert tuple(round(100 * reasonable[s], 2) for s in ("all", "day", "night")) == numbers


def test_packaged_json_is_what_the_leaderboard_scores_correctly(kaist, leaderboard_gt, tmp_path):
    package(kaist / "results" / "MBNet_result.txt", tmp_path / "s.zip", leaderboard_gt)
    records, raw = packaged_records(tmp_path / "s.zip")
    assert b" " not in raw and b"\n" not in raw  # compact
    assert {r["category_id"] for r in records} == {1}
    ids = [r["image_id"] for r in records]
    assert all(isinstance(i, int) for i in ids) and 0 <= min(ids) and max(ids) <= 2251
    keys = [(r["image_id"], -r["score"]) for r in records]
    assert keys == sorted(keys)
    # txt ids are 1-based: the first line's detection lands on image 0
    first = (kaist / "results" / "MBNet_result.txt").read_text().splitlines()[0].split(",")
    assert int(first[0]) == 1 and records[0]["image_id"] == 0
    assert records[0]["bbox"] == [float(v) for v in first[1:5]]


def test_same_input_gives_the_same_zip_and_repackaging_is_idempotent(kaist, leaderboard_gt, tmp_path):
    source = kaist / "results" / "MLPD_result.txt"
    package(source, tmp_path / "a.zip", leaderboard_gt)
    package(source, tmp_path / "b.zip", leaderboard_gt)
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()
    package(tmp_path / "a.zip", tmp_path / "c.zip", leaderboard_gt, method="MLPD")
    assert packaged_records(tmp_path / "c.zip")[1] == packaged_records(tmp_path / "a.zip")[1]


# --- files the leaderboard would mis-score or crash on ------------------------------------------


def test_shuffled_file_is_packaged_sorted(kaist, leaderboard_gt, tmp_path):
    shuffled = shuffled_copy(kaist / "results" / "MBNet_result.txt", tmp_path)

    verdict = check(shuffled, leaderboard_gt)
    assert verdict.verdict == "mis-score" and not verdict.ok
    unsorted = codes(verdict)["unsorted"]
    assert unsorted.leaderboard == "mis-score" and "1725 images are not sorted" in unsorted.message
    assert "80.05" not in unsorted.message  # no finding quotes another file's numbers
    printed = verdict.judged.printed  # what the leaderboard prints for this shuffle (docs/submission.md)
    assert [round(printed[k], 2) for k in ("MR_all", "MR_day", "MR_night")] == [79.91, 81.79, 75.85]

    package(shuffled, tmp_path / "s.zip", leaderboard_gt)
    records, _ = packaged_records(tmp_path / "s.zip")
    keys = [(r["image_id"], -r["score"]) for r in records]
    assert keys == sorted(keys)
    assert inside(check(tmp_path / "s.zip", leaderboard_gt)) == "correct"
    packaged = quiet_evaluate(leaderboard_gt, quiet_load(tmp_path / "s.zip", leaderboard_gt))
    assert [round(100 * r.lamr, 2) for r in packaged] == [8.13, 8.28, 7.86]


@pytest.fixture
def crowded(kaist, leaderboard_gt, tmp_path):
    """MLPD's detections with category_id 0 and one image holding 1,200 detections: 1,199 false
    positives scored above a true positive, which the leaderboard's cap therefore cuts."""
    records = [dict(r, category_id=0) for r in mlpd_records(kaist)]
    image = int(leaderboard_gt.ann_image[~leaderboard_gt.ignore & (leaderboard_gt.heights > 80)][0])
    pedestrian = leaderboard_gt.boxes[leaderboard_gt.ann_image == image][0].tolist()
    records = [r for r in records if r["image_id"] != image]
    records += [
        {"image_id": image, "category_id": 0, "bbox": [600, 5 + k % 400, 30, 60], "score": 0.9 - k * 1e-5}
        for k in range(1199)
    ]
    records.append({"image_id": image, "category_id": 0, "bbox": pedestrian, "score": 0.5})
    return write_json(tmp_path / "crowded_result.json", records), image


def test_crowded_file_with_category_0_is_packaged_for_the_leaderboard(leaderboard_gt, tmp_path, crowded):
    path, image = crowded
    # Category 0 throughout is the 2024 challenge's convention: read as pedestrians, and said so.
    assert load_detections(path, leaderboard_gt).facts.challenge_category

    verdict = check(path, leaderboard_gt)
    assert verdict.target.name == "challenge2024" and verdict.verdict == "crash"  # over 1,000 in an image
    assert "over-1000" in codes(verdict) and "category" not in codes(verdict)
    assert codes(verdict)["over-1000"].leaderboard == "crash"

    report = package(path, tmp_path / "s.zip", leaderboard_gt)
    assert report.inspection.counts["category_rewritten"] == report.inspection.counts["in_source"]
    assert report.inspection.counts["over_1000_per_image"] == 200
    records, _ = packaged_records(tmp_path / "s.zip")
    assert {r["category_id"] for r in records} == {1}
    per_image = np.bincount([r["image_id"] for r in records])
    assert per_image.max() == 1000 == per_image[image]
    repackaged = check(tmp_path / "s.zip", leaderboard_gt)
    assert inside(repackaged) == "correct" and repackaged.target.name == "leaderboard"

    source = quiet_load(path, leaderboard_gt, on_invalid="drop")
    packaged = quiet_load(tmp_path / "s.zip", leaderboard_gt)
    # The leaderboard protocol scores only the 1,000 best of an image: the package changes nothing.
    assert lamrs(quiet_evaluate(leaderboard_gt, packaged, LEADERBOARD_SETTINGS)) == lamrs(
        quiet_evaluate(leaderboard_gt, source, LEADERBOARD_SETTINGS)
    )
    # The devkit has no cap: the 200 detections the package had to leave out (199 false positives
    # and the pedestrian) move its number.
    ranked_below_1000 = (source.image == image) & (source.scores < 0.9 - 999.5e-5)
    assert ranked_below_1000.sum() == 200 and 0.5 in source.scores[ranked_below_1000]
    keep = ~ranked_below_1000
    capped = Detections(source.image[keep], source.boxes[keep], source.scores[keep])
    matlab_source = quiet_evaluate(leaderboard_gt, source, protocol="matlab")
    matlab_packaged = quiet_evaluate(leaderboard_gt, packaged, protocol="matlab")
    assert lamrs(matlab_packaged) == lamrs(quiet_evaluate(leaderboard_gt, capped, protocol="matlab"))
    assert matlab_packaged[0].lamr != matlab_source[0].lamr


def test_invalid_detections_are_dropped_and_counted(kaist, leaderboard_gt, tmp_path):
    records = mlpd_records(kaist)
    records[10]["bbox"] = [1, 2, float("nan"), 4]
    records[11]["bbox"] = [1, 2, -3, 4]
    records[12]["bbox"] = [300, 200, 0, 80]
    records[13]["image_id"] = 5000
    path = tmp_path / "bad_result.json"
    path.write_text(json.dumps(records, indent=1))

    verdict = check(path, leaderboard_gt)
    found = codes(verdict)
    assert verdict.verdict == "crash" and found["unknown-ids"].leaderboard == "crash"
    assert found["non-finite"].leaderboard == found["negative-size"].leaderboard == "mis-score"
    assert f"(first at {path}:{json_line(path.read_text(), 10)})" in found["non-finite"].message
    assert "5000" in found["unknown-ids"].message and "1 box without area" in found["zero-size"].message

    report = package(path, tmp_path / "s.zip", leaderboard_gt)
    counts = report.inspection.counts
    assert (counts["non_finite"], counts["negative_size"], counts["unknown_image_id"], counts["non_positive_size"]) == (
        1,
        1,
        1,
        1,
    )
    assert counts["packaged"] == len(records) - 4 == len(packaged_records(tmp_path / "s.zip")[0])


def test_zero_size_boxes_predicted_as_submitted_and_as_packaged(kaist, leaderboard_gt, tmp_path):
    # zero-width boxes, each first in its image and above every real detection: false positives for
    # the leaderboard as submitted
    records = [{"image_id": i, "category_id": 1, "bbox": [300, 200, 0, 80], "score": 1.0} for i in range(200)]
    records += mlpd_records(kaist)
    path = write_json(tmp_path / "zero_result.json", records)
    report = check(path, leaderboard_gt)
    assert report.verdict == "correct"
    as_submitted = {r.split: r.lamr for r in report.as_submitted if r.setting == "reasonable"}
    packaged = {r.split: r.lamr for r in report.packaged if r.setting == "reasonable"}
    assert round(100 * packaged["all"], 2) == 7.58 and as_submitted["all"] > packaged["all"]


# --- zip and manifest ----------------------------------------------------------------------------


def test_zip_holds_one_results_file_and_a_manifest(kaist, leaderboard_gt, tmp_path):
    source = kaist / "results" / "MLPD_result.txt"
    report = package(source, tmp_path / "entry.zip", leaderboard_gt, method="MLPD (RA-L 2021)")
    entries = zip_entries(tmp_path / "entry.zip")
    assert sorted(entries) == ["MLPD_RA-L_2021_result.json", "manifest.json"]
    manifest = json.loads(entries["manifest.json"])
    assert manifest == report.manifest
    assert manifest["method"] == "MLPD (RA-L 2021)" and manifest["kit_version"] == __version__
    assert manifest["results_file"] == "MLPD_RA-L_2021_result.json"
    assert manifest["results_sha256"] == hashlib.sha256(entries["MLPD_RA-L_2021_result.json"]).hexdigest()
    assert manifest["source"] == {
        "name": "MLPD_result.txt",
        "format": "txt",
        "sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
        "sha256_of": "the file",
    }
    assert manifest["counts"]["in_source"] == manifest["counts"]["packaged"] == 5939
    assert manifest["counts"]["images_with_detections"] == 1614
    assert manifest["ground_truth"]["md5"] == "6cc457f0beeea4fff5392078354e0a51"
    assert manifest["ground_truth"]["leaderboard_file"] is True
    evaluation = manifest["self_evaluation"]
    assert evaluation["protocol"] == "leaderboard"
    assert set(evaluation["lamr"]) == set(LEADERBOARD_SETTINGS)
    assert evaluation["lamr"]["reasonable"]["night"] == pytest.approx(0.0694760959375074, abs=1e-15)
    assert [f["code"] for f in manifest["findings"]][0] == "threshold"


def test_folder_hash_is_stable_and_sees_every_file(kaist, leaderboard_gt, tmp_path):
    with tarfile.open(kaist / "results" / "MBNet-per-image.tar.gz") as archive:
        archive.extractall(tmp_path, filter="data")
    folder = tmp_path / "result"
    first = package(folder, tmp_path / "a.zip", leaderboard_gt).manifest["source"]
    again = package(folder, tmp_path / "b.zip", leaderboard_gt).manifest["source"]
    assert first == again and first["sha256_of"].startswith("the folder")
    assert first["name"] == "result" and first["format"] == "per-image"
    with open(folder / "set06_V000_I00019.txt", "a") as handle:
        handle.write("\n")
    assert package(folder, tmp_path / "c.zip", leaderboard_gt).manifest["source"]["sha256"] != first["sha256"]


def test_a_failed_write_leaves_no_zip_and_keeps_the_old_one(kaist, leaderboard_gt, tmp_path, monkeypatch):
    out = tmp_path / "submission.zip"
    out.write_bytes(b"the previous submission")
    source = kaist / "results" / "MLPD_result.txt"

    calls = []

    def fail_on_second_entry(self, name, mode="r", *args, **kwargs):
        # Every entry is written through ZipFile.open, writestr's included.
        if mode == "w":
            calls.append(name)
            if len(calls) == 2:
                raise OSError("disk full")
        return original_open(self, name, mode, *args, **kwargs)

    original_open = zipfile.ZipFile.open
    monkeypatch.setattr(zipfile.ZipFile, "open", fail_on_second_entry)
    with pytest.raises(InputError, match="cannot write the submission: disk full"):
        package(source, out, leaderboard_gt)
    assert len(calls) == 2  # the first entry was written before the failure
    monkeypatch.undo()
    assert out.read_bytes() == b"the previous submission"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["submission.zip"]

    empty = write_json(tmp_path / "empty_result.json", [])
    with pytest.raises(InputError, match="no detections left to submit"):
        package(empty, tmp_path / "new.zip", leaderboard_gt)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty_result.json", "submission.zip"]


# --- mistakes users make, and what they cost ------------------------------------------------------


def test_one_based_json_ids_detected_and_costed(kaist, leaderboard_gt, tmp_path):
    path = write_json(
        tmp_path / "shifted_result.json", [dict(r, image_id=r["image_id"] + 1) for r in mlpd_records(kaist)]
    )
    with_gt = codes(check(path, leaderboard_gt))["id-offset"]
    assert with_gt.level == "error" and "look written 1-based" in with_gt.message
    assert "95.20 as written, 7.58 with --id-offset -1" in with_gt.message
    without_gt = codes(check(path))["id-offset"]
    assert "run 1..2252" in without_gt.message and "--id-offset -1" in without_gt.message

    report = package(path, tmp_path / "s.zip", leaderboard_gt, options=ReadOptions(id_offset=-1))
    assert "id-offset" not in codes(report)
    fixed = quiet_load(tmp_path / "s.zip", leaderboard_gt)
    original = quiet_load(kaist / "results" / "MLPD_result.json", leaderboard_gt)
    assert lamrs(quiet_evaluate(leaderboard_gt, fixed)) == lamrs(quiet_evaluate(leaderboard_gt, original))


def test_zero_based_txt_ids_detected(kaist, leaderboard_gt, tmp_path):
    lines = (kaist / "results" / "MBNet_result.txt").read_text().splitlines()
    shifted = [f"{int(line.split(',')[0]) - 1},{line.split(',', 1)[1]}" for line in lines]
    path = tmp_path / "zero_result.txt"
    path.write_text("\n".join(shifted))
    assert "--id-offset 1" in codes(check(path, leaderboard_gt))["id-offset"].message
    assert "run 0..2251" in codes(check(path))["id-offset"].message


def test_corner_boxes_detected_and_costed(kaist, leaderboard_gt, tmp_path):
    records = [
        dict(r, bbox=[r["bbox"][0], r["bbox"][1], r["bbox"][0] + r["bbox"][2], r["bbox"][1] + r["bbox"][3]])
        for r in mlpd_records(kaist)
    ]
    path = write_json(tmp_path / "corners_result.json", records)
    with_gt = codes(check(path, leaderboard_gt))["corners"].message
    assert "100.00 as written, 7.58 with --corners" in with_gt
    assert "look like corners" in codes(check(path))["corners"].message
    report = package(path, tmp_path / "s.zip", leaderboard_gt, options=ReadOptions(corners=True))
    assert "corners" not in codes(report)
    assert round(100 * report.inspection.lamr()["all"], 2) == 7.58
    for name in REAL_RESULTS:  # the published files are not mistaken for corners
        assert "corners" not in codes(check(kaist / "results" / name, leaderboard_gt))


def test_score_threshold_cost_measured_on_mlpd(kaist, leaderboard_gt, tmp_path):
    full = quiet_load(kaist / "results" / "MLPD_result.json", leaderboard_gt)
    high = full.scores >= 0.5
    thresholded = Detections(full.image[high], full.boxes[high], full.scores[high])
    before = quiet_evaluate(leaderboard_gt, full, ["reasonable"])[0].lamr
    after = quiet_evaluate(leaderboard_gt, thresholded, ["reasonable"])[0].lamr
    assert (round(100 * before, 2), round(100 * after, 2)) == (7.58, 10.15)  # as docs/submission.md says

    path = write_json(tmp_path / "high_result.json", [r for r in mlpd_records(kaist) if r["score"] >= 0.5])
    for gt in (leaderboard_gt, None):
        finding = codes(check(path, gt))["threshold"]
        assert finding.level == "warning" and "lowest score is 0.5" in finding.message
        assert "10.15" not in finding.message and "MLPD" not in finding.message
    # MBNet keeps scores down to 0.01 and its curve passes 1 false positive per image: nothing to say
    assert "threshold" not in codes(check(kaist / "results" / "MBNet_result.txt", leaderboard_gt))


def test_size_warning(kaist, leaderboard_gt, tmp_path, monkeypatch):
    monkeypatch.setattr(submit_module, "UPLOAD_LIMIT_BYTES", 100_000)
    report = package(kaist / "results" / "MLPD_result.txt", tmp_path / "s.zip", leaderboard_gt)
    message = codes(report)["size"].message
    assert message.startswith("the results JSON is 0.6 MB") and "at risk" in message
    assert "size" in codes(check(kaist / "results" / "MLPD_result.json", leaderboard_gt))


def test_check_of_a_good_file(kaist, leaderboard_gt):
    report = check(kaist / "results" / "MLPD_result.json", leaderboard_gt)
    assert report.ok and report.verdict == "correct"
    assert not [f for f in report.findings if f.level in ("crash", "mis-score")]
    reasonable = [r for r in report.as_submitted if r.setting == "reasonable"]
    assert [round(100 * r.lamr, 2) for r in reasonable] == [7.58, 7.96, 6.95]
    per_image = check(kaist / "results" / "MBNet-per-image.tar.gz", leaderboard_gt)
    assert per_image.verdict == "crash" and "Exception extension : gz" in per_image.judged.crash.exception


def test_check_reports_a_manifest_that_no_longer_matches(kaist, leaderboard_gt, tmp_path):
    package(kaist / "results" / "MLPD_result.txt", tmp_path / "s.zip", leaderboard_gt)
    assert codes(check(tmp_path / "s.zip", leaderboard_gt))["manifest"].level == "note"
    entries = zip_entries(tmp_path / "s.zip")
    records = json.loads(entries["MLPD_result.json"])[:-1]
    with zipfile.ZipFile(tmp_path / "edited.zip", "w") as archive:
        archive.writestr("MLPD_result.json", json.dumps(records))
        archive.writestr("manifest.json", entries["manifest.json"])
    assert "does not match" in codes(check(tmp_path / "edited.zip", leaderboard_gt))["manifest-mismatch"].message


# --- without ground truth, and with other ids -----------------------------------------------------


def test_without_ground_truth_ids_and_structure_only(kaist, tmp_path, leaderboard_gt):
    report = package(kaist / "results" / "MLPD_result.txt", tmp_path / "s.zip")
    assert report.manifest["self_evaluation"] is None and report.manifest["ground_truth"] is None
    assert "no-ground-truth" in codes(report)
    with_gt, _ = packaged_records(tmp_path / "s.zip")
    package(kaist / "results" / "MLPD_result.txt", tmp_path / "g.zip", leaderboard_gt)
    assert with_gt == packaged_records(tmp_path / "g.zip")[0]
    with pytest.raises(InputError, match="matched to images by frame name"):
        package(kaist / "results" / "MBNet-per-image.tar.gz", tmp_path / "p.zip")


def test_ids_written_by_name_order_for_a_ground_truth_with_other_ids(tmp_path):
    images = frames(2252)
    for image in images:
        image["id"] += 5000
    gt = make_gt(images, [])
    records = [{"image_id": 5000 + i, "category_id": 1, "bbox": [10, 10, 20, 40], "score": 0.5} for i in (3, 2251, 0)]
    report = package(write_json(tmp_path / "r_result.json", records), tmp_path / "s.zip", gt)
    assert [r["image_id"] for r in packaged_records(tmp_path / "s.zip")[0]] == [0, 3, 2251]
    assert "ids-remapped" in codes(report)

    # Another test set (the demo's synthetic one) keeps its own ids, with a warning.
    small = [{"image_id": i, "category_id": 1, "bbox": [10, 10, 20, 40], "score": 0.5} for i in (3, 9, 0)]
    report = package(write_json(tmp_path / "small_result.json", small), tmp_path / "t.zip", make_gt(frames(10), []))
    assert [r["image_id"] for r in packaged_records(tmp_path / "t.zip")[0]] == [0, 3, 9]
    assert "not-test-all-20" in codes(report) and "ids-remapped" not in codes(report)


def test_lenient_reader_counts_what_it_leaves_out(tmp_path):
    gt = make_gt(frames(3), [])
    folder = tmp_path / "result"
    folder.mkdir()
    (folder / "set06_V000_I00000.txt").write_text(
        "person 1 2 30 80 0.9\ncyclist 1 2 30 80 0.8\nperson 5 5 2 2 0.7\nperson 1 2 nan 80 0.6\n"
    )
    with pytest.raises(InputError, match="label 'cyclist' is not person"):
        load_detections(folder, gt)
    dets = quiet_load(folder, gt, on_invalid="drop")  # two of the three frames have no file
    assert len(dets) == 1 and dets.scores.tolist() == [0.9]
    dropped = dets.dropped
    assert (dropped.other_labels, dropped.negative_size, dropped.non_finite) == ({"cyclist": 1}, 1, 1)
    assert dropped.first["other_labels"].endswith("set06_V000_I00000.txt:2")
    assert dropped.first["negative_size"].endswith(":3") and dropped.first["non_finite"].endswith(":4")
    (folder / "set06_V000_I00000.txt").write_text("person 1 2 30 80 0.9\n")
    assert quiet_load(folder, gt).dropped is None  # a strict read has nothing to count


# --- the command ----------------------------------------------------------------------------------


def test_cli_packages_and_checks(kaist, tmp_path):
    gt = kaist / "test-all-20.leaderboard.json"
    out = tmp_path / "submission.zip"
    proc = run_cli("submit", kaist / "results" / "MLPD_result.txt", "--out", out, "--gt", gt)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stdout and "reasonable            7.58    7.96    6.95" in proc.stdout
    proc = run_cli("submit", "--check", out, "--gt", gt)
    assert proc.returncode == 1 and "Exception extension : zip" in proc.stdout and "Traceback" not in proc.stderr
    assert "inside it, MLPD_result.json: leaderboard: scores this file correctly; upload that file" in proc.stdout
    assert "fix: upload MLPD_result.json from inside it" in proc.stdout
    entry = tmp_path / "MLPD.json"
    run_cli("submit", kaist / "results" / "MLPD_result.txt", "--out", entry, "--gt", gt)
    proc = run_cli("submit", "--check", entry, "--gt", gt)
    assert proc.returncode == 0 and "leaderboard: scores this file correctly" in proc.stdout

    lines = (kaist / "results" / "MBNet_result.txt").read_text().splitlines()
    random.Random(1).shuffle(lines)
    shuffled = tmp_path / "shuffled_result.txt"
    shuffled.write_text("\n".join(lines))
    proc = run_cli("submit", "--check", shuffled, "--gt", gt)
    assert proc.returncode == 1
    assert "leaderboard: would mis-score this file" in proc.stdout and "8.13" in proc.stdout
    proc = run_cli("submit", "--check", shuffled, env={"PATH": "", "HOME": str(tmp_path), "KAIST_KIT_OFFLINE": "1"})
    assert proc.returncode == 1 and "pass --gt FILE for the predicted score" in proc.stdout


def test_cli_bad_input_is_one_line_with_exit_code_2(tmp_path):
    bad = tmp_path / "bad_result.txt"
    bad.write_text("1,100,100,40,100,0.9\n2,100,100,40\n")
    proc = run_cli("submit", bad, "--out", tmp_path / "s.zip")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"error: {bad}:2: expected image_id,x,y,w,h,score, found 4 fields"
    assert not (tmp_path / "s.zip").exists()

    empty = tmp_path / "empty_result.json"
    empty.write_text("[]")
    (tmp_path / "good_result.txt").write_text("1,100,100,40,100,0.9\n")
    proc = run_cli("submit", empty, "--out", tmp_path / "s.zip")
    assert proc.returncode == 2 and "no detections left to submit" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1

    for args in (
        ["submit", bad],
        ["submit", "--check", bad, "--out", tmp_path / "s.zip"],
        ["submit", tmp_path / "none.json", "--out", tmp_path / "s.zip"],
        ["submit", bad, "--out", tmp_path / "s.json"],
        ["submit", empty.with_name("good_result.txt"), "--out", bad / "s.zip"],
    ):
        proc = run_cli(*args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, args
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad_result.txt", "empty_result.json", "good_result.txt"]


# --- misread files are refused; numbers as text are packaged as numbers -----------------------------


def test_misread_file_refused_unless_as_is(kaist, leaderboard_gt, tmp_path):
    records = [
        dict(r, bbox=[r["bbox"][0], r["bbox"][1], r["bbox"][0] + r["bbox"][2], r["bbox"][1] + r["bbox"][3]])
        for r in mlpd_records(kaist)
    ]
    path = write_json(tmp_path / "corners_result.json", records)
    out = tmp_path / "s.zip"
    with pytest.raises(InputError, match=r"\[corners\].*rerun with --corners; or pass --as-is"):
        package(path, out, leaderboard_gt)
    assert not out.exists()
    report = package(path, out, leaderboard_gt, options=ReadOptions(as_is=True))
    assert codes(report)["corners"].level == "warning" and round(100 * report.inspection.lamr()["all"], 2) == 100.0
    verdict = check(path, leaderboard_gt)
    assert verdict.verdict == "mis-score" and not verdict.ok
    assert "as it is written, which is not what it means ([corners] above)" in verdict.judged.reasons[-1]

    gt = kaist / "test-all-20.leaderboard.json"
    proc = run_cli("submit", path, "--gt", gt, "--out", tmp_path / "t.zip")
    assert proc.returncode == 2 and "[corners]" in proc.stderr and not (tmp_path / "t.zip").exists()
    proc = run_cli("submit", "--check", path, "--gt", gt)
    assert proc.returncode == 1 and "error: [corners]" in proc.stdout
    assert (
        "leaderboard: would mis-score this file: it scores the file as it is written, which is not what it "
        "means ([corners] above)" in proc.stdout
    )
    assert "it would print MR_all 100.00, MR_day 100.00, MR_night 100.00" in proc.stdout


def test_numbers_as_text_crash_the_leaderboard_and_are_packaged_as_numbers(kaist, leaderboard_gt, tmp_path):
    records = [dict(r, score=str(r["score"]), bbox=[str(v) for v in r["bbox"]]) for r in mlpd_records(kaist)]
    path = write_json(tmp_path / "text_result.json", records)
    verdict = check(path, leaderboard_gt)
    assert verdict.verdict == "crash" and codes(verdict)["string-values"].leaderboard == "crash"
    assert verdict.judged.crash.exception.startswith("TypeError") and "strings" in verdict.judged.crash.cause
    package(path, tmp_path / "s.zip", leaderboard_gt)
    packaged, _ = packaged_records(tmp_path / "s.zip")
    assert all(isinstance(r["score"], float) and all(isinstance(v, (int, float)) for v in r["bbox"]) for r in packaged)
    assert inside(check(tmp_path / "s.zip", leaderboard_gt)) == "correct"
    proc = run_cli("submit", "--check", path, "--gt", kaist / "test-all-20.leaderboard.json")
    assert proc.returncode == 1 and "warning: [string-values]" in proc.stdout
    assert "leaderboard: its evaluator would crash on this file: TypeError" in proc.stdout


# --- the file to upload, and the two targets ------------------------------------------------------


def test_json_entry_is_the_file_to_upload_with_its_manifest_beside_it(kaist, leaderboard_gt, tmp_path):
    source = kaist / "results" / "MLPD_result.txt"
    report = package(source, tmp_path / "MLPD.json", leaderboard_gt)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MLPD.json", "MLPD.manifest.json"]
    assert report.zip_bytes is None and report.upload == str(tmp_path / "MLPD.json")
    manifest = json.loads((tmp_path / "MLPD.manifest.json").read_text())
    assert manifest == report.manifest and manifest["results_file"] == "MLPD.json"
    assert manifest["target"]["name"] == "leaderboard" and manifest["target"]["category_id"] == 1
    # The same bytes as the JSON a zip holds for the same input.
    package(source, tmp_path / "MLPD.zip", leaderboard_gt)
    _, zipped = packaged_records(tmp_path / "MLPD.zip")
    assert (tmp_path / "MLPD.json").read_bytes() == zipped
    assert manifest["results_sha256"] == hashlib.sha256(zipped).hexdigest()
    assert codes(check(tmp_path / "MLPD.json", leaderboard_gt))["manifest"].level == "note"
    (tmp_path / "MLPD.json").write_bytes(zipped.replace(b'"score":0.1', b'"score":0.2', 1))
    assert "manifest-mismatch" in codes(check(tmp_path / "MLPD.json", leaderboard_gt))


def test_only_json_txt_or_zip_are_written(kaist, leaderboard_gt, tmp_path):
    for name in ("entry.tar.gz", "entry.csv", "entry"):
        with pytest.raises(InputError, match=r"NAME.json \(COCO result JSON\) or NAME.txt"):
            package(kaist / "results" / "MLPD_result.txt", tmp_path / name, leaderboard_gt)
    for name in ("entry.TXT", "entry.Json"):  # the evaluators would not read them
        with pytest.raises(InputError, match="case-sensitively"):
            package(kaist / "results" / "MLPD_result.txt", tmp_path / name, leaderboard_gt)
    with pytest.raises(InputError, match="reads every line of a .txt file as category 1"):
        package(kaist / "results" / "MLPD_result.txt", tmp_path / "entry.txt", leaderboard_gt, target="challenge2024")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["MBNet_result.txt", "MLPD_result.json"])
def test_the_leaderboards_txt_is_written_as_its_loader_reads_it(kaist, leaderboard_gt, tmp_path, name):
    from plain_upload import plain_load

    report = package(kaist / "results" / name, tmp_path / "entry.txt", leaderboard_gt)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry.manifest.json", "entry.txt"]
    data = (tmp_path / "entry.txt").read_bytes()
    assert data.endswith(b"\n") and not data.endswith(b"\n\n") and b" " not in data and b"\r" not in data
    loaded = plain_load("entry.txt", data)  # the leaderboard's loader takes every line
    with pytest.raises(InputError, match="entry.manifest.json beside it is the manifest of entry.txt"):
        package(kaist / "results" / name, tmp_path / "entry.json", leaderboard_gt)
    package(kaist / "results" / name, tmp_path / "other.json", leaderboard_gt)
    as_json = json.loads((tmp_path / "other.json").read_text())
    assert [(d["image_id"], d["bbox"], d["score"]) for d in loaded] == [
        (float(d["image_id"]), d["bbox"], d["score"]) for d in as_json
    ]  # 1-based in the file, the same numbers
    assert report.manifest["results_file"] == "entry.txt"
    assert report.manifest["results_sha256"] == hashlib.sha256(data).hexdigest()
    verdict = check(tmp_path / "entry.txt", leaderboard_gt)
    assert verdict.ok and codes(verdict)["manifest"].level == "note"
    assert lamrs(verdict.as_submitted) == lamrs(report.results)
    proc = run_cli(
        "submit",
        kaist / "results" / name,
        "--out",
        tmp_path / "cli.txt",
        "--gt",
        kaist / "test-all-20.leaderboard.json",
    )
    assert proc.returncode == 0 and "the file to upload to the public KAIST" in proc.stdout
    assert (tmp_path / "cli.txt").read_bytes() == data


def test_challenge2024_entry_has_category_0_and_its_columns(kaist, leaderboard_gt, tmp_path):
    want = json.loads((kaist / "results" / "reference-challenge2024.json").read_text())
    for method, name in (("MBNet", "MBNet_result.txt"), ("MLPD", "MLPD_result.json")):
        out = tmp_path / f"{method}-2024.json"
        report = package(kaist / "results" / name, out, leaderboard_gt, target="challenge2024")
        records = json.loads(out.read_text())
        assert {r["category_id"] for r in records} == {0}
        manifest = report.manifest
        assert manifest["target"]["name"] == "challenge2024" and manifest["target"]["category_id"] == 0
        scores = manifest["target_evaluation"]["scores"]
        assert set(scores) == set(want[method])
        for key, value in want[method].items():
            assert scores[key] == pytest.approx(value, abs=1e-12, rel=0), (method, key)
        columns = manifest["target_evaluation"]["columns"]
        assert columns["MR_-2_iou50_all"] == pytest.approx(100 * want[method]["MR_iou50_all"], abs=1e-10)
        assert columns["AP_iou50:95"] == scores["AP_iou50:95"]
        # Checked as it is: written for the challenge, scored correctly there, and its columns predicted.
        verdict = check(out, leaderboard_gt)
        assert verdict.target.name == "challenge2024" and verdict.verdict == "correct"
        assert verdict.challenge["columns"] == columns


def test_check_says_which_target_a_file_suits_and_what_the_other_gives(kaist, tmp_path):
    gt = kaist / "test-all-20.leaderboard.json"
    for name in ("MLPD_result.txt", "MLPD_result.json"):
        proc = run_cli("submit", "--check", kaist / "results" / name, "--gt", gt)
        assert proc.returncode == 0, proc.stderr
        assert "written for: the public KAIST multispectral pedestrian leaderboard (category_id 1" in proc.stdout
        assert "2024 challenge: would mis-score this file: it scores category 0 alone" in proc.stdout
        assert "-1 in every AP column and -100 in every MR column" in proc.stdout
    entry = tmp_path / "MLPD-2024.json"
    proc = run_cli(
        "submit", kaist / "results" / "MLPD_result.txt", "--gt", gt, "--out", entry, "--target", "challenge2024"
    )
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {entry}" in proc.stdout and "the file to upload to the 2024 KAIST RGB-T" in proc.stdout
    assert "AP_iou50:95" in proc.stdout and "0.9411" in proc.stdout
    proc = run_cli("submit", "--check", entry, "--gt", gt)
    assert proc.returncode == 0, proc.stderr
    assert "written for: the 2024 KAIST RGB-T pedestrian challenge (EvalAI) (category_id 0, JSON)" in proc.stdout
    assert (
        "leaderboard: its evaluator would crash on this file: IndexError: list index out of range: it scores "
        "category 1 alone, and no detection has category_id 1" in proc.stdout
    )
    assert "2024 challenge: scores this file correctly" in proc.stdout
    proc = run_cli("submit", "--check", entry, "--gt", gt, "--target", "challenge2024")
    assert proc.returncode == 2 and "--target" in proc.stderr and "Traceback" not in proc.stderr
    zipped = tmp_path / "entry.zip"
    proc = run_cli("submit", kaist / "results" / "MLPD_result.txt", "--gt", gt, "--out", zipped)
    assert "Upload MLPD_result.json from inside it" in proc.stdout and "not a zip" in proc.stdout


def test_eval_reads_a_challenge2024_file_and_stops_on_mixed_categories(kaist, leaderboard_gt, tmp_path):
    records = [dict(r, category_id=0) for r in mlpd_records(kaist)]
    challenge = write_json(tmp_path / "c_result.json", records)
    as_2024 = quiet_evaluate(leaderboard_gt, load_detections(challenge, leaderboard_gt))
    assert lamrs(as_2024) == lamrs(
        quiet_evaluate(leaderboard_gt, quiet_load(kaist / "results" / "MLPD_result.json", leaderboard_gt))
    )
    records[5]["category_id"] = 1
    mixed = write_json(tmp_path / "m_result.json", records)
    with pytest.raises(InputError, match="category_id 0 is not person"):
        load_detections(mixed, leaderboard_gt)
    assert "category" in codes(check(mixed, leaderboard_gt))
