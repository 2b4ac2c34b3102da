"""Starting weights: ImageNet without torchvision or network, and `kaist-kit init-checkpoint`."""

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from mmdet.registry import MODELS  # noqa: E402
from mmengine.registry import init_default_scope  # noqa: E402
from models_helpers import CONFIGS  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.tools.config_files import load_config  # noqa: E402

RESNET50_FILE = "resnet50-0676ba61.pth"  # the name of the published file the KAIST configs point at


@pytest.fixture(autouse=True)
def no_downloads(monkeypatch):
    """Any attempt to fetch weights fails the test."""

    def refuse(url, *args, **kwargs):
        raise AssertionError(f"a test tried to download {url}")

    monkeypatch.setattr(torch.hub, "download_url_to_file", refuse)
    init_default_scope("mmdet")


def resnet_weights(depth: int, seed: int) -> dict:
    """A ResNet state dict in torchvision's layout (conv1, bn1, layer1-4, fc), random values."""
    from mmdet.models.backbones import ResNet

    generator = torch.Generator().manual_seed(seed)
    weights = {}
    for key, value in ResNet(depth=depth).state_dict().items():
        weights[key] = torch.rand(value.shape, generator=generator) if value.is_floating_point() else value
    features = 512 if depth < 50 else 2048
    weights["fc.weight"] = torch.rand(1000, features, generator=generator)
    weights["fc.bias"] = torch.rand(1000, generator=generator)
    return weights


def _assert_holds(module, weights: dict) -> None:
    state = module.state_dict()
    backbone_keys = [k for k in weights if not k.startswith("fc.")]
    assert set(state) == set(backbone_keys)
    for key in backbone_keys:
        assert torch.equal(state[key], weights[key]), key


@pytest.fixture(scope="module")
def resnet50(tmp_path_factory):
    weights = resnet_weights(50, seed=1)
    path = tmp_path_factory.mktemp("imagenet") / RESNET50_FILE
    torch.save(weights, path)
    return path, weights


def test_imagenet_initialisation_reads_a_local_checkpoint(resnet50):
    path, weights = resnet50
    cfg = load_config(CONFIGS / "faster-rcnn_r50_fpn_rgb_1x_kaist.py", [f"model.backbone.init_cfg.checkpoint={path}"])
    model = MODELS.build(cfg.model)
    model.init_weights()
    _assert_holds(model.backbone, weights)


def test_imagenet_initialisation_finds_the_published_file_in_torch_s_cache(resnet50, tmp_path, monkeypatch):
    """The configs name the published file by its URL; mmengine fetches it once into torch's
    cache, so a copy placed there serves a machine without network, with the config unchanged."""
    import shutil

    path, weights = resnet50
    cache = tmp_path / "torch" / "hub" / "checkpoints"
    cache.mkdir(parents=True)
    shutil.copy(path, cache / RESNET50_FILE)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    cfg = load_config(CONFIGS / "faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py")
    model = MODELS.build(cfg.model)
    model.init_weights()
    _assert_holds(model.backbone.visible, weights)
    _assert_holds(model.backbone.lwir, weights)


def _random_state(model, seed: int) -> dict:
    generator = torch.Generator().manual_seed(seed)
    return {
        key: torch.rand(value.shape, generator=generator) if value.is_floating_point() else value
        for key, value in model.state_dict().items()
    }


@pytest.fixture(scope="module")
def coco_faster_rcnn(tmp_path_factory):
    """mmdetection's COCO Faster R-CNN R50-FPN (80 classes) with random weights, saved as
    mmdetection saves its published checkpoints."""
    folder = tmp_path_factory.mktemp("coco")
    config = folder / "faster-rcnn_r50_fpn_coco.py"
    config.write_text("_base_ = 'mmdet::_base_/models/faster-rcnn_r50_fpn.py'\n")
    model = MODELS.build(load_config(config).model)
    assert model.roi_head.bbox_head.num_classes == 80
    weights = _random_state(model, seed=2)
    path = folder / "faster-rcnn_r50_fpn_1x_coco.pth"
    torch.save(
        {"meta": {"mmdet_version": "3.3.0", "dataset_meta": {"classes": ["person"] * 80}}, "state_dict": weights}, path
    )
    return path, weights


def _init(config, source, out):
    from typer.testing import CliRunner

    from kaist_kit.cli import app

    result = CliRunner().invoke(app, ["init-checkpoint", str(config), str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    written = torch.load(out, weights_only=True)  # plain tensors: mmengine loads it without help
    assert set(written) == {"meta", "state_dict"} and written["meta"]["source"] == str(source)
    return written["state_dict"], result.stdout


def _expect(config, rule, source, written) -> None:
    """Every tensor of ``config``'s model is either filled as ``rule`` says (a source name, or
    (name, 'halved')) or absent from the written checkpoint where ``rule`` gives None."""
    model = MODELS.build(load_config(config).model)
    filled = 0
    for key, target in model.state_dict().items():
        origin = rule(key)
        if origin is None:
            assert key not in written, key
            continue
        name, halved = (origin[0], True) if isinstance(origin, tuple) else (origin, False)
        expected = torch.cat([source[name], source[name]], dim=1) / 2 if halved else source[name]
        assert written[key].shape == target.shape and torch.equal(written[key], expected), key
        filled += 1
    assert len(written) == filled


FASTER_RCNN_FRESH = ("roi_head.bbox_head.fc_cls.", "roi_head.bbox_head.fc_reg.")  # 80 classes to 1


def test_halfway_fusion_starts_from_a_coco_detector_with_its_backbone_in_both_streams(coco_faster_rcnn, tmp_path):
    path, source = coco_faster_rcnn
    config = CONFIGS / "faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py"
    written, said = _init(config, path, tmp_path / "init.pth")

    def rule(key):
        for stream in ("backbone.visible.", "backbone.lwir."):
            if key.startswith(stream):
                return "backbone." + key[len(stream) :]
        if key.startswith(("backbone.fusions.", *FASTER_RCNN_FRESH)):
            return None
        return key

    _expect(config, rule, source, written)
    assert "backbone.visible.* from backbone.* (318 tensors)" in said
    assert "backbone.lwir.* from backbone.* (318 tensors)" in said and "neck.* as they are" in said
    assert "backbone.fusions.* (8 tensors): not in the source" in said
    assert "roi_head.bbox_head.fc_cls (weight, bias): the classifier of a single-class head" in said
    assert "roi_head.bbox_head.fc_reg (weight, bias): shape (4, 1024) and (4,) here, (320, 1024) and (320,)" in said


def test_late_fusion_starts_with_the_whole_detector_in_both_streams(coco_faster_rcnn, tmp_path):
    path, source = coco_faster_rcnn
    config = CONFIGS / "faster-rcnn_r50_fpn_late-fusion_1x_kaist.py"
    written, said = _init(config, path, tmp_path / "init.pth")

    def rule(key):
        stream, inner = key.split(".", 1)
        assert stream in ("visible", "lwir")
        return None if inner.startswith(FASTER_RCNN_FRESH) else inner

    _expect(config, rule, source, written)
    assert "visible.* from the whole source (344 tensors)" in said and "lwir.* from the whole source" in said
    assert "lwir.roi_head.bbox_head.fc_cls (weight, bias): the classifier of a single-class head" in said


def test_early_fusion_halves_the_first_convolution_over_six_channels(coco_faster_rcnn, tmp_path):
    path, source = coco_faster_rcnn
    config = CONFIGS / "faster-rcnn_r50_fpn_early-fusion_1x_kaist.py"
    written, said = _init(config, path, tmp_path / "init.pth")

    def rule(key):
        if key == "backbone.conv1.weight":
            return key, "halved"
        return None if key.startswith(FASTER_RCNN_FRESH) else key

    _expect(config, rule, source, written)
    assert "backbone.conv1.weight from backbone.conv1.weight: its 3 input channels copied to all 6 and halved" in said
    # A pair of identical pictures gives the first layer the source's response to one of them.
    picture = torch.rand(1, 3, 16, 16)
    conv = torch.nn.functional.conv2d
    assert torch.allclose(
        conv(torch.cat([picture, picture], 1), written["backbone.conv1.weight"]),
        conv(picture, source["backbone.conv1.weight"]),
        atol=1e-4,
    )


def test_a_backbone_checkpoint_fills_both_streams_and_leaves_the_rest_fresh(resnet50, tmp_path):
    path, weights = resnet50
    config = CONFIGS / "faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py"
    written, said = _init(config, path, tmp_path / "init.pth")

    def rule(key):
        for stream in ("backbone.visible.", "backbone.lwir."):
            if key.startswith(stream):
                return key[len(stream) :]
        return None

    _expect(config, rule, weights, written)
    assert "backbone.visible.* from the whole source (318 tensors)" in said
    assert "neck.* (16 tensors): not in the source" in said and "unused from the source: fc.* (2 tensors)" in said


def test_a_single_class_classifier_starts_fresh_even_where_the_shapes_agree(tmp_path):
    """RetinaNet: a person-only source fits every shape, yet its classifier is not carried over;
    the box regression is."""
    rgb = CONFIGS / "retinanet_r18_fpn_rgb_synth.py"
    source = _random_state(MODELS.build(load_config(rgb).model), seed=3)
    torch.save({"meta": {}, "state_dict": source}, tmp_path / "retinanet.pth")
    config = CONFIGS / "retinanet_r18_fpn_halfway-fusion_synth.py"
    written, said = _init(config, tmp_path / "retinanet.pth", tmp_path / "init.pth")

    def rule(key):
        for stream in ("backbone.visible.", "backbone.lwir."):
            if key.startswith(stream):
                return "backbone." + key[len(stream) :]
        return None if key.startswith(("backbone.fusions.", "bbox_head.retina_cls.")) else key

    _expect(config, rule, source, written)
    assert "bbox_head.retina_reg.weight" in written
    assert "bbox_head.retina_cls (weight, bias): the classifier of a single-class head" in said


def test_a_source_that_fills_nothing_is_refused(tmp_path):
    import subprocess
    import sys

    torch.save({"state_dict": {"head.fc.weight": torch.zeros(3, 3)}}, tmp_path / "unrelated.pth")
    out = tmp_path / "init.pth"
    config = CONFIGS / "retinanet_r18_fpn_rgb_synth.py"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kaist_kit",
            "init-checkpoint",
            str(config),
            str(tmp_path / "unrelated.pth"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr.strip().splitlines()[-1].startswith(f"error: {tmp_path / 'unrelated.pth'}: fills none of the")
    missing = subprocess.run(
        [
            sys.executable,
            "-m",
            "kaist_kit",
            "init-checkpoint",
            str(config),
            str(tmp_path / "nope.pth"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and missing.stderr.strip().endswith("nope.pth: no such checkpoint")


def test_early_fusion_starts_its_six_channel_convolution_from_imagenet_halved(resnet50):
    path, weights = resnet50
    config = CONFIGS / "faster-rcnn_r50_fpn_early-fusion_1x_kaist.py"
    model = MODELS.build(load_config(config, [f"model.backbone.init_cfg.checkpoint={path}"]).model)
    model.init_weights()
    state = model.backbone.state_dict()
    assert torch.equal(state["conv1.weight"], torch.cat([weights["conv1.weight"]] * 2, dim=1) / 2)
    assert not model.backbone.conv1.weight.requires_grad  # frozen with the stem, as in the other configs
    for key, value in state.items():
        if key != "conv1.weight":
            assert torch.equal(value, weights[key]), key


def _coco_meta(classes: int) -> dict:
    """A ``meta`` as mmengine's runner writes it and mmdetection's publish_model.py keeps it."""
    return {
        "epoch": 12,
        "iter": 88560,
        "cfg": "model = dict(type='DINO')\n",
        "seed": 0,
        "experiment_name": "coco",
        "time": "20221202_182705",
        "mmengine_version": "0.3.2",
        "dataset_meta": {"classes": tuple(f"class{k}" for k in range(classes)), "palette": [(220, 20, 60)] * classes},
    }


# mmdetection's COCO DETR-family configs whose checkpoints the kit's configs start from.
COCO_DETRS = {
    "dino": "mmdet::dino/dino-4scale_r50_8xb2-12e_coco.py",
    "deformable-detr": "mmdet::deformable_detr/deformable-detr-refine-twostage_r50_16xb2-50e_coco.py",
}
DETR_CONFIGS = {
    "dino": "dino-4scale_r50_{}_12e_kaist.py",
    "deformable-detr": "deformable-detr-refine-twostage_r50_{}_12e_kaist.py",
}


@pytest.mark.parametrize("family, fusion", [("dino", "halfway-fusion"), ("deformable-detr", "halfway-fusion")])
def test_two_stream_detrs_start_from_mmdetection_s_coco_checkpoint_with_both_streams_filled(family, fusion, tmp_path):
    """A checkpoint laid out as mmdetection publishes its COCO DINO (or Deformable DETR): its model built
    from mmdetection's own config, random weights, ``meta`` and ``state_dict`` in torch's legacy format
    (publish_model.py's). Every tensor of the two-stream model comes from it, tensor for tensor, but the
    fusion modules and what COCO's 80 classes shape (the class scores of every decoder layer, DINO's
    label embedding for denoising)."""
    source_config = tmp_path / f"{family}_coco.py"
    source_config.write_text(f"_base_ = '{COCO_DETRS[family]}'\n")
    coco = MODELS.build(load_config(source_config).model)
    assert coco.bbox_head.num_classes == 80
    source = _random_state(coco, seed=5)
    del coco
    path = tmp_path / f"{family}_coco.pth"
    torch.save({"meta": _coco_meta(80), "state_dict": source}, path, _use_new_zipfile_serialization=False)
    config = CONFIGS / DETR_CONFIGS[family].format(fusion)
    written, said = _init(config, path, tmp_path / "init.pth")
    fresh = ("backbone.fusions.", "bbox_head.cls_branches.", "dn_query_generator.label_embedding.")

    def rule(key):
        for stream in ("backbone.visible.", "backbone.lwir."):
            if key.startswith(stream):
                return "backbone." + key[len(stream) :]
        return None if key.startswith(fresh) else key

    _expect(config, rule, source, written)
    backbone = sum(key.startswith("backbone.") for key in source)
    assert f"backbone.visible.* from backbone.* ({backbone} tensors)" in said
    assert f"backbone.lwir.* from backbone.* ({backbone} tensors)" in said
    assert "neck.* as they are" in said and "encoder.* as they are" in said and "decoder.* as they are" in said
    assert "backbone.fusions.* (" in said and "): not in the source" in said
    assert "bbox_head.cls_branches.0 (weight, bias): the classifier of a single-class head" in said
    if family == "dino":
        assert "dn_query_generator.label_embedding (weight): shape (1, 256) here, (80, 256) in the source" in said
