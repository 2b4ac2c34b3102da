"""Shared by the tests/test_models_*.py files: configs, tiny overrides and one training step."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs"
SYNTH_CONFIGS = sorted(CONFIGS.glob("*_synth.py"))
KAIST_CONFIGS = sorted(CONFIGS.glob("*_kaist.py"))
# The configs of the other benchmarks: named after the benchmark whose data they train on.
BENCHMARK_CONFIGS = sorted(p for p in CONFIGS.glob("*.py") if p not in SYNTH_CONFIGS + KAIST_CONFIGS)


def tiny_options(root: Path, batch_size: int = 2) -> dict:
    """Overrides that make a synthetic config quick on the tiny 160 x 128 dataset."""
    return {
        "data_root": str(root),
        "train_dataloader.batch_size": batch_size,
        "train_dataloader.num_workers": 0,
        "train_dataloader.persistent_workers": False,
        "test_dataloader.num_workers": 0,
        "test_dataloader.persistent_workers": False,
        "train_dataloader.dataset.pipeline.2.scale": (160, 128),
        "test_dataloader.dataset.pipeline.1.scale": (160, 128),
        "default_hooks.logger.interval": 1,
    }


DETRS = ("DINO", "DeformableDETR")


def tiny_detr_options(model_cfg) -> dict:
    """A DINO or Deformable DETR config's transformer cut to one encoder and one decoder layer and 100
    queries, for a few iterations on a CPU: the config's pipeline, backbones, fusion, head and losses as
    they are. Nothing for another detector."""
    if model_cfg.get("type") not in DETRS:
        return {}
    options = {"model.encoder.num_layers": 1, "model.decoder.num_layers": 1, "model.num_queries": 100}
    if "dn_cfg" in model_cfg:
        options["model.dn_cfg.group_cfg.num_dn_queries"] = 10
    return options


def cli_options(options: dict) -> list[str]:
    """``--cfg-options KEY=VALUE`` arguments for a dict of overrides (tuples written ``(a,b)``)."""

    def text(value):
        return "(" + ",".join(map(str, value)) + ")" if isinstance(value, tuple) else str(value)

    return [a for key, value in options.items() for a in ("--cfg-options", f"{key}={text(value)}")]


def loads_weights(init_cfg) -> bool:
    """Whether an ``init_cfg`` reads a checkpoint (Pretrained, the kit's PairPretrained)."""
    return isinstance(init_cfg, dict) and "checkpoint" in init_cfg


def pretrained_paths(node, path: str = "model") -> list[str]:
    """Dotted paths of every ``init_cfg`` that loads weights in a model config."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "init_cfg" and loads_weights(value):
                found.append(f"{path}.{key}")
            else:
                found += pretrained_paths(value, f"{path}.{key}")
    return found


def without_downloads(model_cfg) -> None:
    """Drop ImageNet initialisation (init_cfg that loads weights) from every backbone in a model config."""
    if isinstance(model_cfg, dict):
        for key, value in model_cfg.items():
            if key == "init_cfg" and loads_weights(value):
                model_cfg[key] = None
            else:
                without_downloads(value)
    elif isinstance(model_cfg, (list, tuple)):
        for value in model_cfg:
            without_downloads(value)


def build_model(cfg):
    from mmdet.registry import MODELS
    from mmengine.registry import init_default_scope

    init_default_scope("mmdet")
    without_downloads(cfg.model)
    model = MODELS.build(cfg.model)
    model.init_weights()
    return model


def training_batch(cfg, n: int = 2):
    from mmdet.registry import DATASETS
    from mmengine.dataset import pseudo_collate

    dataset = DATASETS.build(cfg.train_dataloader.dataset)
    return pseudo_collate([dataset[k] for k in range(n)])


def train_step(model, batch) -> dict:
    """One forward and backward pass; returns the logged losses."""
    model.train()
    data = model.data_preprocessor(batch, True)
    loss, logs = model.parse_losses(model(**data, mode="loss"))
    model.zero_grad()
    loss.backward()
    return logs
