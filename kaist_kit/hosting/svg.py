"""MR-FPPI curves as inline SVG: log-log axes, one step line per series, a legend; no script, no fonts.

The curves are decimated to what the plot can show (points closer than half a pixel on both axes
merge), so that a page stays small for curves of thousands of detections.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np

X_RANGE = (1e-3, 1e1)  # false positives per image
Y_RANGE = (1e-2, 1.0)  # miss rate
WIDTH, HEIGHT = 520, 400
MARGIN = {"left": 56, "right": 16, "top": 28, "bottom": 44}
Y_TICKS = (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.64, 0.8, 1.0)
LEGEND_LINE = 16  # px per legend line, below the plot
LEGEND_CHAR_PX = 7.0  # a generous width of an 11 px character, so that a legend never runs past the plot
# Colours that stay apart for the colour-blind (Okabe and Ito), then greys.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000", "#777777")


def _x(fppi: float) -> float:
    lo, hi = map(math.log10, X_RANGE)
    span = WIDTH - MARGIN["left"] - MARGIN["right"]
    return MARGIN["left"] + (math.log10(min(max(fppi, X_RANGE[0]), X_RANGE[1])) - lo) / (hi - lo) * span


def _y(miss: float) -> float:
    lo, hi = map(math.log10, Y_RANGE)
    span = HEIGHT - MARGIN["top"] - MARGIN["bottom"]
    return MARGIN["top"] + (hi - math.log10(min(max(miss, Y_RANGE[0]), Y_RANGE[1]))) / (hi - lo) * span


def decimate(fppi: np.ndarray, miss: np.ndarray) -> list[list[float]]:
    """The curve's points as [fppi, miss rate], fewer: consecutive points within half a pixel merge
    (the last of each run is kept, so every step stays where it is)."""
    fppi, miss = np.asarray(fppi, float), np.asarray(miss, float)
    keep = np.isfinite(fppi) & np.isfinite(miss)
    fppi, miss = fppi[keep], miss[keep]
    if not len(fppi):
        return []
    px = np.round(2 * np.array([_x(v) for v in fppi]))
    py = np.round(2 * np.array([_y(v) for v in miss]))
    last = np.ones(len(px), bool)
    last[:-1] = (px[1:] != px[:-1]) | (py[1:] != py[:-1])
    return [[float(f"{f:.6g}"), float(f"{m:.6g}")] for f, m in zip(fppi[last], miss[last])]


def legend_text(label: str) -> str:
    """A legend's text as it fits the plot's width: a longer one cut with an ellipsis (the SVG keeps the
    whole in a tooltip)."""
    room = int((WIDTH - MARGIN["left"] - 24) / LEGEND_CHAR_PX)
    return label if len(label) <= room else label[: room - 1] + "\u2026"


def curves_svg(series: Sequence[tuple[str, Sequence[Sequence[float]]]], title: str) -> str:
    """An SVG of MR-FPPI curves: ``series`` is (legend text, [[fppi, miss rate], ...]) in curve order; the
    legend is below the plot, a line per curve, within the plot's width whatever the names' length."""
    height = HEIGHT + LEGEND_LINE * len(series) + (4 if series else 0)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
        f'height="{height}" role="img" aria-label="{html.escape(title)}" class="curves">',
        f'<text x="{WIDTH / 2:.0f}" y="18" text-anchor="middle" class="title">{html.escape(title)}</text>',
    ]
    left, right = MARGIN["left"], WIDTH - MARGIN["right"]
    top, bottom = MARGIN["top"], HEIGHT - MARGIN["bottom"]
    for k in range(int(math.log10(X_RANGE[0])), int(math.log10(X_RANGE[1])) + 1):
        x = _x(10.0**k)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" class="grid"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">10<tspan dy="-6" '
            f'font-size="9">{k}</tspan></text>'
        )
    for tick in Y_TICKS:
        y = _y(tick)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>')
    parts.append(f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" class="frame"/>')
    parts.append(
        f'<text x="{(left + right) / 2:.0f}" y="{HEIGHT - 6}" text-anchor="middle">false positives per image</text>'
    )
    parts.append(
        f'<text x="14" y="{(top + bottom) / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {(top + bottom) / 2:.0f})">miss rate</text>'
    )
    for k, (label, points) in enumerate(series):
        colour = PALETTE[k % len(PALETTE)]
        if points:
            path = [f"M{_x(points[0][0]):.1f},{_y(1.0):.1f}"]
            for fppi, miss in points:  # a step: across at the previous miss rate, then down
                path.append(f"H{_x(fppi):.1f}V{_y(miss):.1f}")
            parts.append(f'<path d="{"".join(path)}" stroke="{colour}" class="curve"/>')
        y = HEIGHT + 12 + LEGEND_LINE * k
        shown = legend_text(label)
        whole = f"<title>{html.escape(label)}</title>" if shown != label else ""
        parts.append(f'<line x1="{left}" y1="{y - 4}" x2="{left + 18}" y2="{y - 4}" stroke="{colour}" class="curve"/>')
        parts.append(f'<text x="{left + 22}" y="{y}" class="legend">{whole}{html.escape(shown)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
