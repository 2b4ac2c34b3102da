"""Miss rate against false positives per image, the benchmark's standard figure."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io.write import atomic_file, check_writable
from ..metrics.evaluate import Result

FIGURE_TYPES = (".png", ".pdf", ".svg")
LINE_STYLES = ("-", "--", ":", "-.")
MISS_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.64, 0.8, 1.0)


def check_figure_path(path: str | os.PathLike) -> Path:
    """``path`` if a figure can be written there (a known type, a place that takes a file)."""
    path = Path(path)
    if path.suffix.lower() not in FIGURE_TYPES:
        raise InputError(f"figure type {path.suffix or '(none)'} not supported; use {', '.join(FIGURE_TYPES)}", path)
    return check_writable(path)


def new_figure(n_rows: int, n_cols: int, width: float = 4.6, height: float = 4.0):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(n_rows, n_cols, figsize=(width * n_cols, height * n_rows), squeeze=False)
    return fig, axes


def save_figure(fig, path: str | os.PathLike, layout: bool = True, dpi: int = 150, close: bool = True) -> None:
    """Write the figure (laid out tightly first, unless ``layout`` is False: it has been) and close it
    (unless ``close`` is False: it is written again, as another type)."""
    import matplotlib.pyplot as plt

    path = check_figure_path(path)
    if layout:
        fig.tight_layout()
    with atomic_file(path) as handle:
        fig.savefig(handle, format=path.suffix[1:].lower(), dpi=dpi)
    if close:
        plt.close(fig)


# The colours of methods (and of splits, in the diagnosis' figures), in the order they are given:
# matplotlib's cycle without its green and grey, which drawn frames keep for the ground truth's
# pedestrians and ignore regions.
PALETTE = ("C0", "C1", "C3", "C4", "C5", "C6", "C8", "C9")
TRUTH_COLOUR, IGNORE_COLOUR = "lime", "0.75"


def series_colours(names: Iterable[str]) -> dict[str, str]:
    """A colour per name (`PALETTE` in the order given), so that a method or a split keeps its colour in
    every panel and figure of one call: the curves of a run and its drawn frames alike."""
    return {name: PALETTE[k % len(PALETTE)] for k, name in enumerate(dict.fromkeys(names))}


def legend_outside(ax, **options) -> None:
    """The legend to the right of the axes, where it cannot hide what they show."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=8, frameon=False, **options)


def draw_mr_fppi(ax, results: Sequence[Result], title: str = "", colours: dict[str, str] | None = None) -> None:
    """One panel: a curve per result, coloured by ``colours`` (method -> colour; default: in the order
    given), the legend ordered by LAMR as in the benchmark's figures."""
    colours = colours or series_colours(r.method for r in results)
    # A method keeps its colour at every IoU threshold; the thresholds differ by line style.
    styles = {iou: LINE_STYLES[k % len(LINE_STYLES)] for k, iou in enumerate(dict.fromkeys(r.iou for r in results))}
    for r in sorted(results, key=lambda r: r.lamr):
        fppi, miss = r.curve.fppi, r.curve.miss_rate
        keep = (fppi > 0) & np.isfinite(miss)
        label = f"{100 * r.lamr:.2f}% {r.method}" + (f", IoU {r.iou:g}" if r.iou != 0.5 else "")
        style = {"color": colours[r.method], "linestyle": styles[r.iou]}
        if keep.any():
            ax.plot(fppi[keep], np.maximum(miss[keep], 1e-4), drawstyle="steps-post", lw=1.6, label=label, **style)
        else:
            ax.plot([], [], label=label, **style)
        for ref in (r.fppi_refs[0], r.fppi_refs[-1]):
            ax.axvline(ref, color="0.85", lw=0.8, zorder=0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(min([1e-3] + [r.fppi_refs[0] for r in results]), 1e1)  # MR-4 reads from 1e-4
    lowest = min((m for r in results for m in r.miss_rates if m > 0), default=MISS_TICKS[0])
    ax.set_ylim(max(1e-4, min(MISS_TICKS[0], lowest)), 1)
    ax.set_yticks(MISS_TICKS)
    ax.set_yticklabels([f"{t:g}" for t in MISS_TICKS])
    ax.minorticks_off()
    ax.grid(True, which="major", color="0.9", lw=0.6)
    ax.set_xlabel("false positives per image")
    ax.set_ylabel("miss rate")
    if title:
        ax.set_title(title)
    legend_outside(ax)


def plot_results(results: Sequence[Result], path: str | os.PathLike, colours: dict[str, str] | None = None) -> None:
    """MR-FPPI curves of all methods: a row per (protocol, setting), a panel per split; a method has
    one colour in every panel (``colours``, method -> colour; default: `series_colours` in order)."""
    check_figure_path(path)
    save_figure(results_figure(results, colours), path)


def results_figure(results: Sequence[Result], colours: dict[str, str] | None = None):
    """The figure `plot_results` writes."""
    rows = list(dict.fromkeys((r.protocol, r.setting) for r in results))
    splits = list(dict.fromkeys(r.split for r in results))
    colours = colours or series_colours(r.method for r in results)
    fig, axes = new_figure(len(rows), len(splits), width=6.2)
    for i, (protocol, setting) in enumerate(rows):
        for j, split in enumerate(splits):
            panel = [r for r in results if (r.protocol, r.setting, r.split) == (protocol, setting, split)]
            draw_mr_fppi(axes[i][j], panel, f"{setting}, {split} ({protocol})", colours)
    return fig
