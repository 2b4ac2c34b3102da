"""Every config reads and builds; one training step of each synthetic model learns in both streams."""

import copy
import json
import math
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from models_helpers import (  # noqa: E402
    BENCHMARK_CONFIGS,
    KAIST_CONFIGS,
    SYNTH_CONFIGS,
    build_model,
    tiny_options,
    train_step,
    training_batch,
)

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.tools.config_files import load_config  # noqa: E402


def _torchvision_url(name: str) -> str:
    """The file mmengine itself fetches for ``torchvision://<name>`` (its own table)."""
    import mmengine

    return json.loads((Path(mmengine.__file__).parent / "hub" / "torchvision_0.12.json").read_text())[name]


TORCHVISION_RESNET50 = "https://download.pytorch.org/models/resnet50-0676ba61.pth"


def test_the_imagenet_weights_are_torchvision_s_resnet50_as_mmengine_names_it():
    assert _torchvision_url("resnet50") == TORCHVISION_RESNET50


def test_there_are_configs_for_every_model():
    names = {p.name for p in KAIST_CONFIGS}
    for model in ("early-fusion", "halfway-fusion", "late-fusion", "rgb", "thermal"):
        assert f"faster-rcnn_r50_fpn_{model}_1x_kaist.py" in names
        assert f"faster-rcnn_r18_fpn_{model}_synth.py" in {p.name for p in SYNTH_CONFIGS}
        assert f"retinanet_r18_fpn_{model}_synth.py" in {p.name for p in SYNTH_CONFIGS}
    for model in ("halfway-fusion", "gated-fusion", "rgb", "thermal"):
        assert f"dino_r18_{model}_synth.py" in {p.name for p in SYNTH_CONFIGS}
        assert f"deformable-detr_r18_{model}_synth.py" in {p.name for p in SYNTH_CONFIGS}
    assert {"dino-4scale_r50_halfway-fusion_12e_kaist.py", "dino-4scale_r50_gated-fusion_12e_kaist.py"} <= names
    assert "deformable-detr-refine-twostage_r50_halfway-fusion_12e_kaist.py" in names


DETR_CONFIGS = [p for p in KAIST_CONFIGS + BENCHMARK_CONFIGS if load_config(p).model.type in ("DINO", "DeformableDETR")]


@pytest.mark.parametrize("path", DETR_CONFIGS, ids=lambda p: p.stem)
def test_detr_configs_fuse_each_level_before_the_channel_mapper_and_keep_low_scores(path):
    """Two streams fused at each level the transformer reads, into mmdetection's channel mapper; the fusion
    modules (new) at the full learning rate where the pretrained backbones get a tenth; and every frame's
    100 best queries kept without a score threshold, so that the miss-rate curve reaches from 1e-2 to 1
    false positive per image and beyond (100 a frame where the leaderboard's test set has 2,252 frames:
    the lowest-scored reach far above 1 FPPI, the best below 1e-2)."""
    cfg = load_config(path)
    backbone = cfg.model.backbone
    assert backbone.type == "TwoStreamBackbone" and backbone.fusion.type in ("ConcatFusion", "GatedFusion")
    assert backbone.visible.out_indices == backbone.lwir.out_indices == (1, 2, 3)
    assert list(backbone.channels) == list(cfg.model.neck.in_channels) and cfg.model.neck.type == "ChannelMapper"
    assert cfg.model.neck.num_outs == 4  # 4-scale: the channel mapper adds the fourth level
    keys = cfg.optim_wrapper.paramwise_cfg.custom_keys
    assert keys["backbone"].lr_mult == 0.1 and keys["backbone.fusions"].lr_mult == 1.0
    assert cfg.model.test_cfg.max_per_img >= 100 and "score_thr" not in cfg.model.test_cfg
    assert cfg.auto_scale_lr.enable and cfg.auto_scale_lr.base_batch_size == 16


@pytest.mark.parametrize("path", KAIST_CONFIGS, ids=lambda p: p.stem)
def test_kaist_configs_build(path):
    cfg = load_config(path)
    assert cfg.custom_imports.imports == ["kaist_kit.models"]
    assert cfg.default_hooks.checkpoint.save_best == "kaist/reasonable_all"
    assert cfg.val_evaluator.type == "KaistMetric"
    # Trained on train-02, the best checkpoint chosen on val-02; test-all-20 only for kaist-kit test.
    assert cfg.train_dataloader.dataset.ann_file == "annotations/train-02.json"
    assert cfg.val_dataloader.dataset.ann_file == "annotations/val-02.json"
    assert cfg.test_dataloader.dataset.ann_file.endswith("test-all-20.leaderboard.json")
    backbones = [cfg.model.get("backbone")] if "backbone" in cfg.model else [cfg.model.visible.backbone]
    for backbone in backbones:  # ImageNet weights, as users expect, without torchvision
        inits = [backbone.get("init_cfg")] + [backbone.get(s, {}).get("init_cfg") for s in ("visible", "lwir")]
        assert any(i and i["checkpoint"] == TORCHVISION_RESNET50 for i in inits)
    model = build_model(cfg)
    with torch.no_grad():
        model.eval()
        inputs = torch.zeros(1, 6, 64, 64)
        features = model.extract_feat(model.data_preprocessor({"inputs": [inputs[0].byte()]})["inputs"])
    assert features


def _frames(path) -> list[str]:
    return [image["im_name"] for image in json.loads(Path(path).read_text())["images"]]


def on_test_split(benchmark, frames, root) -> list[str]:
    """The frames among ``frames`` of the benchmark's test split (its spec's `default_split`, the one its
    papers report): KAIST's test sets set06-11 (test-all-20 is drawn from them), another benchmark's
    test frames as its reader reads them from the dataset at ``root``."""
    from kaist_kit.datasets.readers import read_benchmark
    from kaist_kit.trainsets.lists import frames_of_test_sets

    if benchmark.name == "kaist":
        return frames_of_test_sets(frames)
    tested = set(read_benchmark(benchmark, root, benchmark.default_split).image_names)
    return [frame for frame in frames if frame in tested]


@pytest.mark.parametrize("path", KAIST_CONFIGS + SYNTH_CONFIGS + BENCHMARK_CONFIGS, ids=lambda p: p.stem)
def test_no_config_trains_or_validates_on_a_test_frame(path, tiny_synth, benchmark_roots):
    """No frame of the benchmark's test split in any config's training or validation annotations, and no
    video on both sides: the KAIST configs' files are named sets whose lists the kit pins; the synthetic
    ones are made from the synthetic training frames, the other benchmarks' from their training split,
    as the configs' own commands make them (and neither validates)."""
    from kaist_kit.datasets import get_benchmark
    from kaist_kit.tools.config_files import config_datasets
    from kaist_kit.tools.datacheck import claimed_set
    from kaist_kit.trainsets.lists import named_list

    benchmark = get_benchmark(load_config(path).train_dataloader.dataset.get("benchmark", "kaist"))
    root = tiny_synth if benchmark.name == "kaist" else benchmark_roots[benchmark.name]
    files = {f.role: f for f in config_datasets(load_config(path, {"data_root": str(root)}))}
    assert "train" in files and "test" in files
    frames = {}
    for role in ("train", "val"):
        if role not in files:
            continue
        name = claimed_set(files[role].ann_file) if benchmark.name == "kaist" else None
        frames[role] = list(named_list(name)) if name else _frames(files[role].ann_file)
        assert frames[role] and not on_test_split(benchmark, frames[role], root), (role, files[role].ann_file)
    if benchmark.name != "kaist":  # the test file is the test split, whole
        assert sorted(_frames(files["test"].ann_file)) == sorted(read_test_split(benchmark, root))
    if "_kaist" in path.name:
        assert "val" in files and claimed_set(files["val"].ann_file) == "val-02"
        assert not {f[:10] for f in frames["train"]} & {f[:10] for f in frames["val"]}
    else:
        assert "val" not in files
        cfg = load_config(path)
        assert cfg.val_dataloader is None and cfg.val_cfg is None


def read_test_split(benchmark, root) -> list[str]:
    from kaist_kit.datasets.readers import read_benchmark

    return read_benchmark(benchmark, root, benchmark.default_split).image_names


def test_synth_configs_read_the_dataset_folder_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("KAIST_KIT_SYNTH", str(tmp_path))
    cfg = load_config(SYNTH_CONFIGS[0])
    assert cfg.train_dataloader.dataset.data_root == str(tmp_path)
    monkeypatch.delenv("KAIST_KIT_SYNTH")
    cfg = load_config(SYNTH_CONFIGS[0], ["data_root=/somewhere/else"])
    for loader in ("train_dataloader", "test_dataloader"):
        assert cfg[loader].dataset.data_root == "/somewhere/else"


def _gradient(module) -> float:
    """Total gradient over a module's parameters that the loss reached (RetinaNet's FPN, for one,
    leaves the first stage's output unused)."""
    grads = [p.grad for p in module.parameters() if p.requires_grad and p.grad is not None]
    assert grads and all(torch.isfinite(g).all() for g in grads)
    return float(sum(g.abs().sum() for g in grads))


@pytest.mark.parametrize("path", SYNTH_CONFIGS, ids=lambda p: p.stem)
def test_one_training_step_gives_finite_losses_and_gradients_in_both_streams(path, tiny_synth):
    torch.manual_seed(0)
    cfg = load_config(path, tiny_options(tiny_synth))
    model = build_model(cfg)
    losses = train_step(model, training_batch(cfg))
    logs = {key: float(torch.as_tensor(value).detach()) for key, value in losses.items()}
    assert logs["loss"] > 0 and all(math.isfinite(v) for v in logs.values())
    # Distributed training stops at its second step when a parameter gets no gradient, unless the
    # config says so (mmengine's find_unused_parameters).
    unused = [name for name, p in model.named_parameters() if p.requires_grad and p.grad is None]
    assert bool(unused) == bool(cfg.get("find_unused_parameters", False)), unused

    if "late-fusion" in path.name:
        assert _gradient(model.visible) > 0 and _gradient(model.lwir) > 0
    elif "halfway-fusion" in path.name or "gated-fusion" in path.name:
        assert _gradient(model.backbone.visible) > 0 and _gradient(model.backbone.lwir) > 0
        assert _gradient(model.backbone.fusions) > 0
    elif "early-fusion" in path.name:
        first = model.backbone.conv1.weight.grad
        assert first.shape[1] == 6
        assert first[:, :3].abs().sum() > 0 and first[:, 3:].abs().sum() > 0
    else:
        assert _gradient(model.backbone) > 0
        expected = ("visible",) if "_rgb_" in path.name else ("lwir",)
        assert model.data_preprocessor.modalities == expected


def test_runs_of_one_config_in_one_process_have_names_of_their_own():
    # mmengine names a run after its config and the second it starts: the same name would make a
    # second run within that second take over the first's logger and visualizer.
    first, second = load_config(SYNTH_CONFIGS[0]), load_config(SYNTH_CONFIGS[0])
    names = {cfg.get("experiment_name", Path(SYNTH_CONFIGS[0]).stem) for cfg in (first, second)}
    assert len(names) == 2
    assert load_config(SYNTH_CONFIGS[0], ["experiment_name=mine"]).experiment_name == "mine"


def test_a_run_formats_its_config_text_once_and_as_mmengine_does(monkeypatch):
    """mmengine formats a config's text (yapf, most of a second) for the log, the work folder and every
    checkpoint; the kit's runs format it once per content, to the same text."""
    from mmengine.config import Config

    from kaist_kit.models.config_text import format_text_once

    calls = []
    formatting = Config.pretty_text.fget
    monkeypatch.setattr(Config, "pretty_text", property(lambda cfg: calls.append(1) or formatting(cfg)))
    cfg = load_config(SYNTH_CONFIGS[0])
    expected = formatting(cfg)
    formatted = format_text_once(cfg)
    assert formatted is cfg and formatted.pretty_text == expected and formatted.pretty_text == expected
    copied = copy.deepcopy(formatted)  # as mmengine's runner copies it
    assert copied.pretty_text == expected and len(calls) == 1
    copied.work_dir = "elsewhere"  # another content: formatted again
    assert "work_dir = 'elsewhere'" in copied.pretty_text and len(calls) == 2
