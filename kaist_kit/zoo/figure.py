"""`kaist-kit compare MY_result.json --zoo`: the figure a KAIST paper draws (MR-FPPI curves of the chosen
methods, all / day / night, the legend ranked by log-average miss rate) and the table of both protocols,
every number traceable to a file and a commit."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..data.detections import method_name
from ..data.groundtruth import GroundTruth
from ..metrics.evaluate import Result, ResultFiles, ScoreGrid
from ..metrics.spec import LAMR
from ..output.plots import LINE_STYLES, MISS_TICKS, PALETTE, check_figure_path, new_figure, save_figure
from ..output.tables import Table, markdown_sections
from ..scoring.findings import Finding, evaluate_inspected
from .names import PREFIX
from .resolve import all_entries, find_entry
from .specs import PROTOCOLS, SPLITS, Entry

PAPER_DPI = 300
# A two-column paper's text width, in inches, for the three panels.
PAPER_WIDTH = 7.1
PANEL_HEIGHT = 2.4
FIGURE_TYPES = (".pdf", ".png")


def default_entries() -> list[Entry]:
    """What `compare --zoo` draws when no entry is named: one file per method."""
    return [e for e in all_entries() if e.drawn_by_default]


@dataclass
class Compared:
    """One method of the comparison: its name in the legend, where its numbers come from, its results."""

    name: str
    source: str  # the user's file, or "owner/name@1234567 path"
    entry: Entry | None
    results: list[Result] = field(default_factory=list)

    def lamr(self, protocol: str, split: str) -> float | None:
        for r in self.results:
            if r.protocol == protocol and r.split == split:
                return r.lamr
        return None


@dataclass
class ZooComparison:
    """The methods ranked, their numbers under both protocols, the figures written, what was found."""

    methods: list[Compared]
    protocol: str  # the figure's
    figures: list[Path]
    findings: list[Finding]
    light: bool = field(default=True, repr=False)

    def table(self) -> Table:
        rows = []
        for m in self.methods:
            cells = [m.name]
            for protocol in PROTOCOLS:
                cells += [_percent(m.lamr(protocol, split)) for split in SPLITS]
            rows.append(cells + [f"zoo:{m.entry.name}" if m.entry else m.source])
        headers = ["method"] + [f"{p[:2]} {s}" for p in ("leaderboard", "matlab") for s in SPLITS] + ["file"]
        return Table(
            f"Log-average miss rate (%), reasonable, ranked by the {self.protocol} protocol's all",
            headers,
            rows,
            note="le: the leaderboard's evaluation script; ma: the KAIST MATLAB devkit, as most papers report. "
            "`kaist-kit zoo` says where each zoo: file is (repository, commit, path).",
            label_columns=1,
        )

    def tables(self) -> list[Table]:
        return [self.table()]

    def lines(self) -> list[str]:
        return [f"figure written to {path}" for path in self.figures]

    def to_json(self) -> dict:
        return {
            "protocol": self.protocol,
            "methods": [
                {
                    "method": m.name,
                    "source": m.source,
                    "entry": m.entry.name if m.entry else None,
                    LAMR.name: {p: {s: m.lamr(p, s) for s in SPLITS} for p in PROTOCOLS},
                }
                for m in self.methods
            ],
            "figures": [str(p) for p in self.figures],
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_csv(self) -> str:
        return self.table().to_csv()

    def to_markdown(self) -> str:
        return "\n".join(markdown_sections(self.tables())) + "\n"


def _percent(value: float | None) -> str:
    return "-" if value is None or value != value else f"{100 * value:.2f}"


def split_results(results: Sequence[str | os.PathLike], zoo: bool) -> tuple[list[str], list[Entry]]:
    """The user's files and the entries among ``results``: ``zoo:NAME`` always, an entry's bare name with
    ``zoo`` when no such file exists. With ``zoo`` and no entry named, the default entries."""
    files, named = [], []
    for result in results:
        text = os.fspath(result)
        if text.startswith(PREFIX):
            named.append(find_entry(text[len(PREFIX) :]))
        elif zoo and not os.path.exists(text) and any(text.lower() == e.name.lower() for e in all_entries()):
            named.append(find_entry(text))
        else:
            files.append(text)
    if zoo and not named:
        named = default_entries()
    return files, list({e.name: e for e in named}.values())


def figure_paths(plot: str | os.PathLike | None) -> list[Path]:
    """The PDF and the PNG written: ``plot`` and its twin of the other type, or mr-fppi-zoo.pdf/.png."""
    base = Path(plot) if plot is not None else Path("mr-fppi-zoo.pdf")
    if base.suffix.lower() not in FIGURE_TYPES:
        check_figure_path(base)  # says which types a figure takes
        from ..errors import InputError

        raise InputError("the paper figure is written as PDF and PNG: give NAME.pdf or NAME.png", base)
    paths = [base.with_suffix(suffix) for suffix in FIGURE_TYPES]
    for path in paths:
        check_figure_path(path)
    return paths


def compare_with_zoo(
    files: Sequence[str],
    entries: Sequence[Entry],
    gt: GroundTruth,
    protocol: str = "leaderboard",
    plot: str | os.PathLike | None = None,
    options=None,
    names: Sequence[str] | None = None,
) -> ZooComparison:
    """Score the user's ``files`` and the zoo ``entries`` (reasonable, all / day / night, both protocols),
    rank them by ``protocol``'s all, and draw the paper figure as PDF and PNG."""
    paths = figure_paths(plot)
    own = list(names) if names else [method_name(f) for f in files]
    labels = _unique(own + [e.label for e in entries])
    arguments = list(files) + [PREFIX + e.name for e in entries]
    found = evaluate_inspected(
        ResultFiles(tuple(arguments), tuple(labels), options), gt, ScoreGrid(("reasonable",), SPLITS, tuple(PROTOCOLS))
    )
    methods = [Compared(label, f, None) for label, f in zip(labels, files)]
    methods += [Compared(label, e.file.where, e) for label, e in zip(labels[len(files) :], entries)]
    for m in methods:
        covers = m.entry.reading.covers if m.entry else SPLITS
        m.results = [r for r in found.results if r.method == m.name and r.split in covers]
    methods.sort(key=lambda m: _rank_key(m, protocol))
    paths = figure_paths(plot)  # again, now that every input is known
    fig = paper_figure(methods, protocol, own_names=set(labels[: len(files)]))
    for path in paths:
        save_figure(fig, path, layout=False, dpi=PAPER_DPI, close=path == paths[-1])
    return ZooComparison(methods, protocol, paths, found.findings)


def _rank_key(m: Compared, protocol: str) -> tuple:
    for split in SPLITS:  # a file of one period ranks by that period
        value = m.lamr(protocol, split)
        if value is not None:
            return (SPLITS.index(split), value)
    return (len(SPLITS), 0.0)


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out


def paper_figure(methods: Sequence[Compared], protocol: str, own_names: set[str] = frozenset()):
    """Three panels, all / day / night: a curve per method in one colour and style throughout (the user's
    own results first in the palette, drawn heavier), each panel's legend below it, ranked by its miss rate."""
    import matplotlib

    styles = _styles([m.name for m in methods], own_names)
    rows = max(len([m for m in methods if m.lamr(protocol, s) is not None]) for s in SPLITS)
    legend_height = 0.083 * rows + 0.1  # one line of 5-point type a method
    with matplotlib.rc_context(PAPER_STYLE):
        fig, axes = new_figure(1, len(SPLITS), width=PAPER_WIDTH / len(SPLITS), height=PANEL_HEIGHT + legend_height)
        for ax, split in zip(axes[0], SPLITS):
            ranked = sorted(
                (m for m in methods if m.lamr(protocol, split) is not None), key=lambda m: m.lamr(protocol, split)
            )
            for m in ranked:
                result = next(r for r in m.results if r.protocol == protocol and r.split == split)
                fppi, miss = result.curve.fppi, result.curve.miss_rate
                keep = (fppi > 0) & np.isfinite(miss)
                label = f"{100 * result.lamr:.2f}% {m.name}"
                if keep.any():
                    ax.plot(
                        fppi[keep], np.maximum(miss[keep], 1e-4), drawstyle="steps-post", label=label, **styles[m.name]
                    )
                else:
                    ax.plot([], [], label=label, **styles[m.name])
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(1e-3, 1e1)
            ax.set_ylim(MISS_TICKS[0], 1)
            ax.set_yticks(MISS_TICKS)
            ax.set_yticklabels([f"{t:g}" for t in MISS_TICKS])
            ax.minorticks_off()
            ax.grid(True, which="major", color="0.9", lw=0.5)
            ax.set_xlabel("false positives per image")
            ax.set_title(f"reasonable, {split} ({protocol})")
            ax.legend(
                loc="upper center",
                bbox_to_anchor=(0.5, -0.19),
                frameon=False,
                borderaxespad=0.0,
                handlelength=1.6,
                labelspacing=0.2,
            )
        axes[0][0].set_ylabel("miss rate")
        fig.subplots_adjust(
            left=0.07,
            right=0.99,
            top=1 - 0.22 / fig.get_figheight(),
            bottom=(legend_height + 0.35) / fig.get_figheight(),
            wspace=0.28,
        )
    return fig


# Small serif type, as a paper's figure has it, with fonts embedded as TrueType (editable in the PDF).
PAPER_STYLE = {
    "font.size": 6,
    "font.family": "serif",
    "axes.titlesize": 6.5,
    "axes.labelsize": 6,
    "xtick.labelsize": 5.5,
    "ytick.labelsize": 5.5,
    "legend.fontsize": 5,
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
}


def _styles(names: Sequence[str], own: set[str]) -> dict[str, dict]:
    """A colour and a line style per method: the palette's colours in turn, the style changing each time the
    palette comes round; the user's own results first, and heavier."""
    order = [n for n in names if n in own] + [n for n in names if n not in own]
    styles = {}
    for k, name in enumerate(order):
        styles[name] = {
            "color": PALETTE[k % len(PALETTE)],
            "linestyle": LINE_STYLES[(k // len(PALETTE)) % len(LINE_STYLES)],
            "lw": 1.6 if name in own else 0.9,
            "zorder": 3 if name in own else 2,
        }
    return styles
