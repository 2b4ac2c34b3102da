"""Training a detector from a config with mmengine's runner: `kaist-kit train`."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
from collections.abc import Callable, Sequence
from pathlib import Path

from ..config_files import config_datasets, data_root_of, default_work_dir, load_config
from ..errors import InputError


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


def check_training_data(cfg, echo: Callable[[str], None] | None = None, decode: int = 8):
    """`kaist-kit check-data` on a config's training and validation files: an `InputError` naming the
    first thing missing (and how to make an annotation file that is not there), before any model is
    built. Its summary and warnings go to ``echo``."""
    from ..datacheck import check_data

    datasets = config_datasets(cfg, roles=("train", "val"))
    if not datasets:
        return None
    root = data_root_of(cfg) or datasets[0].ann_file.parent
    check = check_data(root, datasets, decode=decode)
    if not check.ok:
        raise check.error()
    if echo:
        held = ", ".join(
            f"{a.files.role} {a.recognised or a.files.ann_file.name} ({a.images:,} frames)" for a in check.annotations
        )
        echo(f"data checked: {held}; {check.pictures:,} pictures there and whole ({check.seconds:.1f} s)")
        for warning in check.warnings:
            echo(f"warning: {warning}")
    return check


def remote_weights(node, path: str = "model") -> list[tuple[str, str]]:
    """(dotted path of the init_cfg, address) of every initialisation that downloads its weights."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            checkpoint = value.get("checkpoint") if key == "init_cfg" and isinstance(value, dict) else None
            if isinstance(checkpoint, str) and checkpoint.startswith(("http://", "https://")):
                found.append((f"{path}.{key}", checkpoint))
            else:
                found += remote_weights(value, f"{path}.{key}")
    return found


def offline_weights_message(cfg, reason) -> str:
    """The way out when the starting weights cannot be downloaded, in one line."""
    import torch

    remote = remote_weights(cfg.get("model", {}))
    if not remote:
        return f"cannot download the starting weights ({reason})"
    url = remote[0][1]
    name = url.rsplit("/", 1)[-1]
    options = " ".join(f"--cfg-options {path}.checkpoint={name}" for path, _ in remote)
    return (
        f"cannot download the ImageNet weights {url} ({reason}): without network, put {name} in torch's "
        f"cache {Path(torch.hub.get_dir()) / 'checkpoints'}/ (the config then works as it is), or give a "
        f"local copy: {options}"
    )


def train(
    config: str | os.PathLike,
    work_dir: str | os.PathLike | None = None,
    gpus: int = 1,
    resume: bool = False,
    cfg_options: Sequence[str] | dict | None = None,
    amp: bool = False,
    echo: Callable[[str], None] | None = None,
) -> Path:
    """Train ``config``; checkpoints and logs go to ``work_dir`` (default ``work_dirs/<config>``).

    One process uses the GPU when there is one, else the CPU. ``gpus > 1`` starts that many
    processes with torchrun (distributed data parallel, mmengine's ``launcher='pytorch'``); without
    a GPU they share the CPU over gloo, which is for testing the setup, not for speed. ``resume``
    continues from the work folder's last checkpoint. ``amp`` trains in mixed precision (see
    `use_amp`; a CUDA GPU only). The data is checked first (`check_training_data`), once, and what is
    missing stops the run before any model is built; ``echo`` hears the check's summary. Returns the
    work folder.
    """
    import torch

    if gpus < 1:
        raise InputError(f"--gpus must be 1 or more, not {gpus}")
    if amp and not torch.cuda.is_available():
        raise InputError(
            "--amp needs a CUDA GPU: mmengine's mixed precision (AmpOptimWrapper, float16 with loss "
            "scaling) does not train on a CPU; train without --amp"
        )
    work_dir = Path(work_dir) if work_dir else default_work_dir(config)
    cfg = load_config(config, cfg_options)
    if not in_distributed_worker():
        if gpus > 1 and torch.cuda.is_available() and gpus > torch.cuda.device_count():
            raise InputError(f"--gpus {gpus}, but this machine has {torch.cuda.device_count()} GPUs")
        # A bad config, option or data root is reported once, not once per process.
        check_training_data(cfg, echo)
        if gpus > 1:
            launch(config, work_dir, gpus, resume, cfg_options, amp)
            return work_dir

    from mmengine.runner import Runner

    from .checkpoints import use_gloo_on_cpu, weights_only_checkpoints
    from .config_text import format_text_once

    format_text_once(cfg)
    cfg.work_dir = str(work_dir)
    cfg.resume = resume
    if amp:
        use_amp(cfg)
    cfg.launcher = "pytorch" if in_distributed_worker() else "none"
    if cfg.launcher == "pytorch" and not torch.cuda.is_available():
        use_gloo_on_cpu(cfg)
    with weights_only_checkpoints():  # load_from, resume and the starting weights, local or remote
        try:
            runner = Runner.from_cfg(cfg)
            if cfg.get("load_from") and not resume:
                check_starting_checkpoint(runner, cfg.load_from)
            runner.train()
        except urllib.error.URLError as exc:  # no network for the ImageNet weights
            raise InputError(offline_weights_message(cfg, exc.reason)) from None
    return work_dir


def check_starting_checkpoint(runner, load_from: str) -> None:
    """A local ``load_from`` that fills none of the model's weights is an `InputError`: training would
    start from the config's own initialisation, the checkpoint silently ignored. One that fills some
    (`kaist-kit init-checkpoint`'s, which leaves the fusion modules out) starts the model as expected."""
    from .checkpoints import fit_of, read_checkpoint

    if "://" in str(load_from):  # mmengine's remote loaders, which read weights only here too
        return
    fit = fit_of(getattr(runner.model, "module", runner.model), read_checkpoint(load_from, "cpu"))
    if fit.filled == 0:
        raise InputError(f"load_from fills none of the model's weights: it {fit.line()}", load_from)


def launch(config, work_dir: Path, gpus: int, resume: bool, cfg_options, amp: bool = False) -> None:
    """Run this same training in ``gpus`` processes with torchrun; each one calls `train`."""
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc_per_node={gpus}",
        "-m",
        "kaist_kit",
        "train",
        str(config),
        "--work-dir",
        str(work_dir),
        "--gpus",
        str(gpus),
    ]
    if resume:
        command.append("--resume")
    if amp:
        command.append("--amp")
    items = [f"{k}={v}" for k, v in cfg_options.items()] if isinstance(cfg_options, dict) else cfg_options
    for item in items or []:
        command += ["--cfg-options", item]
    subprocess.run(command, check=True)
