"""Checkpoint loading and CPU distributed training with mmengine 0.10.7 on recent torch."""

from __future__ import annotations

import contextlib
import os.path as osp
from collections.abc import Iterator


def load_trusted(filename: str, map_location=None):
    """mmengine's loader for local paths, reading the whole pickle (``weights_only=False``)."""
    import torch

    filename = osp.expanduser(filename)
    if not osp.isfile(filename):
        raise FileNotFoundError(f"{filename} can not be found.")
    return torch.load(filename, map_location=map_location, weights_only=False)


@contextlib.contextmanager
def trusted_checkpoints() -> Iterator[None]:
    """Within the block, mmengine reads local checkpoints whole again; afterwards as before.

    Since torch 2.6, ``torch.load`` unpickles only plain tensors by default, and mmengine's
    checkpoints also hold its message hub (a ``HistoryBuffer``): ``load_from``, ``resume`` and
    ``load_checkpoint`` then fail with "Unsupported global". `kaist-kit train`, `test`, `infer`
    and `init-checkpoint` load through this block, so that their checkpoints load and nothing
    else in the process changes: importing `kaist_kit.models` (as configs do through
    ``custom_imports``) leaves mmengine's loaders alone. Only load checkpoints you trust (your
    own training runs, published weights): unpickling can run code. Remote checkpoints keep
    mmengine's loaders.
    """
    from mmengine.runner.checkpoint import CheckpointLoader

    previous = CheckpointLoader._schemes.get("")
    CheckpointLoader.register_scheme(prefixes="", loader=load_trusted, force=True)
    try:
        yield
    finally:
        CheckpointLoader.register_scheme(prefixes="", loader=previous, force=True)


def trust_local_checkpoints() -> None:
    """Make mmengine read local checkpoints whole for the rest of the process (see
    `trusted_checkpoints`), for a script of your own that drives mmengine. mmdetection's
    ``tools/train.py`` and ``tools/test.py`` get the same from torch itself:
    ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 python tools/train.py CONFIG``.
    """
    from mmengine.runner.checkpoint import CheckpointLoader

    CheckpointLoader.register_scheme(prefixes="", loader=load_trusted, force=True)


def use_gloo_on_cpu(cfg) -> None:
    """Make mmengine's ``launcher='pytorch'`` work without a GPU (several CPU processes, gloo).

    mmengine's process-group setup calls ``torch.cuda.set_device`` and its runner gives
    ``device_ids=[rank]`` to DistributedDataParallel; both fail on CPU. Starting the gloo process
    group first makes the runner skip its own setup, and an explicit wrapper without device ids
    replaces the default one.
    """
    import datetime

    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="gloo", timeout=datetime.timedelta(minutes=30))
    cfg.env_cfg = cfg.get("env_cfg", {})
    cfg.env_cfg["dist_cfg"] = dict(backend="gloo")
    cfg.model_wrapper_cfg = dict(
        type="MMDistributedDataParallel",
        broadcast_buffers=False,
        find_unused_parameters=cfg.get("find_unused_parameters", False),
        device_ids=None,
    )
