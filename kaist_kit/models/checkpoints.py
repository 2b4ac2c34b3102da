"""Checkpoint loading and CPU distributed training with mmengine 0.10.7 on recent torch."""

from __future__ import annotations

import os.path as osp


def trust_local_checkpoints() -> None:
    """Let mmengine read its own checkpoints again.

    Since torch 2.6, ``torch.load`` unpickles only plain tensors by default, and mmengine's
    checkpoints also hold its message hub (a ``HistoryBuffer``): ``load_from``, ``resume`` and
    ``load_checkpoint`` then fail with "Unsupported global". This re-registers mmengine's loader
    for local paths with ``weights_only=False``. Only load checkpoints you trust (your own
    training runs, published weights): unpickling can run code. Remote and torchvision
    checkpoints keep mmengine's loaders.
    """
    import torch
    from mmengine.runner.checkpoint import CheckpointLoader

    def load_local(filename, map_location):
        filename = osp.expanduser(filename)
        if not osp.isfile(filename):
            raise FileNotFoundError(f"{filename} can not be found.")
        return torch.load(filename, map_location=map_location, weights_only=False)

    CheckpointLoader.register_scheme(prefixes="", loader=load_local, force=True)


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
    cfg.model_wrapper_cfg = dict(type="MMDistributedDataParallel", broadcast_buffers=False,
                                 find_unused_parameters=False, device_ids=None)
