"""Evaluation results as a terminal table, JSON, CSV or Markdown."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from .evaluate import Result
from .settings import PROTOCOLS

FORMATS = ("table", "json", "csv", "markdown")

PROTOCOL_NOTE = {
    "leaderboard": "leaderboard protocol: the numbers the public KAIST leaderboard gives. Most papers "
                   "quote the MATLAB devkit instead: compare with them using --protocol matlab.",
    "matlab": "matlab protocol: the KAIST MATLAB devkit, as most papers report. The public "
              "leaderboard reads the curve differently: --protocol leaderboard gives its numbers.",
}


def percent(value: float) -> str:
    return f"{100 * value:.2f}"


def _grid(results: Sequence[Result]) -> tuple[list[tuple[str, str, str]], list[str], dict]:
    """Rows (method, protocol, setting), columns (splits) and the cell lookup, in first-seen order."""
    rows = list(dict.fromkeys((r.method, r.protocol, r.setting) for r in results))
    splits = list(dict.fromkeys(r.split for r in results))
    cells = {(r.method, r.protocol, r.setting, r.split): r for r in results}
    return rows, splits, cells


def _row_labels(results: Sequence[Result]) -> list[str]:
    """Which of method / protocol / setting vary, so that constant ones move to the title."""
    labels = ["method"]
    if len({r.protocol for r in results}) > 1:
        labels.append("protocol")
    if len({r.setting for r in results}) > 1:
        labels.append("setting")
    return labels


def to_json(results: Sequence[Result], with_curve: bool = False, findings: Sequence = ()) -> str:
    """``{"results": [...], "findings": [...]}``: a row per result, and what was found in the inputs
    (`kaist_kit.findings.Finding.to_dict`)."""
    return json.dumps({"results": [r.to_dict(with_curve) for r in results],
                       "findings": [f.to_dict() for f in findings]}, indent=1)


def to_csv(results: Sequence[Result]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    refs = results[0].fppi_refs if results else ()
    writer.writerow(["method", "protocol", "setting", "split", "lamr", "recall", "n_images", "n_gt"]
                    + [f"mr_at_{k + 1}" for k in range(len(refs))]
                    + [f"fppi_ref_{k + 1}" for k in range(len(refs))])
    for r in results:
        writer.writerow([r.method, r.protocol, r.setting, r.split, repr(r.lamr), repr(r.recall),
                         r.n_images, r.n_gt, *map(repr, r.miss_rates), *map(repr, r.fppi_refs)])
    return out.getvalue()


def to_markdown(results: Sequence[Result]) -> str:
    rows, splits, cells = _grid(results)
    labels = _row_labels(results)
    lines = ["| " + " | ".join(labels + splits) + " |",
             "|" + "|".join(["---"] * len(labels) + ["---:"] * len(splits)) + "|"]
    for method, protocol, setting in rows:
        values = {"method": method, "protocol": protocol, "setting": setting}
        row = [values[k] for k in labels]
        row += [percent(cells[(method, protocol, setting, s)].lamr) if (method, protocol, setting, s) in cells
                else "" for s in splits]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def title(results: Sequence[Result]) -> str:
    protocols = sorted({r.protocol for r in results})
    settings = list(dict.fromkeys(r.setting for r in results))
    parts = ["Log-average miss rate (%, lower is better)"]
    if len(protocols) == 1:
        parts.append(f"{protocols[0]} protocol")
    if len(settings) == 1:
        parts.append(settings[0])
    return ", ".join(parts)


def print_table(results: Sequence[Result], console, caption: str = "") -> None:
    from rich.table import Table

    rows, splits, cells = _grid(results)
    labels = _row_labels(results)
    table = Table(title=title(results), caption=caption or None, caption_justify="left")
    for label in labels:
        table.add_column(label)
    for split in splits:
        table.add_column(split, justify="right")
    for method, protocol, setting in rows:
        values = {"method": method, "protocol": protocol, "setting": setting}
        row = [values[k] for k in labels]
        for split in splits:
            r = cells.get((method, protocol, setting, split))
            row.append("" if r is None else percent(r.lamr))
        table.add_row(*row)
    console.print(table)


def protocol_notes(results: Sequence[Result]) -> list[str]:
    return [PROTOCOL_NOTE[p] for p in dict.fromkeys(r.protocol for r in results) if p in PROTOCOLS]
