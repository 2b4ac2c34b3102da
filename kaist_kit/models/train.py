"""Training a detector from a config with mmengine's runner: `kaist-kit train`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError
from .config import default_work_dir, load_config


def in_distributed_worker() -> bool:
    """Whether this process was started by torchrun as one of several."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1 and "LOCAL_RANK" in os.environ


def use_amp(cfg) -> None:
    """Mixed precision as mmdetection's ``tools/train.py --amp`` sets it: mmengine's
    `AmpOptimWrapper` (float16 where safe, dynamic loss scaling) in place of ``OptimWrapper``."""
    kind = cfg.optim_wrapper.get("type", "OptimWrapper")
    if kind == "AmpOptimWrapper":
        return
    if kind != "OptimWrapper":
        raise InputError(f"--amp replaces OptimWrapper, but the config's optim_wrapper is {kind}")
    cfg.optim_wrapper.type = "AmpOptimWrapper"
    cfg.optim_wrapper.loss_scale = "dynamic"


def train(config: str | os.PathLike, work_dir: str | os.PathLike | None = None, gpus: int = 1,
          resume: bool = False, cfg_options: Sequence[str] | dict | None = None, amp: bool = False) -> Path:
    """Train ``config``; checkpoints and logs go to ``work_dir`` (default ``work_dirs/<config>``).

    One process uses the GPU when there is one, else the CPU. ``gpus > 1`` starts that many
    processes with torchrun (distributed data parallel, mmengine's ``launcher='pytorch'``); without
    a GPU they share the CPU over gloo, which is for testing the setup, not for speed. ``resume``
    continues from the work folder's last checkpoint. ``amp`` trains in mixed precision (see
    `use_amp`; a CUDA GPU only). Returns the work folder.
    """
    import torch

    if gpus < 1:
        raise InputError(f"--gpus must be 1 or more, not {gpus}")
    if amp and not torch.cuda.is_available():
        raise InputError("--amp needs a CUDA GPU: mmengine's mixed precision (AmpOptimWrapper, float16 with loss "
                         "scaling) does not train on a CPU; train without --amp")
    work_dir = Path(work_dir) if work_dir else default_work_dir(config)
    if gpus > 1 and not in_distributed_worker():
        if torch.cuda.is_available() and gpus > torch.cuda.device_count():
            raise InputError(f"--gpus {gpus}, but this machine has {torch.cuda.device_count()} GPUs")
        load_config(config, cfg_options)  # report a bad config or option once, not once per process
        launch(config, work_dir, gpus, resume, cfg_options, amp)
        return work_dir

    from mmengine.runner import Runner

    from .checkpoints import trusted_checkpoints, use_gloo_on_cpu

    cfg = load_config(config, cfg_options)
    cfg.work_dir = str(work_dir)
    cfg.resume = resume
    if amp:
        use_amp(cfg)
    cfg.launcher = "pytorch" if in_distributed_worker() else "none"
    if cfg.launcher == "pytorch" and not torch.cuda.is_available():
        use_gloo_on_cpu(cfg)
    with trusted_checkpoints():  # load_from, resume and local ImageNet weights
        Runner.from_cfg(cfg).train()
    return work_dir


def launch(config, work_dir: Path, gpus: int, resume: bool, cfg_options, amp: bool = False) -> None:
    """Run this same training in ``gpus`` processes with torchrun; each one calls `train`."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={gpus}",
               "-m", "kaist_kit", "train", str(config), "--work-dir", str(work_dir), "--gpus", str(gpus)]
    if resume:
        command.append("--resume")
    if amp:
        command.append("--amp")
    items = [f"{k}={v}" for k, v in cfg_options.items()] if isinstance(cfg_options, dict) else cfg_options
    for item in items or []:
        command += ["--cfg-options", item]
    subprocess.run(command, check=True)
