"""The five KAIST configs on real pictures: the 8 frame pairs of ../shared/data/kaist/demo-images
laid out as KAIST does; each config trains one iteration (random initialisation, half scale),
then `kaist-kit test` and `kaist-kit infer` run its checkpoint."""

import json
import shutil

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

from models_helpers import DETRS, KAIST_CONFIGS, cli_options, pretrained_paths, tiny_detr_options  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from kaist_kit.cli import app  # noqa: E402
from kaist_kit.datasets.kaist_truth import load_ground_truth  # noqa: E402
from kaist_kit.tools.config_files import load_config  # noqa: E402

ANNOTATIONS = "annotations/demo-8.leaderboard.json"
SCALE = (320, 256)  # half of KAIST's 640 x 512, for the CPU


def _rpn_test_settings(node, path="model") -> list[str]:
    if not isinstance(node, dict):
        return []
    if isinstance(node.get("test_cfg"), dict) and "rpn" in node["test_cfg"]:
        return [f"{path}.test_cfg.rpn"]
    return [found for key, value in node.items() for found in _rpn_test_settings(value, f"{path}.{key}")]


def real_options(root, config) -> dict:
    """Overrides for the 8 real pairs: their annotations for training and testing, half scale,
    100 proposals per picture at test time, no worker processes; training stops after one
    iteration of one frame, unvalidated."""
    options = {
        "data_root": str(root),
        "default_hooks.logger.interval": 1,
        "default_hooks.checkpoint.save_optimizer": False,
        "train_cfg.max_epochs": 1,
        "train_cfg.val_begin": 2,
        "train_dataloader.dataset.indices": 1,
        "train_dataloader.batch_size": 1,
        "train_dataloader.dataset.pipeline.2.scale": SCALE,
    }
    for rpn in _rpn_test_settings(load_config(config).model):
        options.update({f"{rpn}.nms_pre": 200, f"{rpn}.max_per_img": 100})
    for loader in ("train_dataloader", "val_dataloader", "test_dataloader"):
        options.update(
            {
                f"{loader}.dataset.ann_file": ANNOTATIONS,
                f"{loader}.num_workers": 0,
                f"{loader}.persistent_workers": False,
            }
        )
    for loader in ("val_dataloader", "test_dataloader"):
        options[f"{loader}.dataset.pipeline.1.scale"] = SCALE
    return {**options, **tiny_detr_options(load_config(config).model)}


def _invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


@pytest.mark.parametrize("config", KAIST_CONFIGS, ids=lambda p: p.stem)
def test_each_kaist_config_trains_tests_and_infers_on_real_pairs(config, kaist_pairs, tmp_path):
    options = real_options(kaist_pairs, config)
    # Random initialisation: tests never download ImageNet weights.
    no_imagenet = {path: None for path in pretrained_paths(load_config(config).model)}
    assert no_imagenet, "the KAIST configs start from ImageNet"
    work = tmp_path / "work"
    try:
        _invoke("train", config, "--work-dir", work, *cli_options({**options, **no_imagenet}))
        checkpoint = work / "epoch_1.pth"
        log = next(work.glob("*/*.log")).read_text()
        assert "Epoch(train) [1][1/1]" in log  # one iteration

        results = tmp_path / "real_result.json"
        shown = _invoke(
            "test", config, checkpoint, "--out", results, "--work-dir", tmp_path / "logs", *cli_options(options)
        )
        gt = load_ground_truth(kaist_pairs / ANNOTATIONS)
        records = json.loads(results.read_text())
        # An untrained head scores every proposal about 0.5: every real frame gets detections.
        assert {r["image_id"] for r in records} == set(gt.image_ids.tolist()) and gt.n_images == 8
        assert all(r["category_id"] == 1 and len(r["bbox"]) == 4 for r in records)
        assert "Log-average miss rate" in shown.stdout and config.stem in shown.stdout
        if load_config(config).model.type in DETRS:  # every frame keeps its 100 best queries
            kept = [sum(r["image_id"] == image_id for r in records) for image_id in gt.image_ids.tolist()]
            assert set(kept) == {load_config(config).model.test_cfg.max_per_img} == {100}

        frame = kaist_pairs / "images" / "set09" / "V000"
        figure = tmp_path / "pair.png"
        drawn = _invoke(
            "infer",
            config,
            checkpoint,
            frame / "visible" / "I01139.jpg",
            frame / "lwir" / "I01139.jpg",
            "--out",
            figure,
            "--score-threshold",
            "0",
            *cli_options(options),
        )
        assert figure.stat().st_size > 10_000 and "drawn to" in drawn.output
    finally:
        shutil.rmtree(work, ignore_errors=True)  # a few hundred MB of checkpoint per config


def test_pictures_decode_to_the_same_pixels_with_the_faster_flags(kaist_pairs):
    """The kit decodes ignoring EXIF orientation (faster); on KAIST's pictures that changes nothing."""
    import cv2
    import numpy as np

    from kaist_kit.models.data import read_picture

    pictures = sorted((kaist_pairs / "images").rglob("*.jpg"))
    assert len(pictures) == 16
    for path in pictures:
        assert np.array_equal(read_picture(str(path)), cv2.imread(str(path), cv2.IMREAD_COLOR)), path


def test_missing_leaderboard_annotations_are_found_as_eval_finds_them(kaist, tmp_path, monkeypatch):
    from kaist_kit.models.predict import use_default_test_annotations

    config = next(c for c in KAIST_CONFIGS if "halfway" in c.name)
    gt = kaist / "test-all-20.leaderboard.json"
    monkeypatch.setenv("KAIST_KIT_GT", str(gt))
    # The leaderboard's file is not under data_root: the kit's copy ($KAIST_KIT_GT here) is used.
    cfg = load_config(config, {"data_root": str(tmp_path)})
    assert use_default_test_annotations(cfg) == gt
    assert cfg.test_dataloader.dataset.ann_file == str(gt.resolve())
    # The config's own copy, or another annotation file, is left as it is.
    (tmp_path / "annotations").mkdir()
    shutil.copy(gt, tmp_path / "annotations" / gt.name)
    cfg = load_config(config, {"data_root": str(tmp_path)})
    assert use_default_test_annotations(cfg) is None
    assert cfg.test_dataloader.dataset.ann_file == "annotations/test-all-20.leaderboard.json"
    cfg = load_config(config, {"data_root": str(tmp_path), "test_dataloader.dataset.ann_file": ANNOTATIONS})
    assert use_default_test_annotations(cfg) is None and cfg.test_dataloader.dataset.ann_file == ANNOTATIONS
    # Without a copy anywhere and with downloads forbidden, the one-line error of eval.
    monkeypatch.delenv("KAIST_KIT_GT")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("KAIST_KIT_OFFLINE", "1")
    cfg = load_config(config, {"data_root": str(tmp_path / "elsewhere")})
    from kaist_kit.datasets.kaist_truth import GroundTruthUnavailable

    with pytest.raises(GroundTruthUnavailable, match="pass --gt FILE"):
        use_default_test_annotations(cfg)
