"""Dataset statistics: what `kaist-kit stats` prints about a COCO annotation file."""

from __future__ import annotations

import os

import numpy as np

from .groundtruth import GroundTruth
from .settings import KAIST_FRAME_SIZE, OCCLUSION_NAMES
from .tables import Table

# The Caltech benchmark's scales, in pixels of height: far up to 30, medium 30 to 80, near 80 up.
CALTECH_SCALES = (("far", 0, 30), ("medium", 30, 80), ("near", 80, np.inf))


def dataset_stats(gt: GroundTruth) -> dict:
    """Counts per label, occlusion and period; pedestrians per image; height quantiles and scales.

    "Pedestrians" are the boxes labelled person (the class to detect); the other labels are
    regions that evaluation ignores.
    """
    labels, label_counts = np.unique(np.array(gt.labels, dtype=object), return_counts=True) \
        if gt.labels else (np.array([]), np.array([]))
    person = np.array([label == "person" for label in gt.labels], bool)
    heights = gt.heights[person]
    periods = np.array(gt.image_periods)
    per_image = np.bincount(gt.ann_image[person], minlength=gt.n_images)

    by_period = {}
    for period in ("day", "night"):
        images = periods == period
        if images.any():
            by_period[period] = {"images": int(images.sum()), "pedestrians": int(per_image[images].sum())}
    quantiles = (np.quantile(heights, [0.1, 0.5, 0.9]).tolist() if len(heights) else [None] * 3)
    scales = {name: (float(np.mean((heights > lo) & (heights <= hi))) if len(heights) else 0.0)
              for name, lo, hi in CALTECH_SCALES}
    if len(heights):  # far is "30 px or less": include the lower bound
        scales["far"] = float(np.mean(heights <= 30))
    return {
        "source": gt.path,
        "images": gt.n_images,
        "boxes": int(len(gt.labels)),
        "labels": {str(k): int(v) for k, v in zip(labels, label_counts)},
        "pedestrians": int(person.sum()),
        "occlusion": {OCCLUSION_NAMES[k]: int(np.sum(gt.occlusion[person] == k)) for k in (0, 1, 2)},
        "periods": by_period,
        "pedestrians_per_image": {
            "mean": float(per_image.mean()) if gt.n_images else 0.0,
            "images_with_none": int(np.sum(per_image == 0)),
            "max": int(per_image.max()) if gt.n_images else 0,
        },
        "height_quantiles": {"10%": quantiles[0], "50%": quantiles[1], "90%": quantiles[2]},
        "caltech_scales": scales,
    }


def stats_table(stats: dict) -> Table:
    """What `kaist-kit stats` prints: the statistics of `dataset_stats` as a list of named values."""
    rows = [["labels", ", ".join(f"{label} {n}" for label, n in stats["labels"].items())],
            ["pedestrians", f"{stats['pedestrians']} (boxes labelled person)"],
            ["occlusion", ", ".join(f"{k} {v}" for k, v in stats["occlusion"].items())]]
    for period, values in stats["periods"].items():
        rows.append([period, f"{values['images']} images, {values['pedestrians']} pedestrians"])
    per = stats["pedestrians_per_image"]
    rows.append(["per image", f"mean {per['mean']:.2f}, max {per['max']}, {per['images_with_none']} images with none"])
    q = stats["height_quantiles"]
    if q["50%"] is not None:
        rows.append(["height", f"10% {q['10%']:.0f} px, median {q['50%']:.0f} px, 90% {q['90%']:.0f} px"])
    scales = stats["caltech_scales"]
    rows.append(["scale (Caltech)", f"near (80 px and up) {100 * scales['near']:.1f}%, medium "
                                    f"{100 * scales['medium']:.1f}%, far (30 px or less) {100 * scales['far']:.1f}%"])
    return Table(f"{stats['source']}: {stats['images']} images, {stats['boxes']} boxes", [], rows, label_columns=2)


def plot_heights(gt: GroundTruth, path: str | os.PathLike) -> None:
    """Histogram of pedestrian heights by period, with the Caltech scale bounds marked."""
    from .plots import new_figure, save_figure

    fig, axes = new_figure(1, 1, width=6.0, height=3.6)
    ax = axes[0][0]
    person = np.array([label == "person" for label in gt.labels], bool)
    periods = np.array(gt.image_periods)[gt.ann_image]
    bins = np.geomspace(8, KAIST_FRAME_SIZE[1], 40)  # up to the frame's height
    for period, colour in (("day", "tab:orange"), ("night", "tab:blue")):
        chosen = gt.heights[person & (periods == period)]
        if len(chosen):
            ax.hist(chosen, bins=bins, alpha=0.6, color=colour, label=f"{period} ({len(chosen)})")
    for bound in (30, 55, 80):
        ax.axvline(bound, color="0.4", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("pedestrian height (px); dashed: 30, 55 (reasonable), 80")
    ax.set_ylabel("pedestrians")
    ax.legend()
    save_figure(fig, path)
