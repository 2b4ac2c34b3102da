"""The kit's miss rate in a project of one's own: a plain mmdetection config (mmdetection's CocoDataset,
RetinaNet, its own pipeline) adds ``custom_imports`` and ``KaistMetric`` and is run by mmengine's runner
as mmdetection's tools/test.py runs it, in a fresh interpreter; the numbers are `kaist-kit eval`'s."""

import json
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from mmdet.registry import METRICS  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.cli import app  # noqa: E402
from kaist_kit.datasets.kaist_truth import load_ground_truth  # noqa: E402
from kaist_kit.errors import InputError  # noqa: E402

# A user's config: nothing of the kit's but the two lines the docs give (docs/mmdetection.md).
USER_CONFIG = """_base_ = ["mmdet::_base_/models/retinanet_r50_fpn.py", "mmdet::_base_/default_runtime.py"]
custom_imports = dict(imports=["kaist_kit.models"], allow_failed_imports=False)

model = dict(
    backbone=dict(depth=18, init_cfg=None),
    neck=dict(in_channels=[64, 128, 256, 512]),
    bbox_head=dict(num_classes=1),
    test_cfg=dict(score_thr=0.0, max_per_img=100),
)
test_dataloader = dict(
    batch_size=1,
    num_workers=0,
    persistent_workers=False,
    drop_last=False,
    sampler=dict(type="DefaultSampler", shuffle=False),
    dataset=dict(
        type="CocoDataset",
        data_root={root!r},
        ann_file={ann_file!r},
        data_prefix=dict(img="images/"),
        metainfo=dict(classes=("person",)),
        test_mode=True,
        pipeline=[
            dict(type="LoadImageFromFile"),
            dict(type="Resize", scale=(160, 128), keep_ratio=True),
            dict(type="PackDetInputs"),
        ],
    ),
)
test_evaluator = dict(
    type="KaistMetric", ann_file={gt!r}, setting=["reasonable", "all-pedestrians"], results_file={results!r}
)
test_cfg = dict(type="TestLoop")
randomness = dict(seed=0)
"""

# mmdetection's tools/test.py, reduced to what it does with a config and no checkpoint.
RUN = """import json, sys
from mmengine.config import Config
from mmengine.runner import Runner
for config, work in zip(sys.argv[1::2], sys.argv[2::2]):
    cfg = Config.fromfile(config)
    cfg.work_dir = work
    print(json.dumps(Runner.from_cfg(cfg).test()))
"""


def _renumbered(gt_path, path):
    """The same frames and boxes with image ids of the user's own (1000 and up), in another order."""
    data = json.loads(gt_path.read_text())
    new = {image["id"]: 1000 + k for k, image in enumerate(reversed(data["images"]))}
    for image in data["images"]:
        image["id"] = new[image["id"]]
    for k, annotation in enumerate(data["annotations"]):
        annotation["image_id"], annotation["id"] = new[annotation["image_id"]], k + 1
    path.write_text(json.dumps(data))
    return path


def test_a_plain_mmdetection_config_scores_the_miss_rate_with_kaist_metric(tiny_synth, tmp_path):
    gt = tiny_synth / "test.json"
    runs = []
    for name, ann_file in (("kaist-ids", gt), ("own-ids", _renumbered(gt, tmp_path / "own-ids.json"))):
        config = tmp_path / f"{name}.py"
        results = tmp_path / f"{name}_result.json"
        config.write_text(
            USER_CONFIG.format(root=str(tiny_synth), ann_file=str(ann_file), gt=str(gt), results=str(results))
        )
        runs.append((config, tmp_path / name, results))
    arguments = [str(path) for config, work, _ in runs for path in (config, work)]
    proc = subprocess.run([sys.executable, "-c", RUN, *arguments], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    metrics = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(metrics) == 2 and "kaist/reasonable_all" in metrics[0] and "kaist/all-pedestrians_night" in metrics[0]

    # Frames found by name where the dataset's ids are its own: the same detections, the same numbers.
    assert metrics[1] == metrics[0]
    assert json.loads(runs[1][2].read_text()) == json.loads(runs[0][2].read_text())
    written = json.loads(runs[0][2].read_text())
    assert written and {r["image_id"] for r in written} <= set(load_ground_truth(gt).image_ids.tolist())

    out = CliRunner().invoke(
        app,
        [
            "eval",
            str(runs[0][2]),
            "--gt",
            str(gt),
            "--format",
            "json",
            "--setting",
            "reasonable",
            "--setting",
            "all-pedestrians",
        ],
    )
    assert out.exit_code == 0, out.output
    for row in json.loads(out.stdout)["results"]:
        assert metrics[0][f"kaist/{row['setting']}_{row['split']}"] == row["lamr"]


def _sample(image_id, path, labels=(0,)):
    boxes = torch.tensor([[10.0, 20.0, 30.0, 80.0]] * len(labels))
    return {
        "img_id": image_id,
        "img_path": path,
        "pred_instances": {
            "bboxes": boxes,
            "scores": torch.linspace(0.9, 0.5, len(labels)),
            "labels": torch.tensor(labels),
        },
    }


def test_a_frame_the_ground_truth_does_not_have_is_an_error(tiny_synth):
    gt = tiny_synth / "test.json"
    metric = METRICS.build(dict(type="KaistMetric", ann_file=str(gt)))
    metric.dataset_meta = dict(classes=("person",))
    metric.process({}, [_sample(0, "data/images/set01/V000/visible/I00001.jpg")])  # a training frame
    with pytest.raises(InputError, match="frame set01/V000/I00001 is not in this ground truth"):
        metric.compute_metrics(metric.results)
    metric.results = []
    metric.process({}, [_sample(424242, "pictures/0001.png")])  # neither a KAIST name nor one of its ids
    with pytest.raises(InputError, match=r"image id 424242 \(its picture's path names no KAIST frame\)"):
        metric.compute_metrics(metric.results)
    without = METRICS.build(dict(type="KaistMetric"))
    without.dataset_meta = dict(classes=("person",))
    with pytest.raises(InputError, match="KaistMetric needs ann_file="):
        without.ground_truth_path()


def test_of_several_classes_the_person_detections_are_scored(tiny_synth):
    gt_path = tiny_synth / "test.json"
    gt = load_ground_truth(gt_path)
    name = gt.image_names[0]
    path = f"images/{name.replace('/I', '/visible/I')}.jpg"
    metric = METRICS.build(dict(type="KaistMetric", ann_file=str(gt_path)))
    metric.dataset_meta = dict(classes=("car", "person", "bicycle"))
    metric.process({}, [_sample(7, path, labels=(0, 1, 2, 1))])
    ((image_id, boxes, scores),) = metric.on_ground_truth(metric.results, gt)
    assert image_id == int(gt.image_ids[0]) and len(boxes) == 2
    assert np.allclose(scores, [0.9 - 0.4 / 3, 0.5])
    metric.dataset_meta = dict(classes=("car", "bicycle"))
    with pytest.raises(InputError, match="the dataset's classes have no 'person'"):
        metric.on_ground_truth(metric.results, gt)
