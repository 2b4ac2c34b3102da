"""Starting weights: ImageNet without torchvision or network, and `kaist-kit init-checkpoint`."""

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from mmdet.registry import MODELS  # noqa: E402
from mmengine.registry import init_default_scope  # noqa: E402
from models_helpers import CONFIGS  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.models.config import load_config  # noqa: E402

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
