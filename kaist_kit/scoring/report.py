"""Evaluation results as a terminal table, JSON, CSV or Markdown.

`EvalReport` is what `kaist-kit eval` prints, in each of its output formats; `DiagnosedFile`
(`kaist_kit.diagnosis.run`) and `ComparedFiles` (`kaist_kit.scoring.comparison`) are those of `diagnose` and
`compare`. Each gives ``to_json()`` (the document), ``to_csv()``, ``to_markdown()``, ``tables()`` and
the ``lines()`` printed after them, and says whether its tables are ``light`` (thin rules, to fit 80
columns): the command line renders all three the same way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..errors import percent
from ..metrics.evaluate import Result, is_log_average
from ..metrics.settings import PRESETS, PROTOCOLS, SETTINGS, get_setting, lamr_variant, own_fppi_range
from ..metrics.spec import get_metric, label
from ..output.tables import Table, print_tables

DEFAULT_IOU = 0.5

FORMATS = ("table", "json", "csv", "markdown")

PROTOCOL_NOTE = {
    "leaderboard": "leaderboard protocol: the numbers the public KAIST leaderboard gives. Most papers "
    "quote the MATLAB devkit instead: compare with them using --protocol matlab.",
    "matlab": "matlab protocol: the KAIST MATLAB devkit, as most papers report. The public "
    "leaderboard reads the curve differently: --protocol leaderboard gives its numbers.",
}


Line = tuple[str, float]  # (metric, IoU of the LAMR; the first IoU for AP and AR, which have their own)


def _lines(results: Sequence[Result]) -> list[Line]:
    """The rows each method, protocol and setting gets: the LAMR at each IoU, then each other metric once."""
    ious = list(dict.fromkeys(r.iou for r in results))
    metrics = list(dict.fromkeys(m for r in results for m in r.metrics))
    return [(m, iou) for m in metrics for iou in (ious if get_metric(m).uses_iou_option else ious[:1])]


def _grid(results: Sequence[Result]) -> tuple[list[tuple[str, str, str, Line]], list[str], dict]:
    """Rows (method, protocol, setting, line), columns (splits) and the cell lookup, in first-seen order."""
    lines = _lines(results)
    groups = list(dict.fromkeys((r.method, r.protocol, r.setting) for r in results))
    rows = [(*group, line) for group in groups for line in lines]
    splits = list(dict.fromkeys(r.split for r in results))
    cells = {(r.method, r.protocol, r.setting, r.split, r.iou): r for r in results}
    return rows, splits, cells


def _cell(cells: dict, method: str, protocol: str, setting: str, split: str, line: Line) -> str:
    metric, iou = line
    r = cells.get((method, protocol, setting, split, iou))
    return "" if r is None or metric not in r.metrics else percent(r.value(metric))


def _line_label(line: Line, several_ious: bool) -> str:
    metric, iou = line
    return label(metric) + (f" IoU {iou:g}" if get_metric(metric).uses_iou_option and several_ious else "")


def _row_labels(results: Sequence[Result]) -> list[str]:
    """Which of method / protocol / setting / metric vary, so that constant ones move to the title."""
    labels = ["method"]
    if len({r.protocol for r in results}) > 1:
        labels.append("protocol")
    if len({r.setting for r in results}) > 1:
        labels.append("setting")
    if len(_lines(results)) > 1:
        labels.append("metric")
    return labels


def _row(results: Sequence[Result], labels: list[str], key: tuple[str, str, str, Line]) -> list[str]:
    method, protocol, setting, line = key
    several_ious = len({r.iou for r in results}) > 1
    values = {"method": method, "protocol": protocol, "setting": setting, "metric": _line_label(line, several_ious)}
    return [values[k] for k in labels]


@dataclass
class EvalReport:
    """Scored results and what was found in their files, as `kaist-kit eval` prints them."""

    results: list[Result]
    findings: list = field(default_factory=list)  # kaist_kit.scoring.findings.Finding
    ground_truth: str = ""  # what was scored against (GroundTruth.describe), for the table's caption
    curves: bool = False  # the JSON holds every result's full curve
    after: list[str] = field(default_factory=list)  # lines printed after the table
    light: bool = field(default=False, repr=False)

    def to_json(self) -> dict:
        return {
            "results": [r.to_dict(self.curves) for r in self.results],
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_csv(self) -> str:
        return to_csv(self.results)

    def to_markdown(self) -> str:
        return to_markdown(self.results)

    def tables(self) -> list[Table]:
        caption = (
            ([f"ground truth: {self.ground_truth}"] if self.ground_truth else [])
            + protocol_notes(self.results)
            + variant_notes(self.results)
        )
        return [lamr_table(self.results, "\n".join(caption))]

    def lines(self) -> list[str]:
        return self.after


def to_json(results: Sequence[Result], with_curve: bool = False, findings: Sequence = ()) -> str:
    """``{"results": [...], "findings": [...]}``: a row per result, and what was found in the inputs
    (`kaist_kit.scoring.findings.Finding.to_dict`)."""
    return json.dumps(EvalReport(list(results), list(findings), curves=with_curve).to_json(), indent=1)


def to_csv(results: Sequence[Result]) -> str:
    refs = results[0].fppi_refs if results else ()
    metrics = list(dict.fromkeys(m for r in results for m in r.metrics))
    others = [m for m in metrics if not is_log_average(m)]
    averages = [m for m in metrics if is_log_average(m)]
    lamr = bool(averages)
    headers = (
        ["method", "protocol", "setting", "split", "iou"]
        + averages
        + ["recall", "n_images", "n_gt"]
        + others
        + (
            [f"mr_at_{k + 1}" for k in range(len(refs))] + [f"fppi_ref_{k + 1}" for k in range(len(refs))]
            if lamr
            else []
        )
    )
    rows = [
        [r.method, r.protocol, r.setting, r.split, repr(r.iou)]
        + ([repr(r.lamr)] if lamr else [])
        + [repr(r.recall), str(r.n_images), str(r.n_gt)]
        + [repr(r.value(m)) for m in others]
        + ([*map(repr, r.miss_rates), *map(repr, r.fppi_refs)] if lamr else [])
        for r in results
    ]
    return Table("", headers, rows).to_csv()


def lamr_table(results: Sequence[Result], caption: str = "") -> Table:
    """A row per method (and protocol, setting and metric, where they vary), a column per split."""
    rows, splits, cells = _grid(results)
    labels = _row_labels(results)
    body = [_row(results, labels, key) + [_cell(cells, *key[:3], s, key[3]) for s in splits] for key in rows]
    return Table(title(results), labels + splits, body, caption, label_columns=len(labels))


def to_markdown(results: Sequence[Result]) -> str:
    return lamr_table(results).to_markdown() + "\n"


def title(results: Sequence[Result]) -> str:
    protocols = sorted({r.protocol for r in results})
    settings = list(dict.fromkeys(r.setting for r in results))
    ious = list(dict.fromkeys(r.iou for r in results))
    metrics = list(dict.fromkeys(m for r in results for m in r.metrics))
    variant = lamr_variant(ious[0] if len(ious) == 1 else None, _fppi_range(results))
    if len(metrics) == 1 and is_log_average(metrics[0]):
        parts = [f"Log-average miss rate{variant} (%, lower is better)"]
    else:
        lower = [label(m) for m in metrics if get_metric(m).lower_is_better]
        higher = [label(m) for m in metrics if not get_metric(m).lower_is_better]
        parts = []
        if lower:
            parts.append(f"{', '.join(lower)}{variant} (%, lower is better)")
        if higher:
            parts.append(f"{', '.join(higher)} (%, higher is better)")
        parts = ["; ".join(parts)]
    if len(protocols) == 1:
        parts.append(f"{protocols[0]} protocol")
    if len(settings) == 1:
        parts.append(settings[0])
    return ", ".join(parts)


def print_table(results: Sequence[Result], console, caption: str = "") -> None:
    print_tables([lamr_table(results, caption)], console)


def protocol_notes(results: Sequence[Result]) -> list[str]:
    return [PROTOCOL_NOTE[p] for p in dict.fromkeys(r.protocol for r in results) if p in PROTOCOLS]


def _fppi_range(results: Sequence[Result]) -> tuple[float, float] | None:
    """The reference FPPI range when it is not the protocols' own."""
    for r in results:
        if r.protocol in PROTOCOLS and any(map(is_log_average, r.metrics)):
            own = own_fppi_range(replace(PROTOCOLS[r.protocol], fppi_refs=r.fppi_refs))
            if own:
                return own
    return None


def variant_notes(results: Sequence[Result]) -> list[str]:
    """What the output computes besides the benchmark's own LAMR, so that no one mistakes it for that."""
    notes = []
    fppi = _fppi_range(results)
    if fppi:
        refs = next(r.fppi_refs for r in results if (r.fppi_refs[0], r.fppi_refs[-1]) == fppi)
        note = (
            f"LAMR over {len(refs)} reference FPPI, exact powers of 10 from {fppi[0]:g} to {fppi[1]:g} in steps "
            "of 10^0.25"
        )
        if any(r.protocol == "leaderboard" for r in results):
            note += "; the leaderboard itself reads only its nine rounded values from 0.01 to 1"
        notes.append(note + ".")
    if any(r.iou != DEFAULT_IOU and any(map(is_log_average, r.metrics)) for r in results):
        notes.append(
            "IoU: the matching threshold of the LAMR (the benchmark's is 0.5); the 2024 challenge's "
            "evaluator reports 0.6 and 0.75 too, under the leaderboard protocol."
        )
    if any(not is_log_average(m) for r in results for m in r.metrics):
        notes.append(
            "AP and AR: COCO's accumulation at IoU 0.50:0.05:0.95 (1,000 detections per image under the "
            "leaderboard protocol), as the 2024 KAIST challenge computes them; its columns AP_iou50, "
            "AP_iou75 and AP_iou50:95 are ap50, ap75 and ar (an average recall), reasonable, all, "
            "leaderboard protocol."
        )
    custom = [name for name in dict.fromkeys(r.setting for r in results) if name not in SETTINGS]
    for name in custom:
        setting = get_setting(name) if name not in PRESETS else PRESETS[name]
        text = f"{name}: {setting.description}"
        if setting.squarify is not None:
            text += " (before matching, as the devkit's bbGt; detections and ignore regions keep their boxes)"
        notes.append(text + ".")
    return notes
