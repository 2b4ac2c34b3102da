"""Training, resuming, testing and inference through mmengine's runner and the CLI verbs."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from models_helpers import CONFIGS, build_model, cli_options, tiny_options  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.cli import app  # noqa: E402
from kaist_kit.data.results import load_detections  # noqa: E402
from kaist_kit.datasets.kaist_truth import load_ground_truth  # noqa: E402
from kaist_kit.models.checkpoints import read_checkpoint, weights_only_checkpoints  # noqa: E402
from kaist_kit.models.train import train  # noqa: E402
from kaist_kit.tools.config_files import load_config  # noqa: E402

CONFIG = CONFIGS / "retinanet_r18_fpn_halfway-fusion_synth.py"


def _options(root, epochs=1):
    return {
        **tiny_options(root),
        "train_cfg.max_epochs": epochs,
        "param_scheduler.1.T_max": epochs,
        "param_scheduler.1.end": epochs,
    }


def _validated(root) -> dict:
    """Validation after every epoch on the tiny set's val.json, as the KAIST configs validate on val-02
    (the synthetic configs do not validate; this tests the mechanism)."""
    pipeline = [
        dict(type="LoadKaistPair"),
        dict(type="Resize", scale=(160, 128), keep_ratio=True),
        dict(
            type="PackDetInputs",
            meta_keys=("img_id", "img_path", "lwir_path", "ori_shape", "img_shape", "scale_factor"),
        ),
    ]
    return {
        "val_dataloader": dict(
            _delete_=True,
            batch_size=2,
            num_workers=0,
            persistent_workers=False,
            drop_last=False,
            sampler=dict(type="DefaultSampler", shuffle=False),
            dataset=dict(
                type="KaistDataset", data_root=str(root), ann_file="val.json", test_mode=True, pipeline=pipeline
            ),
        ),
        "val_cfg": dict(_delete_=True, type="ValLoop"),
        "train_cfg.val_interval": 1,
        "val_evaluator": dict(_delete_=True, type="KaistMetric", setting=["reasonable", "all-pedestrians"]),
    }


@pytest.fixture(scope="module")
def trained(tiny_synth, tmp_path_factory):
    """One epoch of halfway fusion on the tiny dataset, validated (and the best kept) at its end."""
    work = tmp_path_factory.mktemp("work") / "halfway"
    train(CONFIG, work, cfg_options={**_options(tiny_synth), **_validated(tiny_synth)})
    return work


def test_training_writes_checkpoints_and_keeps_the_best_by_miss_rate(trained):
    assert (trained / "epoch_1.pth").is_file()
    assert list(trained.glob("best_kaist_reasonable_all_epoch_1.pth"))
    scalars = [
        json.loads(line) for path in trained.glob("*/vis_data/scalars.json") for line in path.read_text().splitlines()
    ]
    validated = [s for s in scalars if "kaist/reasonable_all" in s]
    assert validated and 0 <= validated[-1]["kaist/all-pedestrians_night"] <= 1


def test_a_checkpoint_saved_by_training_loads_again_weights_only(trained, tiny_synth):
    """torch's weights-only unpickler refuses what mmengine adds to a checkpoint (its message hub's
    HistoryBuffer, numpy arrays and scalars) unless told; the kit admits exactly that, and the message
    hub comes back as mmengine's own class with its logged values."""
    from mmengine.logging import HistoryBuffer
    from mmengine.runner import load_checkpoint

    checkpoint = trained / "epoch_1.pth"
    with pytest.raises(Exception, match="weights_only"):
        torch.load(checkpoint, weights_only=True)  # why the kit admits more than tensors
    model = build_model(load_config(CONFIG, tiny_options(tiny_synth)))
    with weights_only_checkpoints():
        saved = load_checkpoint(model, str(checkpoint), map_location="cpu")
    assert saved["meta"]["epoch"] == 1
    loaded = read_checkpoint(checkpoint)
    assert torch.equal(
        model.state_dict()["backbone.lwir.conv1.weight"], loaded["state_dict"]["backbone.lwir.conv1.weight"]
    )
    losses = loaded["message_hub"]["log_scalars"]["train/loss"]
    assert type(losses) is HistoryBuffer and losses.mean() > 0 and losses.statistics("current") == losses.current()
    whole = torch.load(checkpoint, weights_only=False)["message_hub"]["log_scalars"]["train/loss"]
    assert (losses._log_history == whole._log_history).all() and (losses._count_history == whole._count_history).all()


def test_importing_the_models_leaves_mmengine_checkpoint_loading_alone(trained, tiny_synth):
    from mmengine.runner.checkpoint import CheckpointLoader, load_checkpoint, load_from_local

    assert CheckpointLoader._schemes[""] is load_from_local  # kaist_kit.models is imported above
    model = build_model(load_config(CONFIG, tiny_options(tiny_synth)))
    with pytest.raises(Exception, match="weights_only"):
        load_checkpoint(model, str(trained / "epoch_1.pth"), map_location="cpu", logger="silent")
    with weights_only_checkpoints():
        assert load_checkpoint(model, str(trained / "epoch_1.pth"), map_location="cpu", logger="silent")
    assert CheckpointLoader._schemes[""] is load_from_local


def test_mmdetection_tools_load_the_checkpoints_with_torch_s_switch(trained):
    """As docs/training.md says for mmdetection's tools/train.py: the config's custom_imports
    change nothing, and TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 lets mmengine read the checkpoint."""
    script = (
        "import sys\n"
        "from mmengine.config import Config\n"
        "from mmengine.runner.checkpoint import CheckpointLoader, load_from_local, _load_checkpoint\n"
        "from mmengine.utils import import_modules_from_strings\n"
        "cfg = Config.fromfile(sys.argv[1])\n"
        "import_modules_from_strings(**cfg.custom_imports)\n"
        "assert 'kaist_kit.models' in sys.modules and CheckpointLoader._schemes[''] is load_from_local\n"
        "print(_load_checkpoint(sys.argv[2], map_location='cpu')['meta']['epoch'])\n"
    )
    env = {**os.environ, "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(CONFIG), str(trained / "epoch_1.pth")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split()[-1] == "1"


def test_training_resumes_from_the_last_checkpoint(trained, tiny_synth, tmp_path):
    import shutil

    work = tmp_path / "resumed"
    shutil.copytree(trained, work)
    (work / "last_checkpoint").write_text(str(work / "epoch_1.pth"))
    train(CONFIG, work, resume=True, cfg_options=_options(tiny_synth, epochs=2))
    assert torch.load(work / "epoch_2.pth", weights_only=False)["meta"]["epoch"] == 2


def test_test_writes_coco_results_with_the_test_image_ids_and_prints_the_table(trained, tiny_synth, tmp_path):
    out = tmp_path / "halfway_result.json"
    result = CliRunner().invoke(
        app,
        [
            "test",
            str(CONFIG),
            str(trained / "epoch_1.pth"),
            "--out",
            str(out),
            "--work-dir",
            str(tmp_path / "logs"),
            *cli_options(tiny_options(tiny_synth)),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Log-average miss rate" in result.stdout and "retinanet_r18_fpn_halfway" in result.stdout
    assert "all-pedestrians" in result.stdout  # the settings of the config's metric
    gt = load_ground_truth(tiny_synth / "test.json")
    records = json.loads(out.read_text())
    assert records and {r["image_id"] for r in records} <= set(gt.image_ids.tolist())
    assert all(r["category_id"] == 1 and len(r["bbox"]) == 4 for r in records)
    assert len(load_detections(out, gt)) == len(records)


def test_test_shifts_the_thermal_pictures_when_asked(trained, tiny_synth, tmp_path):
    def detections(*shift):
        out = tmp_path / f"shift{'_'.join(shift) or 'none'}_result.json"
        result = CliRunner().invoke(
            app,
            [
                "test",
                str(CONFIG),
                str(trained / "epoch_1.pth"),
                "--out",
                str(out),
                "--work-dir",
                str(tmp_path / "logs"),
                *shift,
                *cli_options(tiny_options(tiny_synth)),
            ],
        )
        assert result.exit_code == 0, result.output
        return json.loads(out.read_text()), result.output

    unshifted, _ = detections()
    zero, said = detections("--shift-lwir", "0,0")
    assert zero == unshifted and "shifted by 0 px in x and 0 px in y" in said
    moved, said = detections("--shift-lwir", "-6,3")
    assert moved != unshifted and "shifted by -6 px in x and 3 px in y" in said
    bad = CliRunner().invoke(
        app, ["test", str(CONFIG), str(trained / "epoch_1.pth"), "--out", str(tmp_path / "r.json"), "--shift-lwir", "4"]
    )
    assert bad.exit_code == 2 and "is not DX,DY" in bad.output


def test_infer_draws_the_detections_on_the_pair(trained, tiny_synth, tmp_path):
    visible = tiny_synth / "images" / "set09" / "V000" / "visible" / "I00019.jpg"
    lwir = tiny_synth / "images" / "set09" / "V000" / "lwir" / "I00019.jpg"
    figure = tmp_path / "pair.png"
    result = CliRunner().invoke(
        app,
        [
            "infer",
            str(CONFIG),
            str(trained / "epoch_1.pth"),
            str(visible),
            str(lwir),
            "--out",
            str(figure),
            "--score-threshold",
            "0.05",
            *cli_options(tiny_options(tiny_synth)),
        ],
    )
    assert result.exit_code == 0, result.output
    assert figure.stat().st_size > 1000 and "drawn to" in result.output


def _run(*args):
    return subprocess.run([sys.executable, "-m", "kaist_kit", *map(str, args)], capture_output=True, text=True)


def test_bad_input_is_a_one_line_error(trained, tiny_synth, tmp_path):
    missing = _run("train", tmp_path / "nope.py")
    assert missing.returncode == 2 and missing.stderr.strip() == f"error: {tmp_path / 'nope.py'}: no such config file"
    missing = _run("test", CONFIG, tmp_path / "nope.pth", "--out", tmp_path / "r.json")
    assert missing.returncode == 2 and missing.stderr.strip() == f"error: {tmp_path / 'nope.pth'}: no such checkpoint"
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not really a jpeg")
    unreadable = _run("infer", CONFIG, trained / "epoch_1.pth", broken, broken, "--out", tmp_path / "f.png")
    assert unreadable.returncode == 2 and "Traceback" not in unreadable.stderr
    last_line = unreadable.stderr.strip().splitlines()[-1]
    assert last_line == f"error: {broken}: cannot decode the picture (not a JPEG or PNG?)"
    options = _run("train", CONFIG, "--cfg-options", "no-equals-sign")
    assert options.returncode == 2 and "is not KEY=VALUE" in options.stderr


def test_amp_swaps_in_mmengine_s_amp_optimizer_wrapper(tiny_synth):
    from kaist_kit.errors import InputError
    from kaist_kit.models.train import use_amp

    cfg = load_config(CONFIG, tiny_options(tiny_synth))
    use_amp(cfg)
    assert cfg.optim_wrapper.type == "AmpOptimWrapper" and cfg.optim_wrapper.loss_scale == "dynamic"
    assert cfg.optim_wrapper.optimizer.type == "AdamW" and cfg.optim_wrapper.clip_grad.max_norm == 10
    cfg.optim_wrapper.type = "SomeOtherWrapper"
    with pytest.raises(InputError, match="the config's optim_wrapper is SomeOtherWrapper"):
        use_amp(cfg)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message on a machine without a GPU")
def test_amp_without_a_gpu_says_so(tmp_path):
    proc = _run("train", CONFIG, "--amp", "--work-dir", tmp_path / "amp")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("error: --amp needs a CUDA GPU")
    assert not (tmp_path / "amp").exists()


@pytest.mark.skipif(torch.cuda.is_available() and torch.cuda.device_count() < 2, reason="one GPU only")
def test_several_processes_train_with_torchrun(tiny_synth, tmp_path):
    """--gpus 2 on a machine without a GPU: two CPU processes over gloo (a functional check), for two
    epochs: distributed training checks at each step after the first that every parameter had a
    gradient, and halfway fusion's first-stage fusion has none in RetinaNet."""
    work = tmp_path / "ddp"
    proc = _run("train", CONFIG, "--gpus", "2", "--work-dir", work, *cli_options(_options(tiny_synth, epochs=2)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (work / "epoch_2.pth").is_file()
    log = next(work.glob("*/*.log")).read_text()
    assert "Distributed launcher: pytorch" in log and "Distributed training: True" in log


def test_offline_imagenet_weights_give_the_way_out_in_one_line(tiny_synth, tmp_path, monkeypatch):
    import urllib.error

    from kaist_kit.errors import InputError

    def offline(url, *args, **kwargs):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(torch.hub, "download_url_to_file", offline)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    url = "https://download.pytorch.org/models/resnet18-f37072fd.pth"
    pretrained = {"_delete_": True, "type": "Pretrained", "checkpoint": url}
    options = {
        **_options(tiny_synth),
        "model.backbone.visible.init_cfg": pretrained,
        "model.backbone.lwir.init_cfg": pretrained,
    }
    with pytest.raises(InputError) as caught:
        train(CONFIG, tmp_path / "work", cfg_options=options)
    message = str(caught.value)
    assert "\n" not in message and "urlopen" not in message
    assert message.startswith(
        f"cannot download the ImageNet weights {url} ([Errno -3] Temporary failure in name "
        "resolution): without network, put resnet18-f37072fd.pth in torch's cache "
        f"{tmp_path}/torch/hub/checkpoints/ (the config then works as it is), or give a local "
        "copy: --cfg-options model.backbone.visible.init_cfg.checkpoint=resnet18-f37072fd.pth "
        "--cfg-options model.backbone.lwir.init_cfg.checkpoint=resnet18-f37072fd.pth"
    )
