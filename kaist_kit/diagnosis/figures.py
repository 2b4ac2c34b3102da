"""The diagnosis' figures and drawn examples."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..detections import Detections
from ..groundtruth import GroundTruth
from .compute import Diagnosis, View
from .error_types import FP_TYPES, ORACLES


def draw_example(gt: GroundTruth, dets: Detections, example, pictures: tuple[Path, Path], path: Path,
                 view: View) -> Path:
    """The example's frame with the ground truth and the detections of the operating point; a false
    positive in its own colour, a missed pedestrian labelled as such."""
    from ..show import draw_frame

    threshold = view.operating_point.score
    limit = math.inf if threshold is None else threshold
    shown_gt, lists = gt, []
    others = np.ones(len(dets), bool)
    if example.detection is None:
        start, stop = gt.ann_start[example.image], gt.ann_start[example.image + 1]
        k = start + int(np.flatnonzero(gt.ann_ids[start:stop] == example.annotation_id)[0])
        labels = list(gt.labels)
        labels[k] = f"MISSED ({example.height:.0f} px)"
        shown_gt = dataclasses.replace(gt, labels=labels)
    else:
        one = [example.detection]
        lists.append((f"{example.error} false positive",
                      Detections(dets.image[one], dets.boxes[one], dets.scores[one])))
        others[example.detection] = False
        limit = min(limit, example.score)
    lists.append((f"other detections scoring {limit:.2f} or more",
                  Detections(dets.image[others], dets.boxes[others], dets.scores[others])))
    draw_frame(shown_gt, example.image, pictures[0], pictures[1], path, lists, score_threshold=limit)
    return path


def plot_curves(diagnosis: Diagnosis, path: Path) -> Path:
    """MR-FPPI per setting, a curve per split."""
    from ..plots import draw_mr_fppi, new_figure, save_figure

    n = len(diagnosis.params.settings)
    cols = min(4, n)
    rows = math.ceil(n / cols)
    fig, axes = new_figure(rows, cols)
    for k, setting in enumerate(diagnosis.params.settings):
        results = [dataclasses.replace(diagnosis.view(setting, s).result, method=s) for s in diagnosis.params.splits]
        draw_mr_fppi(axes[k // cols][k % cols], results, f"{setting} ({diagnosis.params.protocol})")
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].set_axis_off()
    save_figure(fig, path)
    return path


def _grouped_bars(ax, groups: Sequence[str], series: dict[str, Sequence[float]], horizontal: bool = False) -> None:
    width = 0.8 / max(len(series), 1)
    positions = np.arange(len(groups))
    for k, (label, values) in enumerate(series.items()):
        offset = positions - 0.4 + width * (k + 0.5)
        if horizontal:
            ax.barh(offset, values, height=width, label=label)
        else:
            ax.bar(offset, values, width=width, label=label)
    if horizontal:
        ax.set_yticks(positions, groups)
        ax.invert_yaxis()
    else:
        ax.set_xticks(positions, groups, rotation=0)
    ax.legend(fontsize=8)


def plot_false_positives(diagnosis: Diagnosis, path: Path) -> Path:
    from ..plots import new_figure, save_figure

    fig, axes = new_figure(1, 2)
    main = [diagnosis.view(diagnosis.params.main_setting, s) for s in diagnosis.params.splits]
    for ax, where, title in ((axes[0][0], "operating_point", "at the operating point"),
                             (axes[0][1], "curve", "over the whole curve")):
        series = {v.split: [v.false_positives[where][t] / max(v.n_images, 1) for t in FP_TYPES] for v in main}
        _grouped_bars(ax, FP_TYPES, series)
        ax.set_ylabel("false positives per image")
        ax.set_title(f"{diagnosis.params.main_setting}: {title}", fontsize=10)
    save_figure(fig, path)
    return path


def plot_misses(diagnosis: Diagnosis, path: Path) -> Path:
    from ..plots import new_figure, save_figure

    fig, axes = new_figure(1, 3, width=5.2)
    setting = diagnosis.params.main_setting
    main = [diagnosis.view(setting, s) for s in diagnosis.params.splits]
    panels = [
        (axes[0][0], "height (fine)", {v.split: v.misses for v in main}, f"{setting}: by height (px)"),
        (axes[0][1], "occlusion", {v.split: v.misses for v in main}, f"{setting}: by occlusion"),
        (axes[0][2], "position", {s: diagnosis.persons[s].misses for s in diagnosis.params.splits},
         "every person: by position"),
    ]
    for ax, family, by_split, title in panels:
        first = next(iter(by_split.values()))[family]
        names = [name for name in first if any(m[family][name].pedestrians for m in by_split.values())]
        series = {split: [100 * _rate(m[family][name]) for name in names] for split, m in by_split.items()}
        _grouped_bars(ax, names, series)
        ax.set_ylabel("miss rate at the operating point (%)")
        ax.set_title(title, fontsize=10)
        ax.tick_params(axis="x", labelsize=7)
    save_figure(fig, path)
    return path


def _rate(count) -> float:
    return count.missed_at_operating_point / count.pedestrians if count.pedestrians else 0.0


def plot_oracles(diagnosis: Diagnosis, path: Path) -> Path:
    from ..plots import new_figure, save_figure

    fig, axes = new_figure(1, 1, width=7.0, height=4.2)
    ax = axes[0][0]
    main = [diagnosis.view(diagnosis.params.main_setting, s) for s in diagnosis.params.splits]
    series = {v.split: [100 * (v.result.lamr - v.oracles[name]) for name in ORACLES] for v in main}
    _grouped_bars(ax, list(ORACLES), series, horizontal=True)
    ax.set_xlabel("LAMR gained by the fix (percentage points)")
    ax.set_title(f"{diagnosis.params.main_setting}: oracle impact ({diagnosis.params.protocol})", fontsize=10)
    save_figure(fig, path)
    return path
