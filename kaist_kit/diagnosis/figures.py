"""The diagnosis' figures and drawn examples."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..data.detections import Detections
from ..data.groundtruth import GroundTruth
from .compute import Diagnosis, View
from .error_types import FP_TYPES, ORACLES


def draw_example(
    gt: GroundTruth, dets: Detections, example, pictures: tuple[Path, Path], path: Path, view: View
) -> Path:
    """The example's frame with the ground truth and the detections of the operating point; a false
    positive in its own colour, a missed pedestrian labelled as such."""
    from ..output.show import draw_frame

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
        lists.append(
            (f"{example.error} false positive", Detections(dets.image[one], dets.boxes[one], dets.scores[one]))
        )
        others[example.detection] = False
        limit = min(limit, example.score)
    lists.append(
        (
            f"other detections scoring {limit:.2f} or more",
            Detections(dets.image[others], dets.boxes[others], dets.scores[others]),
        )
    )
    draw_frame(shown_gt, example.image, pictures[0], pictures[1], path, lists, score_threshold=limit)
    return path


def plot_curves(diagnosis: Diagnosis, path: Path) -> Path:
    """MR-FPPI per setting, a curve per split."""
    from ..output.plots import draw_mr_fppi, new_figure, save_figure, series_colours

    p = diagnosis.params
    n = len(p.settings)
    cols = min(4, n)
    rows = math.ceil(n / cols)
    fig, axes = new_figure(rows, cols, width=5.6)
    for k, setting in enumerate(p.settings):
        results = [dataclasses.replace(diagnosis.view(setting, s).result, method=s) for s in p.splits]
        draw_mr_fppi(axes[k // cols][k % cols], results, f"{setting} ({p.protocol})", series_colours(p.splits))
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].set_axis_off()
    save_figure(fig, path)
    return path


def _grouped_bars(
    ax,
    groups: Sequence[str],
    series: dict[str, Sequence[float | None]],
    colours: dict[str, str],
    horizontal: bool = False,
) -> None:
    """A bar per group and series, a series (a split) in its colour. A value of None, where the
    series has nothing to measure, is a cross on the axis instead of a bar, which would read 0."""
    from matplotlib.lines import Line2D

    from ..output.plots import legend_outside

    width = 0.8 / max(len(series), 1)
    positions = np.arange(len(groups))
    handles = []
    for k, (label, values) in enumerate(series.items()):
        offset = positions - 0.4 + width * (k + 0.5)
        heights = [0.0 if v is None else v for v in values]
        # An edge in the bar's colour keeps a bar of height 0 visible as a line.
        edges = [0.0 if v is None else 0.8 for v in values]
        style = dict(color=colours[label], edgecolor=colours[label], linewidth=edges, label=label)
        handles.append(
            ax.barh(offset, heights, height=width, **style) if horizontal else ax.bar(offset, heights, width, **style)
        )
        empty = [o for o, v in zip(offset, values) if v is None]
        if empty:
            xy = ([0.0] * len(empty), empty) if horizontal else (empty, [0.0] * len(empty))
            ax.plot(*xy, linestyle="none", marker="x", markersize=6, color=colours[label], clip_on=False, zorder=3)
    if any(v is None for values in series.values() for v in values):
        handles.append(Line2D([], [], linestyle="none", marker="x", color="0.3", label="no pedestrians"))
    # The value axis set off from its 0, so that bars of 0 and crosses there stay in sight.
    if horizontal:
        ax.set_yticks(positions, groups)
        ax.invert_yaxis()
        ax.spines["left"].set_position(("outward", 4))
    else:
        ax.set_xticks(positions, groups, rotation=0)
        ax.spines["bottom"].set_position(("outward", 4))
    legend_outside(ax, handles=handles)


def plot_false_positives(diagnosis: Diagnosis, path: Path) -> Path:
    from ..output.plots import new_figure, save_figure, series_colours

    fig, axes = new_figure(1, 2, width=5.4)
    main = [diagnosis.view(diagnosis.params.main_setting, s) for s in diagnosis.params.splits]
    for ax, where, title in (
        (axes[0][0], "operating_point", "at the operating point"),
        (axes[0][1], "curve", "over the whole curve"),
    ):
        series = {v.split: [v.false_positives[where][t] / max(v.n_images, 1) for t in FP_TYPES] for v in main}
        _grouped_bars(ax, FP_TYPES, series, series_colours(diagnosis.params.splits))
        ax.set_ylabel("false positives per image")
        ax.set_title(f"{diagnosis.params.main_setting}: {title}", fontsize=10)
    save_figure(fig, path)
    return path


def plot_misses(diagnosis: Diagnosis, path: Path) -> Path:
    """Miss rates at the operating point by height, occlusion and position; a bin without pedestrians
    in a split is marked as such, not drawn as a miss rate of 0."""
    from ..output.plots import new_figure, save_figure, series_colours

    fig, axes = new_figure(1, 3, width=6.0)
    setting = diagnosis.params.main_setting
    main = [diagnosis.view(setting, s) for s in diagnosis.params.splits]
    panels = [
        (axes[0][0], "height (fine)", {v.split: v.misses for v in main}, f"{setting}: by height (px)"),
        (axes[0][1], "occlusion", {v.split: v.misses for v in main}, f"{setting}: by occlusion"),
        (
            axes[0][2],
            "position",
            {s: diagnosis.persons[s].misses for s in diagnosis.params.splits},
            "every person: by position",
        ),
    ]
    for ax, family, by_split, title in panels:
        first = next(iter(by_split.values()))[family]
        names = [name for name in first if any(m[family][name].pedestrians for m in by_split.values())]
        series = {split: [_rate(m[family][name]) for name in names] for split, m in by_split.items()}
        _grouped_bars(ax, names, series, series_colours(diagnosis.params.splits))
        ax.set_ylabel("miss rate at the operating point (%)")
        ax.set_title(title, fontsize=10)
        ax.tick_params(axis="x", labelsize=7)
    save_figure(fig, path)
    return path


def _rate(count) -> float | None:
    """The miss rate in percent; None without pedestrians."""
    return 100 * count.missed_at_operating_point / count.pedestrians if count.pedestrians else None


def plot_oracles(diagnosis: Diagnosis, path: Path) -> Path:
    from ..output.plots import new_figure, save_figure, series_colours

    fig, axes = new_figure(1, 1, width=8.0, height=4.2)
    ax = axes[0][0]
    main = [diagnosis.view(diagnosis.params.main_setting, s) for s in diagnosis.params.splits]
    series = {v.split: [100 * (v.result.lamr - v.oracles[name]) for name in ORACLES] for v in main}
    _grouped_bars(ax, list(ORACLES), series, series_colours(diagnosis.params.splits), horizontal=True)
    ax.set_xlabel("LAMR gained by the fix (percentage points)")
    ax.set_title(f"{diagnosis.params.main_setting}: oracle impact ({diagnosis.params.protocol})", fontsize=10)
    save_figure(fig, path)
    return path
