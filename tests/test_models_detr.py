"""Two-stream DINO and Deformable DETR: each synthetic config trains a couple of iterations on generated
frames, then `kaist-kit test` and `infer` run its checkpoint; the learnt fusion's starting point."""

import json
import re
import shutil

import pytest

pytest.importorskip("torch", reason="the detector tests need the mmdet extra (torch)")
pytest.importorskip("mmdet", reason="the detector tests need the mmdet extra (mmdetection)")

import torch  # noqa: E402
from models_helpers import SYNTH_CONFIGS, cli_options, tiny_options  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import kaist_kit.models  # noqa: E402,F401
from kaist_kit.cli import app  # noqa: E402
from kaist_kit.tools.config_files import load_config  # noqa: E402

DETR_SYNTH = [p for p in SYNTH_CONFIGS if load_config(p).model.type in ("DINO", "DeformableDETR")]
TESTED = 4  # test frames scored per config


def _invoke(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result


def test_every_detr_family_and_model_has_a_synthetic_config():
    names = {p.stem for p in DETR_SYNTH}
    assert names == {
        f"{family}_r18_{model}_synth"
        for family in ("dino", "deformable-detr")
        for model in ("halfway-fusion", "gated-fusion", "rgb", "thermal")
    }


@pytest.mark.parametrize("config", DETR_SYNTH, ids=lambda p: p.stem)
def test_each_synthetic_detr_trains_tests_and_infers(config, tiny_synth, tmp_path):
    """One epoch of the tiny set (its frames with a pedestrian, batch 2: a few iterations), then `test` on
    4 test frames, each given the config's 100 best queries, and `infer` on a pair."""
    options = {
        **tiny_options(tiny_synth, batch_size=2),
        "train_cfg.max_epochs": 1,
        "param_scheduler.1.T_max": 1,
        "param_scheduler.1.end": 1,
        "test_dataloader.dataset.indices": TESTED,
        "default_hooks.checkpoint.save_optimizer": False,
    }
    work = tmp_path / "work"
    try:
        _invoke("train", config, "--work-dir", work, *cli_options(options))
        log = next(work.glob("*/*.log")).read_text()
        iterations = re.findall(r"Epoch\(train\) \[1\]\[(\d+)/(\d+)\]", log)
        assert len(iterations) >= 2 and iterations[-1][0] == iterations[-1][1] and "loss_cls" in log
        results = tmp_path / "detr_result.json"
        shown = _invoke(
            "test",
            config,
            work / "epoch_1.pth",
            "--out",
            results,
            "--work-dir",
            tmp_path / "logs",
            *cli_options(options),
        )
        records = json.loads(results.read_text())
        per_image = {}
        for record in records:
            per_image[record["image_id"]] = per_image.get(record["image_id"], 0) + 1
        max_per_img = load_config(config).model.test_cfg.max_per_img
        assert len(per_image) == TESTED and set(per_image.values()) == {max_per_img}
        assert "Log-average miss rate" in shown.stdout
        frame = tiny_synth / "images" / "set09" / "V000"
        figure = tmp_path / "pair.png"
        drawn = _invoke(
            "infer",
            config,
            work / "epoch_1.pth",
            frame / "visible" / "I00019.jpg",
            frame / "lwir" / "I00019.jpg",
            "--out",
            figure,
            "--score-threshold",
            "0",
            *cli_options(tiny_options(tiny_synth)),
        )
        assert figure.stat().st_size > 1000 and f"(of {max_per_img}) drawn to" in drawn.output
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_gate_starts_as_the_mean_of_the_streams_and_learns_per_pixel():
    from kaist_kit.models import GatedFusion

    torch.manual_seed(0)
    fusion = GatedFusion(channels=16)
    visible, lwir = torch.rand(2, 16, 8, 10), torch.rand(2, 16, 8, 10)
    assert torch.allclose(fusion(visible, lwir), (visible + lwir) / 2)
    # Once the gate has learnt, it weighs the modalities differently at different places of a frame.
    torch.nn.init.normal_(fusion.gate[-1].weight)
    gate = torch.sigmoid(fusion.gate(torch.cat([visible, lwir], dim=1)))
    assert gate.shape == (2, 1, 8, 10) and gate.std() > 0
    assert torch.allclose(fusion(visible, lwir), gate * visible + (1 - gate) * lwir, atol=1e-6)
