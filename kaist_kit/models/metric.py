"""The KAIST log-average miss rate as an mmengine metric."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from mmdet.registry import METRICS
from mmengine.evaluator import BaseMetric
from mmengine.logging import MMLogger

from ..data.frames import find_frame
from ..data.results import read_coco
from ..data.writers import coco_results_text, write_coco_results
from ..datasets.kaist_truth import load_ground_truth
from ..errors import InputError
from ..metrics.evaluate import evaluate
from ..metrics.settings import SPLITS, get_protocol, get_setting
from ..metrics.spec import AP, AP50, AP75, COCO, LAMR, MISS_RATE, names_of
from ..scoring.findings import inspect, inspect_scores


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
    ``default_hooks.checkpoint = dict(save_best='kaist/reasonable_all', rule='less')``. ``metrics``
    adds any other metric the KAIST evaluator computes (``'ap50'``, ``'ar'``, ..., one registered with
    `kaist_kit.metrics.spec.register`), named ``kaist/<setting>_<split>_<metric>``.

    It scores any mmdetection dataset whose frames it can find in the ground truth (docs/mmdetection.md):
    by the KAIST frame a sample's ``img_path`` names (``images/set06/V000/visible/I00019.jpg``,
    ``set06_V000_I00019_visible.png``, ...), else by its ``img_id`` as the ground truth's image id. A
    frame the ground truth does not have is an error, never a silently wrong miss rate. Where the
    dataset has several classes, the detections of its ``person`` class are scored.

    ``ann_file`` is the ground truth; by default the evaluated `KaistDataset`'s own annotation
    file (another dataset class needs it given). ``setting`` is one setting name or a list (see
    docs/evaluation.md), ``splits`` a subset of all / day / night, ``protocol`` ``'leaderboard'`` or
    ``'matlab'``. With ``results_file``
    the predictions are also written there as COCO result JSON, the ground truth's image ids
    included, for `kaist-kit eval` and `kaist-kit submit`.
    """

    default_prefix = "kaist"

    def __init__(
        self,
        ann_file: str | None = None,
        setting: str | Sequence[str] = "reasonable",
        splits: Sequence[str] = SPLITS,
        protocol: str = "leaderboard",
        results_file: str | None = None,
        metrics: Sequence[str] = (LAMR.name,),
        collect_device: str = "cpu",
        prefix: str | None = None,
    ):
        super().__init__(collect_device=collect_device, prefix=prefix)
        unknown = [name for name in metrics if name not in names_of(MISS_RATE)]
        if unknown:
            raise ValueError(f"unknown metric {unknown[0]!r}; choose from {', '.join(names_of(MISS_RATE))}")
        self.metrics = list(dict.fromkeys([LAMR.name, *metrics]))
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
            self.results.append(
                (
                    int(sample["img_id"]),
                    find_frame(sample["img_path"]) if sample.get("img_path") else None,
                    found["bboxes"].detach().cpu().numpy(),
                    found["scores"].detach().cpu().numpy(),
                    found["labels"].detach().cpu().numpy() if "labels" in found else None,
                )
            )

    def ground_truth_path(self) -> str:
        path = self.ann_file or (self.dataset_meta or {}).get("ann_file")
        if not path:
            raise InputError(
                "KaistMetric needs ann_file=, the KAIST ground truth to score against, when the dataset is not a "
                "KaistDataset (docs/mmdetection.md)"
            )
        return str(path)

    def person_label(self) -> int | None:
        """The label of pedestrians among the dataset's classes; None when every detection is one."""
        classes = list((self.dataset_meta or {}).get("classes") or ())
        if len(classes) <= 1:
            return None
        if "person" not in classes:
            raise InputError(
                f"KaistMetric scores pedestrians, and the dataset's classes have no 'person': {classes[:5]}"
            )
        return classes.index("person")

    def on_ground_truth(self, results: list, gt) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """(ground-truth image id, boxes, scores) of each sample: found by the frame its picture names,
        else by its image id; a sample of no frame of the ground truth is an `InputError`."""
        person = self.person_label()
        found = []
        for image_id, frame, corners, scores, labels in results:
            if frame is not None:
                index = gt.index_of_name.get(frame)
                what = f"frame {frame}"
            else:
                index = gt.index_of_id.get(image_id)
                what = f"image id {image_id} (its picture's path names no KAIST frame)"
            if index is None:
                raise InputError(
                    f"the evaluated dataset's {what} is not in this ground truth: is ann_file the ground truth of "
                    "the dataset evaluated?",
                    gt.path,
                )
            if person is not None and labels is not None:
                corners, scores = corners[labels == person], scores[labels == person]
            found.append((int(gt.image_ids[index]), corners, scores))
        return found

    def compute_metrics(self, results: list) -> dict[str, float]:
        gt = load_ground_truth(self.ground_truth_path())
        arrays = prediction_arrays(self.on_ground_truth(results, gt))
        if self.results_file:
            text = write_coco_results(self.results_file, *arrays)
        else:
            text = coco_results_text(*arrays)
        logger = MMLogger.get_current_instance()
        # Scored as written, so that the numbers are those `kaist-kit eval` gives the file.
        dets = read_coco(text.decode(), str(self.results_file or "predictions"), gt)
        scores = evaluate(gt, dets, self.settings, self.splits, [self.protocol], metrics=self.metrics)
        for finding in inspect(dets, gt, self.settings, self.splits, [self.protocol]) + inspect_scores(scores, dets):
            logger.warning(f"{finding.level}: {finding.line()}")
        metrics = {f"{r.setting}_{r.split}": r.lamr for r in scores}
        for name in self.metrics[1:]:
            metrics.update({f"{r.setting}_{r.split}_{name}": r.value(name) for r in scores})
        logger.info(
            f"LAMR ({self.protocol}) on {Path(gt.path).name}: "
            + ", ".join(f"{r.setting} {r.split} {100 * r.lamr:.2f}% ({r.n_gt} pedestrians)" for r in scores)
        )
        return metrics


@METRICS.register_module()
class BenchmarkMetric(BaseMetric):
    """COCO's AP of another benchmark (FLIR-aligned, LLVIP, M3FD, ...), per class and their mean, computed
    by the kit's `coco_evaluate` (pycocotools' numbers exactly) against the evaluated dataset's annotation
    file, read as the benchmark's ground truth (`kaist_kit.data.groundtruth`).

    Metrics are named ``<benchmark>/<metric>`` for the mean over the classes (``flir-aligned/ap50``) and
    ``<benchmark>/<class>_<metric>`` per class, as fractions: higher is better. ``metrics`` are COCO's
    summaries (``ap``, ``ap50``, ``ap75``, ...: those `kaist_kit.metrics.spec` reads off COCO's evaluation). With
    ``results_file`` the predictions are also written there as COCO result JSON with the ground truth's
    image ids (strings where its ids are) and class ids, for `kaist-kit eval`; each image's
    detections best first.
    """

    def __init__(
        self,
        benchmark: str | None = None,
        ann_file: str | None = None,
        metrics: Sequence[str] = (AP.name, AP50.name, AP75.name),
        results_file: str | None = None,
        collect_device: str = "cpu",
        prefix: str | None = None,
    ):
        from ..datasets import get_benchmark

        self.benchmark = get_benchmark(benchmark) if benchmark else None
        super().__init__(collect_device=collect_device, prefix=prefix)
        self.ann_file = ann_file
        unknown = [m for m in metrics if m not in names_of(COCO)]  # the registry now, with metrics added since
        if unknown:
            raise ValueError(f"unknown COCO metric {unknown[0]!r}; choose from {', '.join(names_of(COCO))}")
        self.metrics = list(metrics)
        self.results_file = results_file
        self.table = None  # the last scores as a table (`kaist-kit test` prints it)

    @property
    def bench(self):
        from ..datasets import get_benchmark

        return self.benchmark or get_benchmark((self.dataset_meta or {}).get("benchmark") or "kaist")

    def process(self, data_batch, data_samples: Sequence[dict]) -> None:
        for sample in data_samples:
            found = sample["pred_instances"]
            self.results.append(
                (
                    int(sample["img_id"]),
                    found["bboxes"].detach().cpu().numpy(),
                    found["scores"].detach().cpu().numpy(),
                    found["labels"].detach().cpu().numpy(),
                )
            )

    def ground_truth_path(self) -> str:
        path = self.ann_file or (self.dataset_meta or {}).get("ann_file")
        if not path:
            raise ValueError("BenchmarkMetric needs ann_file, or a KaistDataset to evaluate")
        return str(path)

    def records(self, results: list, gt) -> list[dict]:
        """COCO result records: each image's detections best first, the image's id as the file writes it
        (the dataset's ``img_id`` of another benchmark is its position in the file)."""
        categories = [c.id for c in self.bench.categories]
        records = []
        for position, corners, scores, labels in sorted(results, key=lambda r: r[0]):
            image_id = gt.image_ids[position]
            image_id = image_id.item() if isinstance(image_id, np.generic) else image_id  # a JSON number or text
            for k in np.argsort(-scores, kind="stable"):
                x1, y1, x2, y2 = (float(v) for v in corners[k])
                records.append(
                    {
                        "image_id": image_id,
                        "category_id": categories[int(labels[k])],
                        "bbox": [round(x1, 2), round(y1, 2), round(x2 - x1, 2), round(y2 - y1, 2)],
                        "score": float(scores[k]),
                    }
                )
        return records

    def compute_metrics(self, results: list) -> dict[str, float]:
        import json

        from ..data.groundtruth import read_ground_truth
        from ..data.results import detections_from_coco
        from ..io.write import write_text_atomic
        from ..metrics.cocoeval import coco_evaluate
        from ..output.tables import Table

        bench = self.bench
        gt = read_ground_truth(self.ground_truth_path(), bench)
        records = self.records(results, gt)
        if self.results_file:
            write_text_atomic(self.results_file, json.dumps(records, separators=(",", ":")) + "\n")
        evaluation = coco_evaluate(gt, detections_from_coco(records, gt, self.results_file))
        metrics = {f"{bench.name}/{m}": evaluation.summary(m) for m in self.metrics}
        rows = [["mean", *(_percent(metrics[f"{bench.name}/{m}"]) for m in self.metrics)]]
        for k, info in enumerate(gt.classes):
            values = evaluation.summaries(self.metrics, k)
            metrics.update({f"{bench.name}/{info.name}_{m}": v for m, v in values.items()})
            rows.append([info.name, *(_percent(values[m]) for m in self.metrics)])
        self.table = Table(
            f"COCO AP (%, higher is better) of {bench.title}, {Path(gt.path).name}: {gt.n_images:,} images",
            ["class", *self.metrics],
            rows,
        )
        MMLogger.get_current_instance().info(self.table.to_text())
        return metrics


def _percent(value: float) -> str:
    return "-" if np.isnan(value) else f"{100 * value:.2f}"
