"""Training across machines on CPU: two local "nodes" (torchrun's static rendezvous, gloo), and two tasks
as srun starts them, train as one process does on the same global batch; srun's tasks get torch's
variables as mmengine's slurm launcher gives them."""

import os
import re
import socket
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from models_helpers import CONFIGS, build_model  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.errors import InputError  # noqa: E402
from kaist_kit.models.train import Nodes, slurm_task_environment, train  # noqa: E402
from kaist_kit.tools.config_files import load_config  # noqa: E402

# Deformable DETR (no denoising noise, no dropout in the synthetic configs) with its batch norms frozen at
# their statistics, unflipped frames in order and plain SGD: a step then depends on the global batch only,
# and the losses, normalised by the number of boxes averaged over the processes (sync_cls_avg_factor),
# add up across processes exactly as over one batch.
BASE = CONFIGS / "deformable-detr_r18_halfway-fusion_synth.py"
EQUIVALENT = """_base_ = [{base!r}]
data_root = {root!r}
model = dict(backbone=dict(visible=dict(norm_eval=True), lwir=dict(norm_eval=True)))
train_dataloader = dict(
    batch_size={batch},
    num_workers=0,
    persistent_workers=False,
    sampler=dict(type="DefaultSampler", shuffle=False),
    dataset=dict(
        data_root={root!r},
        indices=4,
        pipeline=[
            dict(type="LoadKaistPair"),
            dict(type="LoadAnnotations", with_bbox=True),
            dict(type="Resize", scale=(160, 128), keep_ratio=True),
            dict(type="PackDetInputs"),
        ],
    ),
)
optim_wrapper = dict(_delete_=True, type="OptimWrapper", optimizer=dict(type="SGD", lr=0.01))
param_scheduler = None
train_cfg = dict(max_epochs=1)
default_hooks = dict(logger=dict(interval=1), checkpoint=dict(save_optimizer=False))
log_level = "DEBUG"  # every process writes its own log, with its own losses
load_from = {init!r}
"""
# What the two runs may differ by: float32 sums in another order. Weights: each tensor's update within
# 1e-4 of its size, beyond the float32 resolution of the weights themselves (twice float32's epsilon times
# the tensor's norm: the first layers move by a few units of the last place in two steps); losses: the 4
# decimals mmengine logs, each rounded (1.5e-4 for the mean of two and the one they are compared with).
UPDATE_TOLERANCE = 1e-4
RESOLUTION = 2 * torch.finfo(torch.float32).eps
LOSS_TOLERANCE = 1.5e-4


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _config(folder, root, init, batch):
    path = folder / f"equivalent_batch{batch}.py"
    path.write_text(EQUIVALENT.format(base=str(BASE), root=str(root), batch=batch, init=str(init)))
    return path


def _losses(log: str) -> list[float]:
    return [float(v) for v in re.findall(r"Epoch\(train\) \[1\]\[\d+/\d+\].*? loss: ([0-9.]+)", log)]


def test_two_nodes_train_as_one_process_on_the_same_global_batch(tiny_synth, tmp_path):
    init = tmp_path / "init.pth"
    model = build_model(load_config(_config(tmp_path, tiny_synth, init, 2)))
    torch.save({"state_dict": model.state_dict()}, init)
    del model

    single = tmp_path / "single"
    train(_config(tmp_path, tiny_synth, init, 2), single)

    two = tmp_path / "two-nodes"
    port = _free_port()
    config = _config(tmp_path, tiny_synth, init, 1)
    command = [sys.executable, "-m", "kaist_kit", "train", str(config), "--work-dir", str(two), "--nnodes", "2"]
    nodes = [
        subprocess.Popen(
            [*command, "--node-rank", str(rank), "--master-addr", "127.0.0.1", "--master-port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    outputs = [node.communicate(timeout=600) for node in nodes]
    for node, (_, err) in zip(nodes, outputs):
        assert node.returncode == 0, err[-3000:]
    assert "machine 0 keeps the checkpoints and logs" in outputs[1][1]

    # The same two processes as srun starts them, one task each (SLURM's variables, no scontrol here).
    srun = tmp_path / "srun"
    port = _free_port()
    slurm = dict(SLURM_NTASKS="2", SLURM_NODELIST="localhost", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    tasks = [
        subprocess.Popen(
            [sys.executable, "-m", "kaist_kit", "train", str(config), "--work-dir", str(srun), "--slurm"],
            env={**os.environ, **slurm, "SLURM_PROCID": str(rank), "SLURM_LOCALID": str(rank)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    for task in tasks:
        _, err = task.communicate(timeout=600)
        assert task.returncode == 0, err[-3000:]

    logs = {path.name: path.read_text() for path in two.glob("*/*.log")}
    ranks = [next(text for name, text in logs.items() if name.endswith(f"rank{r}.log")) for r in (0, 1)]
    assert "Distributed training: True" in ranks[0] and "GPU number: 2" in ranks[0]  # mmengine's world size
    one = _losses(next(single.glob("*/*.log")).read_text())
    per_rank = [_losses(text) for text in ranks]
    assert len(one) == 2 and all(len(losses) == 2 for losses in per_rank)
    for k, loss in enumerate(one):  # each process's loss is its share of the global batch's
        assert abs((per_rank[0][k] + per_rank[1][k]) / 2 - loss) <= LOSS_TOLERANCE, (one, per_rank)

    start = torch.load(init, weights_only=True)["state_dict"]
    alone = torch.load(single / "epoch_1.pth", weights_only=False)["state_dict"]
    together = torch.load(two / "epoch_1.pth", weights_only=False)["state_dict"]
    assert set(alone) == set(together) == set(start)
    under_srun = torch.load(srun / "epoch_1.pth", weights_only=False)["state_dict"]
    assert all(torch.equal(under_srun[key], together[key]) for key in together)  # the same processes
    moved, steps, differences = 0, [], []
    for key, before in start.items():
        if not before.is_floating_point():
            continue
        step = alone[key] - before
        difference = (together[key] - alone[key]).norm()
        allowed = UPDATE_TOLERANCE * step.norm() + RESOLUTION * alone[key].norm()
        assert difference <= allowed, (key, float(difference), float(step.norm()))
        moved += bool(step.norm() > 0)
        steps.append(float(step.norm()) ** 2)
        differences.append(float(difference) ** 2)
    assert moved > 100 and sum(steps) ** 0.5 > 0.1  # the two steps changed the model
    assert sum(differences) ** 0.5 <= UPDATE_TOLERANCE * sum(steps) ** 0.5


def test_srun_tasks_get_torch_s_variables_as_mmengine_s_slurm_launcher_sets_them(tmp_path, monkeypatch):
    """mmengine's own `_init_dist_slurm`, run with its GPU and process-group calls stubbed (no GPU here)
    and scontrol answering as SLURM does, sets the same variables as the kit's reading of srun's."""
    import mmengine.dist.utils as dist_utils

    scontrol = tmp_path / "bin" / "scontrol"
    scontrol.parent.mkdir()
    scontrol.write_text('#!/bin/sh\n[ "$3" = "gpu[03-04]" ] && printf "gpu03\\ngpu04\\n"\n')
    scontrol.chmod(0o755)
    monkeypatch.setenv("PATH", f"{scontrol.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: None)
    monkeypatch.setattr(dist_utils.torch_dist, "init_process_group", lambda *args, **kwargs: None)
    variables = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
    for name in variables + ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_NODELIST", "SLURM_LOCALID"):
        monkeypatch.setenv(name, "")  # mmengine sets os.environ itself: put back as it was afterwards
    tasks = [
        dict(SLURM_PROCID="5", SLURM_NTASKS="8", SLURM_NODELIST="gpu[03-04]", SLURM_LOCALID="1"),
        dict(SLURM_PROCID="0", SLURM_NTASKS="8", SLURM_NODELIST="gpu[03-04]", SLURM_LOCALID="0", MASTER_PORT="29611"),
        dict(SLURM_PROCID="3", SLURM_NTASKS="4", SLURM_NODELIST="gpu[03-04]", MASTER_ADDR="10.0.0.7"),
    ]
    for task in tasks:
        for name in variables + ("SLURM_LOCALID",):
            monkeypatch.delenv(name, raising=False)
        for name, value in task.items():
            monkeypatch.setenv(name, value)
        ours = slurm_task_environment(dict(os.environ))
        if "SLURM_LOCALID" not in task:  # mmengine divides by the GPUs there are: give it some
            monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
            ours = slurm_task_environment(dict(os.environ))
        dist_utils._init_dist_slurm("nccl")
        assert ours == {name: os.environ[name] for name in variables}, task
    assert ours["LOCAL_RANK"] == "1" and ours["MASTER_ADDR"] == "10.0.0.7"


def test_bad_multi_node_options_are_one_line_errors(tmp_path):
    config = CONFIGS / "retinanet_r18_fpn_rgb_synth.py"
    cases = [
        (Nodes(2), "--nnodes 2 needs --master-addr"),
        (Nodes(2, 2, "10.0.0.1"), "--node-rank must be 0 to 1 (--nnodes 2), not 2"),
        (Nodes(1, 0, "10.0.0.1"), "--node-rank and --master-addr are for several machines"),
    ]
    for nodes, message in cases:
        with pytest.raises(InputError, match=re.escape(message)):
            train(config, tmp_path / "work", nodes=nodes)
    with pytest.raises(InputError, match="leave out --gpus and --nnodes"):
        train(config, tmp_path / "work", gpus=2, slurm=True)
    proc = subprocess.run(
        [sys.executable, "-m", "kaist_kit", "train", str(config), "--slurm", "--work-dir", str(tmp_path / "w")],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("SLURM_")},
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .startswith("error: --slurm runs as one task that srun started, but SLURM_PROCID is not set")
    )
    assert not (tmp_path / "w").exists()
