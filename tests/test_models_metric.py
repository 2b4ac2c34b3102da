"""KaistMetric agrees with `kaist-kit eval`; the late-fusion box merges."""

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from mmdet.registry import METRICS  # noqa: E402
from mmengine.structures import InstanceData  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.cli import app  # noqa: E402
from kaist_kit.datasets.kaist_truth import load_ground_truth  # noqa: E402
from kaist_kit.models.late_fusion import fuse_scores, merge_by_nms, merge_by_probability  # noqa: E402


def _predictions(gt, seed=3):
    """COCO records of a made-up detector: most boxes found, a little off, and some false alarms."""
    rng = np.random.default_rng(seed)
    records = []
    for image, image_id in enumerate(gt.image_ids.tolist()):
        for x, y, w, h in gt.boxes[gt.ann_start[image] : gt.ann_start[image + 1]]:
            if rng.random() < 0.8:
                jitter = rng.normal(0, 0.08, 4) * [w, h, w, h]
                records.append(
                    {
                        "image_id": image_id,
                        "category_id": 1,
                        "score": float(rng.uniform(0.3, 1)),
                        "bbox": [float(x + jitter[0]), float(y + jitter[1]), float(w), float(h)],
                    }
                )
        for _ in range(rng.poisson(1.5)):
            records.append(
                {
                    "image_id": image_id,
                    "category_id": 1,
                    "score": float(rng.uniform(0, 0.8)),
                    "bbox": [float(rng.uniform(0, 120)), float(rng.uniform(20, 60)), 20.0, 50.0],
                }
            )
    return records


def _samples(gt, records):
    """Detector outputs (corner boxes per image, every test image, some without detections)."""
    samples = []
    for image_id in gt.image_ids.tolist():
        mine = [r for r in records if r["image_id"] == image_id]
        boxes = torch.tensor(
            [[x, y, x + w, y + h] for x, y, w, h in (r["bbox"] for r in mine)], dtype=torch.float32
        ).reshape(-1, 4)
        scores = torch.tensor([r["score"] for r in mine], dtype=torch.float32)
        samples.append(
            {
                "img_id": image_id,
                "pred_instances": {
                    "bboxes": boxes,
                    "scores": scores,
                    "labels": torch.zeros(len(mine), dtype=torch.long),
                },
            }
        )
    return samples


@pytest.mark.parametrize("protocol", ["leaderboard", "matlab"])
def test_kaist_metric_equals_kaist_kit_eval_on_the_same_predictions(tiny_synth, tmp_path, protocol):
    gt_path = tiny_synth / "test.json"
    gt = load_ground_truth(gt_path)
    records = _predictions(gt)
    settings = ["reasonable", "all-pedestrians"]
    results = tmp_path / "detector_result.json"
    metric = METRICS.build(dict(type="KaistMetric", setting=settings, protocol=protocol, results_file=str(results)))
    metric.dataset_meta = dict(classes=("person",), ann_file=str(gt_path))
    samples = _samples(gt, records)
    metric.process({}, samples[:5])
    metric.process({}, samples[5:])
    values = metric.evaluate(len(samples))

    written = json.loads(results.read_text())
    assert {r["image_id"] for r in written} <= set(gt.image_ids.tolist()) and len(written) == len(records)
    out = CliRunner().invoke(
        app,
        [
            "eval",
            str(results),
            "--gt",
            str(gt_path),
            "--format",
            "json",
            "--protocol",
            protocol,
            "--setting",
            settings[0],
            "--setting",
            settings[1],
        ],
    )
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)["results"]
    assert len(rows) == len(values) == 6
    for row in rows:
        assert values[f"kaist/{row['setting']}_{row['split']}"] == row["lamr"]


def test_the_metric_scores_the_dataset_it_evaluates_unless_told_otherwise(tiny_synth):
    metric = METRICS.build(dict(type="KaistMetric"))
    metric.dataset_meta = dict(ann_file=str(tiny_synth / "test.json"))
    assert metric.ground_truth_path() == str(tiny_synth / "test.json")
    metric = METRICS.build(dict(type="KaistMetric", ann_file="elsewhere.json"))
    metric.dataset_meta = dict(ann_file=str(tiny_synth / "test.json"))
    assert metric.ground_truth_path() == "elsewhere.json"
    with pytest.raises(ValueError, match="unknown setting"):
        METRICS.build(dict(type="KaistMetric", setting="unreasonable"))


def _found(boxes, scores):
    return InstanceData(
        bboxes=torch.tensor(boxes, dtype=torch.float32).reshape(-1, 4),
        scores=torch.tensor(scores, dtype=torch.float32),
        labels=torch.zeros(len(scores), dtype=torch.long),
    )


def test_probabilistic_fusion_reinforces_agreement_and_keeps_single_sightings():
    visible = _found([[10, 10, 30, 60], [100, 20, 120, 70]], [0.7, 0.6])
    thermal = _found([[11, 11, 31, 61], [200, 30, 220, 80]], [0.8, 0.9])
    merged = merge_by_probability(visible, thermal)
    assert len(merged) == 3
    both = 0.7 * 0.8 / (0.7 * 0.8 + 0.3 * 0.2)
    np.testing.assert_allclose(merged.scores.numpy(), [both, 0.9, 0.6], rtol=1e-6)
    np.testing.assert_allclose(
        merged.bboxes[0].numpy(), (np.array([10, 10, 30, 60]) * 0.7 + np.array([11, 11, 31, 61]) * 0.8) / 1.5, rtol=1e-6
    )
    assert float(fuse_scores(torch.tensor([0.4]))) == pytest.approx(0.4)
    assert float(fuse_scores(torch.tensor([0.3, 0.3]))) < 0.3  # two doubtful detectors: less sure


def test_nms_fusion_keeps_the_best_of_each_overlapping_group():
    visible = _found([[10, 10, 30, 60], [100, 20, 120, 70]], [0.7, 0.6])
    thermal = _found([[11, 11, 31, 61]], [0.8])
    merged = merge_by_nms(visible, thermal)
    np.testing.assert_allclose(merged.scores.numpy(), [0.8, 0.6])
    assert len(merge_by_nms(_found([], []), _found([], []))) == 0
    assert len(merge_by_probability(_found([], []), _found([], []))) == 0
