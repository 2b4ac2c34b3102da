"""The KAIST log-average miss rate as an mmengine metric."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from mmdet.registry import METRICS
from mmengine.evaluator import BaseMetric
from mmengine.logging import MMLogger

from ..detections import read_coco_results
from ..evaluate import evaluate
from ..findings import inspect, inspect_scores
from ..groundtruth import load_ground_truth
from ..results import coco_results_text, write_coco_results
from ..settings import SPLITS, get_protocol, get_setting


def prediction_arrays(predictions: Sequence[tuple[int, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, ...]:
    """(image ids, boxes x y w h to two decimals, scores) from (image id, boxes x1 y1 x2 y2, scores), by
    image id and then by descending score, as the leaderboard's evaluator needs them."""
    ids, boxes, scores = [], [], []
    for image_id, corners, found in sorted(predictions, key=lambda p: p[0]):
        for k in np.argsort(-found, kind="stable"):
            x1, y1, x2, y2 = (float(v) for v in corners[k])
            ids.append(int(image_id))
            boxes.append([round(x1, 2), round(y1, 2), round(x2 - x1, 2), round(y2 - y1, 2)])
            scores.append(float(found[k]))
    return np.array(ids, np.int64), np.array(boxes, np.float64).reshape(-1, 4), np.array(scores, np.float64)


@METRICS.register_module()
class KaistMetric(BaseMetric):
    """Log-average miss rate per setting and split, computed by the kit's evaluator.

    Metrics are named ``kaist/<setting>_<split>`` (e.g. ``kaist/reasonable_all``), as fractions:
    lower is better, so keep the best checkpoint with
    ``default_hooks.checkpoint = dict(save_best='kaist/reasonable_all', rule='less')``.

    ``ann_file`` is the ground truth; by default the evaluated `KaistDataset`'s own annotation
    file. ``setting`` is one setting name or a list (see docs/evaluation.md), ``splits`` a subset
    of all / day / night, ``protocol`` ``'leaderboard'`` or ``'matlab'``. With ``results_file``
    the predictions are also written there as COCO result JSON, the ground truth's image ids
    included, for `kaist-kit eval` and `kaist-kit submit`.
    """

    default_prefix = "kaist"

    def __init__(self, ann_file: str | None = None, setting: str | Sequence[str] = "reasonable",
                 splits: Sequence[str] = SPLITS, protocol: str = "leaderboard", results_file: str | None = None,
                 collect_device: str = "cpu", prefix: str | None = None):
        super().__init__(collect_device=collect_device, prefix=prefix)
        self.ann_file = ann_file
        self.settings = [setting] if isinstance(setting, str) else list(setting)
        for name in self.settings:
            get_setting(name)
        self.splits = list(splits)
        self.protocol = get_protocol(protocol).name
        self.results_file = results_file

    def process(self, data_batch, data_samples: Sequence[dict]) -> None:
        for sample in data_samples:
            found = sample["pred_instances"]
            self.results.append((int(sample["img_id"]), found["bboxes"].detach().cpu().numpy(),
                                 found["scores"].detach().cpu().numpy()))

    def ground_truth_path(self) -> str:
        path = self.ann_file or (self.dataset_meta or {}).get("ann_file")
        if not path:
            raise ValueError("KaistMetric needs ann_file, or a KaistDataset to evaluate")
        return str(path)

    def compute_metrics(self, results: list) -> dict[str, float]:
        arrays = prediction_arrays(results)
        if self.results_file:
            text = write_coco_results(self.results_file, *arrays)
        else:
            text = coco_results_text(*arrays)
        gt = load_ground_truth(self.ground_truth_path())
        logger = MMLogger.get_current_instance()
        # Scored as written, so that the numbers are those `kaist-kit eval` gives the file.
        dets = read_coco_results(text.decode(), str(self.results_file or "predictions"), gt)
        scores = evaluate(gt, dets, self.settings, self.splits, [self.protocol])
        for finding in inspect(dets, gt, self.settings, self.splits, [self.protocol]) + inspect_scores(scores, dets):
            logger.warning(f"{finding.level}: {finding.line()}")
        metrics = {f"{r.setting}_{r.split}": r.lamr for r in scores}
        logger.info(f"LAMR ({self.protocol}) on {Path(gt.path).name}: " + ", ".join(
            f"{r.setting} {r.split} {100 * r.lamr:.2f}% ({r.n_gt} pedestrians)" for r in scores))
        return metrics
