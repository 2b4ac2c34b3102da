"""Running a trained detector: on a test set (`kaist-kit test`) or on one frame pair (`kaist-kit infer`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..datasets import DEFAULT_BENCHMARK, get_benchmark
from ..errors import InputError
from ..io.read import check_readable
from ..tools.config_files import default_work_dir, load_config


@dataclass
class TestRun:
    results: Path  # COCO result JSON with the test set's image ids
    ground_truth: Path  # the annotation file the metric scored against
    settings: list[str]  # KAIST: the metric's settings and protocol
    protocol: str
    metrics: dict
    table: object = None  # another benchmark: its scores per class (a `kaist_kit.output.tables.Table`)


def _check_checkpoint(checkpoint: str | os.PathLike) -> Path:
    path = Path(checkpoint)
    if not path.exists():
        raise InputError("no such checkpoint", path)
    return check_readable(path)  # a regular file within the limits, and one of the command's inputs


def shift_lwir_at_test(cfg, shift: tuple[int, int]) -> None:
    """Insert `ShiftLwir` right after the test pipeline's `LoadKaistPair`."""
    pipeline = cfg.test_dataloader.dataset.pipeline
    loads = [k for k, step in enumerate(pipeline) if step.get("type") == "LoadKaistPair"]
    if not loads:
        raise InputError("--shift-lwir needs LoadKaistPair in the config's test pipeline")
    pipeline.insert(loads[0] + 1, dict(type="ShiftLwir", shift=tuple(int(v) for v in shift)))


def use_default_test_annotations(cfg, echo: Callable[[str], None] | None = None) -> Path | None:
    """When the test set's annotation file is the leaderboard's ground truth and is not where the config
    says, use the kit's own copy instead: $KAIST_KIT_GT, else the cache, else downloaded there on
    first use, as `kaist-kit eval` finds it (`kaist_kit.datasets.kaist_truth.default_ground_truth`). Returns
    the file used instead, or None when the config's own is used."""
    from ..datasets.kaist_truth import GT_FILENAME, default_ground_truth

    dataset = cfg.test_dataloader.dataset
    while "ann_file" not in dataset and dataset.get("dataset") is not None:  # dataset wrappers
        dataset = dataset.dataset
    ann_file = dataset.get("ann_file")
    if not ann_file or Path(ann_file).name != GT_FILENAME:
        return None
    root = dataset.get("data_root") or ""
    if os.path.isfile(ann_file if os.path.isabs(ann_file) else os.path.join(root, ann_file)):
        return None
    found = default_ground_truth(echo=echo)
    dataset.ann_file = str(found.resolve())
    return found


def test(
    config: str | os.PathLike,
    checkpoint: str | os.PathLike,
    out: str | os.PathLike,
    work_dir: str | os.PathLike | None = None,
    cfg_options: Sequence[str] | dict | None = None,
    shift_lwir: tuple[int, int] | None = None,
    echo: Callable[[str], None] | None = None,
) -> TestRun:
    """Run ``checkpoint`` on the config's test set; write its detections to ``out`` (COCO result
    JSON, replaced atomically) and score them with the config's `KaistMetric` or `BenchmarkMetric` (one
    is added when the test evaluator has neither). ``shift_lwir=(dx, dy)`` moves every thermal picture that many
    pixels against the visible one first (`ShiftLwir`: the misalignment test). A missing copy of the
    leaderboard's ground truth is found as `kaist-kit eval` finds it (`use_default_test_annotations`);
    ``echo`` hears of a download."""
    from mmengine.runner import Runner

    from .checkpoints import read_checkpoint, require_fit, weights_only_checkpoints
    from .config_text import format_text_once

    checkpoint = _check_checkpoint(checkpoint)
    cfg = format_text_once(load_config(config, cfg_options))
    cfg.load_from = str(checkpoint)
    cfg.resume = False
    cfg.launcher = "none"
    cfg.work_dir = str(work_dir or default_work_dir(config))
    use_default_test_annotations(cfg, echo)
    if shift_lwir is not None:
        shift_lwir_at_test(cfg, shift_lwir)
    evaluators = cfg.test_evaluator if isinstance(cfg.test_evaluator, list) else [cfg.test_evaluator]
    evaluators = [e for e in evaluators if e]
    ours = [e for e in evaluators if e.get("type") in KIT_METRICS]
    if not ours:
        dataset = cfg.test_dataloader.dataset
        bench = get_benchmark(dataset.get("benchmark") or DEFAULT_BENCHMARK.name)
        ours = [dict(type="KaistMetric" if bench.kaist_model else "BenchmarkMetric")]
        evaluators.append(ours[0])
    ours[0]["results_file"] = str(out)
    cfg.test_evaluator = evaluators
    runner = Runner.from_cfg(cfg)
    # A checkpoint of another model would be scored as its random weights: refused before the run.
    require_fit(getattr(runner.model, "module", runner.model), read_checkpoint(checkpoint, "cpu"), checkpoint)
    with weights_only_checkpoints():
        metrics = runner.test()
    metric = next(m for m in runner.test_loop.evaluator.metrics if type(m).__name__ in KIT_METRICS)
    if type(metric).__name__ == "BenchmarkMetric":
        return TestRun(Path(out), Path(metric.ground_truth_path()), [], "coco", metrics, metric.table)
    return TestRun(Path(out), Path(metric.ground_truth_path()), metric.settings, metric.protocol, metrics)


# The kit's metrics, one of which `test` scores with and writes the results of.
KIT_METRICS = ("KaistMetric", "BenchmarkMetric")


@dataclass
class Found:
    boxes: np.ndarray  # (N, 4) x, y, w, h in the pictures' pixels
    scores: np.ndarray  # (N,), descending


def infer(
    config: str | os.PathLike,
    checkpoint: str | os.PathLike,
    visible: str | os.PathLike,
    lwir: str | os.PathLike,
    out: str | os.PathLike | None = None,
    score_threshold: float = 0.3,
    cfg_options: Sequence[str] | dict | None = None,
    device: str | None = None,
) -> Found:
    """Detect pedestrians on one visible/lwir pair with the config's test pipeline; with ``out``,
    draw the detections scoring at least ``score_threshold`` on both pictures."""
    import torch
    from mmdet.registry import MODELS
    from mmengine.dataset import Compose
    from mmengine.registry import init_default_scope
    from mmengine.utils import import_modules_from_strings

    from ..output.plots import save_figure
    from ..output.show import pair_figure
    from .checkpoints import read_checkpoint, require_fit, state_dict_of
    from .data import frame_name, read_picture

    checkpoint = _check_checkpoint(checkpoint)
    for picture in (visible, lwir):
        read_picture(str(picture))  # a missing or undecodable picture is a one-line error
    cfg = load_config(config, cfg_options)
    if cfg.get("custom_imports"):
        import_modules_from_strings(**cfg.custom_imports)
    init_default_scope(cfg.get("default_scope", "mmdet"))
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")

    model = MODELS.build(cfg.model)
    loaded = read_checkpoint(checkpoint, "cpu")
    require_fit(model, loaded, checkpoint)  # else the drawing would show a random model's boxes
    model.load_state_dict(state_dict_of(loaded), strict=True)
    model.to(device).eval()
    steps = [step for step in cfg.test_dataloader.dataset.pipeline if step["type"] != "LoadAnnotations"]
    data = Compose(steps)(dict(img_path=str(visible), lwir_path=str(lwir), img_id=0))
    with torch.no_grad():
        sample = model.test_step(dict(inputs=[data["inputs"]], data_samples=[data["data_samples"]]))[0]
    corners = sample.pred_instances.bboxes.cpu().numpy().astype(np.float64)
    scores = sample.pred_instances.scores.cpu().numpy().astype(np.float64)
    order = np.argsort(-scores, kind="stable")
    boxes = (
        np.column_stack([corners[:, :2], corners[:, 2:] - corners[:, :2]])[order] if len(order) else np.zeros((0, 4))
    )
    found = Found(boxes, scores[order])
    if out is not None:
        figure = pair_figure(
            visible,
            lwir,
            frame_name(visible),
            detections=[(Path(str(config)).stem, found.boxes, found.scores)],
            score_threshold=score_threshold,
        )
        save_figure(figure, out, layout=False)
    return found
