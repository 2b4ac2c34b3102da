"""Dataset statistics: what `kaist-kit stats` prints about a COCO annotation file."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..data.groundtruth import GroundTruth
from ..datasets import KAIST, Benchmark
from ..metrics.settings import KAIST_FRAME_SIZE, OCCLUSION_NAMES
from ..output.tables import Table

# The Caltech benchmark's scales, in pixels of height: far up to 30, medium 30 to 80, near 80 up.
CALTECH_SCALES = (("far", 0, 30), ("medium", 30, 80), ("near", 80, np.inf))


def dataset_stats(gt: GroundTruth) -> dict:
    """Counts per label, occlusion and period; pedestrians per image; height quantiles and scales.

    "Pedestrians" are the boxes labelled person (the class to detect); the other labels are
    regions that evaluation ignores.
    """
    labels, label_counts = (
        np.unique(np.array(gt.labels, dtype=object), return_counts=True) if gt.labels else (np.array([]), np.array([]))
    )
    person = np.array([label == "person" for label in gt.labels], bool)
    heights = gt.heights[person]
    periods = np.array(gt.image_periods)
    per_image = np.bincount(gt.ann_image[person], minlength=gt.n_images)

    by_period = {}
    for period in ("day", "night"):
        images = periods == period
        if images.any():
            by_period[period] = {"images": int(images.sum()), "pedestrians": int(per_image[images].sum())}
    quantiles = np.quantile(heights, [0.1, 0.5, 0.9]).tolist() if len(heights) else [None] * 3
    scales = {
        name: (float(np.mean((heights > lo) & (heights <= hi))) if len(heights) else 0.0)
        for name, lo, hi in CALTECH_SCALES
    }
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
    rows = [
        ["labels", ", ".join(f"{label} {n}" for label, n in stats["labels"].items())],
        ["pedestrians", f"{stats['pedestrians']} (boxes labelled person)"],
        ["occlusion", ", ".join(f"{k} {v}" for k, v in stats["occlusion"].items())],
    ]
    for period, values in stats["periods"].items():
        rows.append([period, f"{values['images']} images, {values['pedestrians']} pedestrians"])
    per = stats["pedestrians_per_image"]
    rows.append(["per image", f"mean {per['mean']:.2f}, max {per['max']}, {per['images_with_none']} images with none"])
    q = stats["height_quantiles"]
    if q["50%"] is not None:
        rows.append(["height", f"10% {q['10%']:.0f} px, median {q['50%']:.0f} px, 90% {q['90%']:.0f} px"])
    scales = stats["caltech_scales"]
    rows.append(
        [
            "scale (Caltech)",
            f"near (80 px and up) {100 * scales['near']:.1f}%, medium "
            f"{100 * scales['medium']:.1f}%, far (30 px or less) {100 * scales['far']:.1f}%",
        ]
    )
    return Table(f"{stats['source']}: {stats['images']} images, {stats['boxes']} boxes", [], rows, label_columns=2)


def plot_heights(gt: GroundTruth, path: str | os.PathLike) -> None:
    """Histogram of pedestrian heights by period, with the Caltech scale bounds marked."""
    from ..output.plots import new_figure, save_figure

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
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    else:  # a ground truth without pedestrians: an empty figure that says so
        ax.text(0.5, 0.5, "no pedestrian boxes", transform=ax.transAxes, ha="center", va="center")
    save_figure(fig, path)


# ------------------------------------------------------------------------------------------------
# The other benchmarks: per class, and per scene or period

# COCO's area ranges (pixels of box area), by which its AP_small, _medium and _large are reported; COCO's
# evaluator takes both bounds in (a box of 32 x 32 is small and medium).
COCO_AREAS = (("small", 0, 32**2), ("medium", 32**2, 96**2), ("large", 96**2, np.inf))


def benchmark_stats(annotations) -> dict:
    """What `kaist-kit stats --benchmark NAME` prints about one ground truth (a `kaist_kit.data.groundtruth.
    GroundTruth`, a split of another benchmark): per class, its boxes (ignore regions apart), the images
    that hold one, boxes per image, the 10 %, median and 90 % box heights and COCO's small / medium /
    large shares of the boxes that count (the file's areas, as COCO's evaluator reads them); per scene
    or period the images name (day, night, M3FD's scenes), images and boxes of each class."""
    counted = ~(annotations.ignore | annotations.iscrowd)
    classes = {}
    for k, info in enumerate(annotations.classes):
        mine = annotations.ann_class == k
        boxes = mine & counted
        heights = annotations.boxes[boxes, 3]
        areas = annotations.areas[boxes]
        quantiles = np.quantile(heights, [0.1, 0.5, 0.9]).tolist() if len(heights) else [None] * 3
        classes[info.name] = {
            "boxes": int(boxes.sum()),
            "ignored": int((mine & ~counted).sum()),
            "images": len(set(annotations.ann_image[boxes].tolist())),
            "per_image": float(boxes.sum() / annotations.n_images) if annotations.n_images else 0.0,
            "height_quantiles": dict(zip(("10%", "50%", "90%"), quantiles)),
            "coco_areas": {
                name: float(np.mean((areas >= lo) & (areas <= hi))) if len(areas) else 0.0
                for name, lo, hi in COCO_AREAS
            },
        }
    scenes = {}
    for scene in sorted({s for s in annotations.image_scenes if s}):
        images = np.array([s == scene for s in annotations.image_scenes], bool)
        boxes = images[annotations.ann_image] & counted
        scenes[scene] = {
            "images": int(images.sum()),
            "boxes": {
                info.name: int((boxes & (annotations.ann_class == k)).sum())
                for k, info in enumerate(annotations.classes)
            },
        }
    return {
        "source": annotations.path,
        "benchmark": annotations.benchmark.name if annotations.benchmark else None,
        "images": annotations.n_images,
        "boxes": int(counted.sum()),
        "ignored": int((~counted).sum()),
        "images_without_boxes": int(annotations.n_images - len(set(annotations.ann_image[counted].tolist()))),
        "classes": classes,
        "scenes": scenes,
        "notes": list(annotations.notes),
    }


def benchmark_stats_tables(stats: dict) -> list[Table]:
    """`benchmark_stats` as tables: a row per class, then a row per scene (within 80 columns)."""

    def height(q: dict) -> str:
        return "-" if q["50%"] is None else f"{q['10%']:.0f}/{q['50%']:.0f}/{q['90%']:.0f}"

    def shares(a: dict) -> str:
        return "/".join(f"{100 * a[name]:.0f}" for name, _, _ in COCO_AREAS)

    title = (
        f"{stats['source']}: {stats['images']:,} images ({stats['images_without_boxes']:,} without a box), "
        f"{stats['boxes']:,} boxes" + (f", {stats['ignored']:,} ignore regions" if stats["ignored"] else "")
    )
    rows = [
        [
            name,
            f"{c['boxes']:,}",
            f"{c['ignored']:,}",
            f"{c['images']:,}",
            f"{c['per_image']:.2f}",
            height(c["height_quantiles"]),
            shares(c["coco_areas"]),
        ]
        for name, c in stats["classes"].items()
    ]
    key = "heights: 10 %, median, 90 % (px); sizes: COCO's small/medium/large shares (%)"
    tables = [
        Table(
            title,
            ["class", "boxes", "ignored", "images", "per image", "heights", "sizes"],
            rows,
            "\n".join([key, *stats["notes"]]),
        )
    ]
    if stats["scenes"]:
        names = list(stats["classes"])
        rows = [
            [scene, f"{s['images']:,}", *(f"{s['boxes'][n]:,}" for n in names)] for scene, s in stats["scenes"].items()
        ]
        tables.append(Table("by scene: images, and boxes of each class", ["scene", "images", *names], rows))
    return tables


def plot_class_heights(ground_truths, path: str | os.PathLike) -> None:
    """Histograms of the box heights of each class (a panel each) that count, one colour per file (split)."""
    from ..output.plots import new_figure, save_figure, series_colours

    names = list(dict.fromkeys(info.name for gt in ground_truths for info in gt.classes))
    columns = min(3, len(names))
    rows = -(-len(names) // columns)
    fig, axes = new_figure(rows, columns, width=4.0 * columns, height=3.0 * rows)
    labels = [os.path.basename(gt.path or "") or f"file {k + 1}" for k, gt in enumerate(ground_truths)]
    colours = series_colours(labels)
    bins = np.geomspace(4, 1024, 40)
    for k, name in enumerate(names):
        ax = axes[k // columns][k % columns]
        for gt, label in zip(ground_truths, labels):
            index = next((i for i, info in enumerate(gt.classes) if info.name == name), None)
            if index is None:
                continue
            chosen = gt.boxes[(gt.ann_class == index) & ~(gt.ignore | gt.iscrowd), 3]
            if len(chosen):
                ax.hist(chosen, bins=bins, alpha=0.6, color=colours[label], label=f"{label} ({len(chosen)})")
        ax.set_xscale("log")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("box height (px)")
        ax.set_ylabel("boxes")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no boxes", transform=ax.transAxes, ha="center", va="center")
    for k in range(len(names), rows * columns):
        axes[k // columns][k % columns].set_axis_off()
    save_figure(fig, path)


def per_label(benchmark: Benchmark) -> bool:
    """Whether a benchmark's files are counted per label, occlusion and period, and the heights of one
    file drawn by period (`dataset_stats`, `plot_heights`): where its ground truths have the annotated
    height and occlusion columns (KAIST's), else per class (`benchmark_stats`, `plot_class_heights`)."""
    return {"height", "occlusion"} <= set(benchmark.truth_rules.columns)


@dataclass
class FileStats:
    """What `kaist-kit stats` found in its files: the statistics of each, their tables, and their heights'
    figure (KAIST's: one file's; another benchmark's: a panel per class, a colour per file)."""

    benchmark: Benchmark
    truths: list
    stats: list[dict]
    tables: list[Table]

    def to_json(self) -> dict | list[dict]:
        return self.stats[0] if len(self.stats) == 1 else self.stats

    def plot(self, path: str | os.PathLike) -> None:
        if per_label(self.benchmark):
            plot_heights(self.truths[0], path)
        else:
            plot_class_heights(self.truths, path)


def file_stats(paths: Sequence[str | os.PathLike], benchmark: Benchmark = KAIST) -> FileStats:
    """The statistics of each ground-truth file of ``benchmark`` (KAIST's: `dataset_stats`; another's:
    `benchmark_stats`). Each file is opened as the scoring verbs open a ground truth of a named
    benchmark (`scoring.run.open_truth`): one recognised as another benchmark's is refused."""
    from ..scoring.run import open_truth

    opened = [open_truth(path, benchmark) for path in paths]
    if per_label(benchmark):
        truths = [truth.annotations for truth in opened]
        stats = [dataset_stats(gt) for gt in truths]
        return FileStats(benchmark, truths, stats, [stats_table(one) for one in stats])
    truths = [truth.annotations for truth in opened]
    stats = [benchmark_stats(gt) for gt in truths]
    return FileStats(benchmark, truths, stats, [table for one in stats for table in benchmark_stats_tables(one)])
