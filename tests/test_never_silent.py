"""Never a silent 100.00: a number that cannot mean anything comes with a finding or is refused. (The README's
scoring commands run as written in tests/test_docs_commands.py.)"""

import json

import pytest
from conftest import det, frames, make_dets, make_gt, person
from test_inputs import run_cli

from kaist_kit.metrics.evaluate import ResultFiles, ScoreGrid
from kaist_kit.metrics.spec import iou_conflict as metric_iou_conflict
from kaist_kit.scoring.findings import evaluate_inspected, inspect

BOX = (100, 100, 40, 100)


def no_pedestrians(findings):
    (found,) = [f for f in findings if f.code == "no-pedestrians"]
    return found.message


# --- no pedestrian that counts is always a finding ------------------------------------------------


@pytest.mark.parametrize("flags", ["every box ignored", "no box at all"])
def test_a_ground_truth_without_pedestrians_is_said(flags):
    annotations = [person(k + 1, k, BOX, ignore=1) for k in range(3)] if flags == "every box ignored" else []
    gt = make_gt(frames(4, night_from=2), annotations)
    dets = make_dets(gt, [det(0, BOX, 0.9), det(3, BOX, 0.5)])
    for protocol in ("leaderboard", "matlab"):
        message = no_pedestrians(inspect(dets, gt, ["reasonable", "all-pedestrians"], protocols=[protocol]))
        for setting in ("reasonable", "all-pedestrians"):
            for split in ("all", "day", "night"):
                assert f"{setting} {split} ({protocol}: the ground truth has none there)" in message


def test_a_custom_setting_that_excludes_everything_is_said(leaderboard_gt, kaist):
    found = evaluate_inspected(
        ResultFiles((kaist / "results" / "MLPD_result.txt",)), leaderboard_gt, ScoreGrid(("height=1000:inf",), ("all",))
    )
    assert "height=1000:inf all (leaderboard: the ground truth has none there)" in no_pedestrians(found.findings)
    assert [r.n_gt for r in found.results] == [0]


def test_an_image_list_without_pedestrians_is_said(kaist, tmp_path):
    data = json.loads((kaist / "test-all-20.leaderboard.json").read_text())
    with_boxes = {a["image_id"] for a in data["annotations"]}
    empty = [i["im_name"] for i in data["images"] if i["id"] not in with_boxes][:5]
    listed = tmp_path / "quiet.txt"
    listed.write_text("\n".join(empty) + "\n")
    proc = run_cli(
        "eval",
        kaist / "results" / "MLPD_result.txt",
        "--gt",
        kaist / "test-all-20.leaderboard.json",
        "--images",
        listed,
        "--split",
        "all",
        "--metric",
        "lamr",
        "--metric",
        "ap50",
    )
    assert proc.returncode == 0
    assert (
        "warning: [no-pedestrians]" in proc.stderr
        and "reasonable quiet (leaderboard: the ground truth has none there)" in proc.stderr
    )


def test_eval_with_a_ground_truth_without_pedestrians_warns(kaist, tmp_path):
    data = json.loads((kaist / "test-all-20.leaderboard.json").read_text())
    data["annotations"] = []
    empty = tmp_path / "empty-gt.json"
    empty.write_text(json.dumps(data))
    proc = run_cli("eval", kaist / "results" / "MLPD_result.txt", "--gt", empty)
    assert proc.returncode == 0 and "100.00" in proc.stdout
    assert (
        "warning: [no-pedestrians]" in proc.stderr
        and "reasonable all (leaderboard: the ground truth has none there)" in proc.stderr
    )


# --- --iou applies to the LAMR alone ---------------------------------------------------------------


def test_an_iou_threshold_no_metric_asked_for_uses_is_refused():
    assert metric_iou_conflict(["lamr"], [0.5, 0.75]) == ""
    assert metric_iou_conflict(["ap50", "ar"], [0.5]) == ""
    assert metric_iou_conflict(["lamr", "ap50"], [0.75]) == ""  # the LAMR at 0.75, AP50 at its own 0.5
    message = metric_iou_conflict(["ap50", "ar"], [0.5, 0.75])
    assert message.startswith("--iou 0.75 sets the matching threshold of the log-average miss rate alone")
    assert "(ap50 at IoU 0.5, ar at IoU 0.50:0.05:0.95)" in message and "\n" not in message


def test_eval_refuses_ap_with_another_iou_in_one_line(kaist):
    proc = run_cli(
        "eval",
        kaist / "results" / "MLPD_result.txt",
        "--gt",
        kaist / "test-all-20.leaderboard.json",
        "--metric",
        "ap50",
        "--iou",
        "0.75",
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("error: --iou 0.75 sets the matching threshold") and not proc.stdout
