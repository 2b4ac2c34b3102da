"""Training a detector from a config with mmengine's runner: `kaist-kit train`."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..tools.config_files import config_datasets, data_root_of, default_work_dir, load_config


def in_distributed_worker() -> bool:
    """Whether this process is one of several of a distributed run (started by torchrun, or by srun
    once `slurm_task_environment` has set torch's variables)."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1 and "LOCAL_RANK" in os.environ


MAX_NODES = 1024
DEFAULT_PORT = 29500  # torch.distributed's, and mmengine's slurm launcher's


@dataclass(frozen=True)
class Nodes:
    """The machines of a multi-node run as torchrun's static rendezvous knows them: ``count`` machines,
    this one the ``rank``-th; machine 0 listens at ``master_addr``:``master_port`` for the others."""

    count: int = 1
    rank: int = 0
    master_addr: str | None = None
    master_port: int = DEFAULT_PORT

    def check(self) -> None:
        if not 1 <= self.count <= MAX_NODES:
            raise InputError(f"--nnodes must be 1 to {MAX_NODES}, not {self.count}")
        if not 0 <= self.rank < self.count:
            raise InputError(f"--node-rank must be 0 to {self.count - 1} (--nnodes {self.count}), not {self.rank}")
        if not 1 <= self.master_port <= 65535:
            raise InputError(f"--master-port must be 1 to 65535, not {self.master_port}")
        if self.count > 1 and not self.master_addr:
            raise InputError(
                f"--nnodes {self.count} needs --master-addr: the address of the machine started with --node-rank 0, "
                "which every machine can reach"
            )
        if self.count == 1 and (self.rank or self.master_addr):
            raise InputError("--node-rank and --master-addr are for several machines: give --nnodes too")

    def torchrun_options(self) -> list[str]:
        """torchrun's options for these machines: its static rendezvous, or --standalone on one."""
        if self.count == 1:
            return ["--standalone"]
        return [
            f"--nnodes={self.count}",
            f"--node_rank={self.rank}",
            f"--master_addr={self.master_addr}",
            f"--master_port={self.master_port}",
        ]


# What srun gives each task, which mmengine's slurm launcher reads.
SLURM_VARIABLES = ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_NODELIST")


def first_slurm_host(nodelist: str) -> str:
    """The first machine of a SLURM node list (``node[01-04]``), as ``scontrol show hostnames`` expands it."""
    try:
        found = subprocess.run(["scontrol", "show", "hostnames", nodelist], capture_output=True, text=True)
    except OSError as exc:
        raise InputError(
            f"cannot expand SLURM_NODELIST={nodelist!r} with scontrol ({exc.strerror or exc}): set MASTER_ADDR to "
            "the first machine's address"
        ) from None
    hosts = found.stdout.split()
    if found.returncode != 0 or not hosts:
        raise InputError(f"scontrol show hostnames {nodelist!r} gave no machine: set MASTER_ADDR")
    return hosts[0]


def slurm_task_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """torch's distributed variables for one task that srun started, derived as mmengine's slurm launcher
    derives them: rank SLURM_PROCID of SLURM_NTASKS tasks, local rank SLURM_LOCALID, the master the first
    machine of SLURM_NODELIST unless MASTER_ADDR is set, at MASTER_PORT or 29500."""
    import torch

    missing = [name for name in SLURM_VARIABLES if not environ.get(name)]
    if missing:
        raise InputError(
            f"--slurm runs as one task that srun started, but {missing[0]} is not set: start it with srun "
            '(docs/training.md, "Several machines")'
        )
    try:
        rank, tasks = int(environ["SLURM_PROCID"]), int(environ["SLURM_NTASKS"])
        local = environ.get("SLURM_LOCALID")
        local = int(local) if local is not None else rank % max(torch.cuda.device_count(), 1)
        port = int(environ.get("MASTER_PORT", DEFAULT_PORT))
    except ValueError as exc:
        raise InputError(f"a SLURM variable is not a number: {exc}") from None
    address = environ.get("MASTER_ADDR") or first_slurm_host(environ["SLURM_NODELIST"])
    return dict(
        RANK=str(rank), WORLD_SIZE=str(tasks), LOCAL_RANK=str(local), MASTER_ADDR=address, MASTER_PORT=str(port)
    )


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
    from ..tools.datacheck import check_data

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
    nodes: Nodes | None = None,
    slurm: bool = False,
) -> Path:
    """Train ``config``; checkpoints and logs go to ``work_dir`` (default ``work_dirs/<config>``).

    One process uses the GPU when there is one, else the CPU. ``gpus > 1`` starts that many
    processes with torchrun (distributed data parallel, mmengine's ``launcher='pytorch'``); without
    a GPU they share the CPU over gloo, which is for testing the setup, not for speed. ``nodes``
    spreads the run over several machines, each running this with its own ``nodes.rank`` and
    ``gpus`` processes (torchrun's static rendezvous at machine 0's address); the batch size of the
    config is per process, so the global batch is ``nodes.count * gpus`` times it. ``slurm``: this
    process is one task that srun started (mmengine's slurm launcher on GPUs; on CPUs its variables
    turned into torch's, over gloo). ``resume`` continues from the work folder's last checkpoint.
    ``amp`` trains in mixed precision (see `use_amp`; a CUDA GPU only). The data is checked first
    (`check_training_data`), on every machine, and what is missing stops the run before any model
    is built; ``echo`` hears the check's summary. Returns the work folder (machine 0's keeps the
    checkpoints).
    """
    import torch

    nodes = nodes or Nodes()
    nodes.check()
    if gpus < 1:
        raise InputError(f"--gpus must be 1 or more, not {gpus}")
    if slurm and (gpus > 1 or nodes.count > 1):
        raise InputError(
            "--slurm: srun starts the processes (--nodes, --ntasks-per-node), so leave out --gpus and --nnodes"
        )
    if amp and not torch.cuda.is_available():
        raise InputError(
            "--amp needs a CUDA GPU: mmengine's mixed precision (AmpOptimWrapper, float16 with loss "
            "scaling) does not train on a CPU; train without --amp"
        )
    work_dir = Path(work_dir) if work_dir else default_work_dir(config)
    cfg = load_config(config, cfg_options)
    if slurm:
        os.environ.update(slurm_task_environment(os.environ))
        # Every task checks its machine's data; the first one says so.
        check_training_data(cfg, echo if os.environ["RANK"] == "0" else None)
    elif not in_distributed_worker():
        if gpus > 1 and torch.cuda.is_available() and gpus > torch.cuda.device_count():
            raise InputError(f"--gpus {gpus}, but this machine has {torch.cuda.device_count()} GPUs")
        # A bad config, option or data root is reported once per machine, not once per process.
        check_training_data(cfg, echo)
        if gpus > 1 or nodes.count > 1:
            launch(config, work_dir, gpus, resume, cfg_options, amp, nodes)
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
    if cfg.launcher != "none" and not torch.cuda.is_available():
        use_gloo_on_cpu(cfg)
    elif cfg.launcher != "none" and slurm:
        cfg.launcher = "slurm"  # mmengine's own: the task's GPU from SLURM_LOCALID, NCCL
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


def launch(config, work_dir: Path, gpus: int, resume: bool, cfg_options, amp: bool = False, nodes: Nodes | None = None):
    """Run this same training in ``gpus`` processes on this machine with torchrun, one of ``nodes``
    machines (torchrun's static rendezvous); each process calls `train`."""
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        *(nodes or Nodes()).torchrun_options(),
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
