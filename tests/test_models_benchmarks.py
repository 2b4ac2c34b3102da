"""The configs of the other benchmarks (FLIR-aligned, LLVIP): their classes, frame size and data as each
benchmark's spec gives them, and one training iteration each on frames in the benchmark's layout
written by `generate_benchmark` (small, random initialisation), then `kaist-kit test` on the checkpoint."""

import json
import shutil

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

from models_helpers import BENCHMARK_CONFIGS, cli_options, pretrained_paths, tiny_detr_options  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from kaist_kit.cli import app  # noqa: E402
from kaist_kit.datasets import get_benchmark  # noqa: E402
from kaist_kit.tools.config_files import load_config  # noqa: E402

SCALE = (160, 128)  # the frames of `benchmark_roots` (tests/conftest.py), for the CPU


def benchmark_of(config) -> str:
    return load_config(config).train_dataloader.dataset.benchmark


def test_there_are_configs_for_flir_aligned_and_llvip():
    assert {benchmark_of(c) for c in BENCHMARK_CONFIGS} == {"flir-aligned", "llvip"}
    assert {c.name for c in BENCHMARK_CONFIGS} == {
        f"{model}_halfway-fusion_{schedule}_{benchmark}.py"
        for model, schedule in (
            ("faster-rcnn_r50_fpn", "1x"),
            ("dino-4scale_r50", "12e"),
            ("deformable-detr-refine-twostage_r50", "12e"),
        )
        for benchmark in ("flir-aligned", "llvip")
    }


@pytest.mark.parametrize("config", BENCHMARK_CONFIGS, ids=lambda p: p.stem)
def test_configs_take_their_benchmark_s_size_classes_and_splits(config):
    cfg = load_config(config)
    bench = get_benchmark(benchmark_of(config))
    assert cfg.model.backbone.type == "TwoStreamBackbone"  # halfway fusion
    head = cfg.model.roi_head.bbox_head if "roi_head" in cfg.model else cfg.model.bbox_head
    assert head.num_classes == len(bench.categories)
    for loader in ("train_dataloader", "test_dataloader"):
        dataset = cfg[loader].dataset
        assert dataset.benchmark == bench.name
        assert f"--split {'train' if loader.startswith('train') else bench.default_split}" in dataset.make_with
        assert [step.scale for step in dataset.pipeline if step.type == "Resize"] == [bench.image_size]
    assert cfg.val_dataloader is None and cfg.val_cfg is None and cfg.default_hooks.checkpoint.save_best is None
    assert cfg.test_evaluator.type == "BenchmarkMetric" and cfg.test_evaluator.metrics[0] == bench.metrics[0]
    assert pretrained_paths(cfg.model)  # ImageNet in both streams, as the KAIST configs


def tiny_options(root, config) -> dict:
    """One iteration of one frame at a small scale, no worker processes, random initialisation; a DETR's
    transformer cut to one layer each side (`tiny_detr_options`)."""
    cfg = load_config(config)
    options = {
        "data_root": str(root),
        "default_hooks.logger.interval": 1,
        "default_hooks.checkpoint.save_optimizer": False,
        "train_cfg.max_epochs": 1,
        "train_dataloader.dataset.indices": 1,
        "train_dataloader.batch_size": 1,
        "train_dataloader.dataset.pipeline.2.scale": SCALE,
        "test_dataloader.dataset.pipeline.1.scale": SCALE,
    }
    if "rpn" in cfg.model.get("test_cfg", {}):
        options.update({"model.test_cfg.rpn.nms_pre": 200, "model.test_cfg.rpn.max_per_img": 100})
    for loader in ("train_dataloader", "test_dataloader"):
        options.update({f"{loader}.num_workers": 0, f"{loader}.persistent_workers": False})
    options.update({path: None for path in pretrained_paths(cfg.model)})
    return {**options, **tiny_detr_options(cfg.model)}


def _invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


@pytest.mark.parametrize("config", BENCHMARK_CONFIGS, ids=lambda p: p.stem)
def test_each_config_trains_one_iteration_and_tests_on_its_benchmark_s_frames(config, benchmark_roots, tmp_path):
    bench = get_benchmark(benchmark_of(config))
    root = benchmark_roots[bench.name]
    options = tiny_options(root, config)
    work = tmp_path / "work"
    try:
        _invoke("train", config, "--work-dir", work, *cli_options(options))
        assert "Epoch(train) [1][1/1]" in next(work.glob("*/*.log")).read_text()  # one iteration
        results = tmp_path / "results.json"
        shown = _invoke(
            "test",
            config,
            work / "epoch_1.pth",
            "--out",
            results,
            "--work-dir",
            tmp_path / "logs",
            *cli_options(options),
        )
        test = json.loads((root / "annotations" / "test.json").read_text())
        records = json.loads(results.read_text())
        # An untrained head scores every proposal about the same: every test frame gets detections.
        assert {r["image_id"] for r in records} == {image["id"] for image in test["images"]}
        assert {r["category_id"] for r in records} <= {c.id for c in bench.categories}
        assert f"COCO AP (%, higher is better) of {bench.title}" in shown.stdout
        for name in ("mean", *bench.class_names):
            assert f"│ {name}" in shown.stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)  # a few hundred MB of checkpoint


def test_the_dataset_reads_a_benchmark_s_classes_string_ids_and_picture_paths(tmp_path):
    from bench_cases import FLIR_TEST

    from kaist_kit.models import KaistDataset

    if not FLIR_TEST.is_file():
        pytest.skip(f"{FLIR_TEST} not found (the shared data folder)")
    # The COCO conversion in circulation as it is: string ids, 'bike', file names that are no paths.
    dataset = KaistDataset(
        benchmark="flir-aligned",
        ann_file=str(FLIR_TEST),
        data_root=str(tmp_path),
        check_files=False,
        test_mode=True,
        pipeline=[],
    )
    data = json.loads(FLIR_TEST.read_text())
    assert dataset.metainfo["classes"] == ("person", "bicycle", "car")
    assert dataset.metainfo["benchmark"] == "flir-aligned"
    assert len(dataset) == 1013 and [dataset[k]["img_id"] for k in range(3)] == [0, 1, 2]
    first = dataset.get_data_info(0)
    number = data["images"][0]["id"][5:10]
    assert first["img_path"] == str(tmp_path / "align" / "JPEGImages" / f"FLIR_{number}_RGB.jpg")
    assert first["lwir_path"] == str(tmp_path / "align" / "JPEGImages" / f"FLIR_{number}_PreviewData.jpeg")
    boxes = [a for a in data["annotations"] if a["image_id"] == data["images"][0]["id"]]
    assert [i["bbox_label"] for i in first["instances"]] == [a["category_id"] - 1 for a in boxes]
    assert sum(len(dataset.get_data_info(k)["instances"]) for k in range(len(dataset))) == 8591


def test_the_benchmark_metric_is_coco_s_ap_on_the_ground_truth_s_ids(tmp_path):
    import torch
    from bench_cases import FLIR_TEST

    from kaist_kit.data.groundtruth import read_ground_truth
    from kaist_kit.data.results import detections_from_coco
    from kaist_kit.metrics.cocoeval import coco_evaluate
    from kaist_kit.models import BenchmarkMetric

    if not FLIR_TEST.is_file():
        pytest.skip(f"{FLIR_TEST} not found (the shared data folder)")
    gt = read_ground_truth(FLIR_TEST, "flir-aligned")
    rng = torch.Generator().manual_seed(0)
    samples = []
    for k in range(gt.n_images):
        mine = gt.ann_image == k
        boxes = torch.tensor(gt.boxes[mine], dtype=torch.float32).reshape(-1, 4)
        corners = torch.cat([boxes[:, :2], boxes[:, :2] + boxes[:, 2:]], 1) + torch.rand(boxes.shape, generator=rng)
        samples.append(
            {
                "img_id": k,
                "pred_instances": {
                    "bboxes": corners,
                    "scores": torch.rand(len(boxes), generator=rng),
                    "labels": torch.tensor(gt.ann_class[mine], dtype=torch.int64),
                },
            }
        )
    metric = BenchmarkMetric(benchmark="flir-aligned", ann_file=str(FLIR_TEST), results_file=str(tmp_path / "r.json"))
    metric.process({}, samples)
    scores = metric.compute_metrics(metric.results)
    records = json.loads((tmp_path / "r.json").read_text())
    assert {r["image_id"] for r in records} == set(gt.image_ids)  # the file's string ids
    assert {r["category_id"] for r in records} == {1, 2, 3}
    expected = coco_evaluate(gt, detections_from_coco(records, gt))
    assert scores["flir-aligned/ap50"] == expected.summary("ap50")
    assert scores["flir-aligned/ap"] == expected.summary("ap")
    assert scores["flir-aligned/bicycle_ap75"] == expected.summary("ap75", 1)
    assert 0.5 < scores["flir-aligned/ap50"] <= 1
    assert [row[0] for row in metric.table.rows] == ["mean", "person", "bicycle", "car"]
