"""Evaluation results as a terminal table, JSON, CSV or Markdown."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .evaluate import Result
from .settings import PROTOCOLS
from .tables import Table, percent

FORMATS = ("table", "json", "csv", "markdown")

PROTOCOL_NOTE = {
    "leaderboard": "leaderboard protocol: the numbers the public KAIST leaderboard gives. Most papers "
                   "quote the MATLAB devkit instead: compare with them using --protocol matlab.",
    "matlab": "matlab protocol: the KAIST MATLAB devkit, as most papers report. The public "
              "leaderboard reads the curve differently: --protocol leaderboard gives its numbers.",
}


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


def to_json(results: Sequence[Result], with_curve: bool = False) -> str:
    return json.dumps([r.to_dict(with_curve) for r in results], indent=1)


def to_csv(results: Sequence[Result]) -> str:
    refs = results[0].fppi_refs if results else ()
    headers = (["method", "protocol", "setting", "split", "lamr", "recall", "n_images", "n_gt"]
               + [f"mr_at_{k + 1}" for k in range(len(refs))] + [f"fppi_ref_{k + 1}" for k in range(len(refs))])
    rows = [[r.method, r.protocol, r.setting, r.split, repr(r.lamr), repr(r.recall), str(r.n_images), str(r.n_gt),
             *map(repr, r.miss_rates), *map(repr, r.fppi_refs)] for r in results]
    return Table("", headers, rows).to_csv()


def lamr_table(results: Sequence[Result], caption: str = "") -> Table:
    """A row per method (and protocol and setting, where they vary), a column per split."""
    rows, splits, cells = _grid(results)
    labels = _row_labels(results)
    body = []
    for method, protocol, setting in rows:
        values = {"method": method, "protocol": protocol, "setting": setting}
        row = [values[k] for k in labels]
        for split in splits:
            r = cells.get((method, protocol, setting, split))
            row.append("" if r is None else percent(r.lamr))
        body.append(row)
    return Table(title(results), labels + splits, body, caption, label_columns=len(labels))


def to_markdown(results: Sequence[Result]) -> str:
    return lamr_table(results).to_markdown() + "\n"


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
    console.print(lamr_table(results, caption).to_rich())


def protocol_notes(results: Sequence[Result]) -> list[str]:
    return [PROTOCOL_NOTE[p] for p in dict.fromkeys(r.protocol for r in results) if p in PROTOCOLS]
