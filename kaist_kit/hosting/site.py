"""The leaderboard site's pages: plain HTML with its style and a few lines of script inline, nothing
fetched, so that the folder can be opened from disk or served by any static host.

The table's cells are the numbers `kaist-kit eval` prints (percent, two decimals, `tables.percent`);
each cell keeps the full value for sorting. Clicking a column's header sorts by it (a miss rate
lowest first, an AP highest first; again for the other way), entries without a number last.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

from .. import __version__
from ..data.groundtruth import GroundTruth
from ..errors import percent
from ..io.write import write_text_atomic
from .columns import ColumnSpec
from .entry import Entry
from .options import printable
from .svg import curves_svg

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
th.label, td.label { text-align: left; }
td.wrap { white-space: normal; min-width: 16rem; }
td.name { white-space: normal; max-width: 16rem; overflow-wrap: anywhere; }
h1 { overflow-wrap: anywhere; }
thead th { cursor: pointer; user-select: none; background: #f4f4f4; position: sticky; top: 0;
  white-space: normal; max-width: 7.5rem; vertical-align: bottom; }
thead th[aria-sort=ascending]::after { content: " \\25B2"; }
thead th[aria-sort=descending]::after { content: " \\25BC"; }
tr.refused td { color: #888; }
.verdict-correct { color: #0a6e31; }
.verdict-mis-score, .verdict-crash, .verdict-refused { color: #b3261e; font-weight: 600; }
.note { color: #555; font-size: .9rem; } code { background: #f4f4f4; padding: 0 .2rem; }
svg.curves { font-size: 11px; } svg .grid { stroke: #e4e4e4; } svg .frame { fill: none; stroke: #888; }
svg .curve { fill: none; stroke-width: 2; } svg .title { font-size: 13px; font-weight: 600; }
.curves-row { display: flex; flex-wrap: wrap; gap: 1rem; }
ul.findings li { margin-bottom: .4rem; }
"""

SCRIPT = """
(function () {
  var table = document.getElementById("leaderboard");
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  function key(row, k) {
    var v = row.cells[k].getAttribute("data-value");
    return v === null || v === "" ? null : parseFloat(v);
  }
  function sortBy(k) {
    var th = heads[k];
    var current = th.getAttribute("aria-sort");
    var ascending = current ? current !== "ascending" : th.getAttribute("data-lower") === "1";
    var rows = Array.prototype.slice.call(body.rows);
    if (th.getAttribute("data-text") === "1") {
      rows.sort(function (a, b) {
        var x = a.cells[k].textContent, y = b.cells[k].textContent;
        return ascending ? x.localeCompare(y) : y.localeCompare(x);
      });
    } else {
      rows.sort(function (a, b) {
        var x = key(a, k), y = key(b, k);
        if (x === null && y === null) { return 0; }
        if (x === null) { return 1; }
        if (y === null) { return -1; }
        return ascending ? x - y : y - x;
      });
    }
    for (var i = 0; i < heads.length; i++) { heads[i].removeAttribute("aria-sort"); }
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(heads, function (th, k) {
    th.addEventListener("click", function () { sortBy(k); });
  });
})();
"""


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _ranked(entries: list[Entry], first: str) -> list[Entry]:
    def order(entry: Entry):
        value = entry.values.get(first)
        return (value is None, value if value is not None else math.inf, entry.name)

    return sorted(entries, key=order)


def index_html(title: str, gt: GroundTruth, spec: ColumnSpec, entries: list[Entry], top: int) -> str:
    columns = spec.columns()
    first = columns[0].label
    ranked = _ranked(entries, first)
    head = [
        '<th class="label" data-value="" data-lower="1">#</th>',
        '<th class="label" data-text="1">entry</th>',
        '<th class="label" data-text="1">check</th>',
    ]
    head += [
        f'<th data-lower="{int(c.lower_is_better)}" title="{html.escape(c.description)}">{html.escape(c.label)}</th>'
        for c in columns
    ]
    rows = []
    for rank, entry in enumerate(ranked, 1):
        number = rank if not entry.refused and entry.values.get(first) is not None else ""
        cells = [
            f'<td class="label" data-value="{number}">{number}</td>',
            f'<td class="label name"><a href="{html.escape(entry.page)}">{html.escape(entry.name)}</a></td>',
            f'<td class="label verdict-{html.escape(entry.verdict)}" title="{html.escape(entry.verdict_text)}">'
            f"{html.escape(entry.verdict or '')}</td>",
        ]
        if entry.refused:
            cells += [
                '<td data-value="">refused</td>' if k == 0 else '<td data-value=""></td>' for k in range(len(columns))
            ]
        else:
            for c in columns:
                value = entry.values.get(c.label)
                cells.append(f'<td data-value="{"" if value is None else repr(value)}">{percent(value)}</td>')
        row_class = ' class="refused"' if entry.refused else ""
        rows.append(f"<tr{row_class}>" + "".join(cells) + "</tr>")
    leaders = [e for e in ranked if not e.refused and e.values.get(first) is not None][:top]
    curves = curves_svg(
        [(f"{percent(e.values[first])} {e.name}", e.curves.get(f"{spec.protocols[0]}/all", [])) for e in leaders],
        f"MR-FPPI, {spec.settings[0]}, all, {spec.protocols[0]} protocol",
    )
    body = f"""<h1>{html.escape(title)}</h1>
<p class="note">Ground truth: {html.escape(gt.describe())}. Scored by kaist-kit {__version__}: every number is the
one <code>kaist-kit eval</code> prints, in percent ({", ".join(sorted({c.metric.upper() for c in columns}))};
{spec.settings[0]} setting). Ranked by {html.escape(first)}; click a column's header to sort by it.
"check" is what <code>kaist-kit submit --check</code> says of the file as uploaded.</p>
<table id="leaderboard">
<thead><tr>{"".join(head)}</tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
</table>
<h2>The {len(leaders)} leading entries</h2>
{curves}
<script>{SCRIPT}</script>"""
    return _page(title, body)


def entry_html(title: str, gt: GroundTruth, spec: ColumnSpec, entry: Entry) -> str:
    parts = [
        f'<p><a href="../index.html">{html.escape(title)}</a></p>',
        f"<h1>{html.escape(entry.name)}</h1>",
        f"<p>File: <code>{html.escape(entry.source)}</code>. Check: "
        f'<span class="verdict-{html.escape(entry.verdict)}">{html.escape(entry.verdict)}</span> '
        f"({html.escape(entry.verdict_text)}).</p>",
    ]
    if entry.refused:
        parts.append(f"<p><strong>Not scored:</strong> {html.escape(entry.refused)}</p>")
    else:
        rows = "\n".join(
            f'<tr><td class="label">{html.escape(c.label)}</td><td>{percent(entry.values.get(c.label))}'
            f'</td><td class="label note wrap">{html.escape(c.description)}</td></tr>'
            for c in spec.columns()
        )
        parts.append(
            f'<table><thead><tr><th class="label">column</th><th>%</th><th class="label">what it is</th>'
            f"</tr></thead><tbody>\n{rows}\n</tbody></table>"
        )
        svgs = [
            curves_svg(
                [(split, entry.curves.get(f"{protocol}/{split}", [])) for split in spec.splits],
                f"MR-FPPI, {spec.settings[0]}, {protocol} protocol",
            )
            for protocol in spec.protocols
        ]
        parts.append('<h2>Curves</h2>\n<div class="curves-row">' + "\n".join(svgs) + "</div>")
    parts.append("<h2>Findings</h2>")
    if entry.findings:
        parts.append('<ul class="findings">' + "".join(f"<li>{html.escape(f)}</li>" for f in entry.findings) + "</ul>")
    else:
        parts.append("<p>None: nothing in the file looks wrong.</p>")
    parts.append(f'<p class="note">Ground truth: {html.escape(gt.describe())}; kaist-kit {__version__}.</p>')
    return _page(f"{entry.name}: {title}", "\n".join(parts))


def write_pages(out: Path, title: str, gt: GroundTruth, spec: ColumnSpec, entries: list[Entry], top: int) -> None:
    """The pages, in UTF-8 (a name that is not, a file's or the ground truth's, with U+FFFD for its bytes)."""
    for entry in entries:
        write_text_atomic(out / entry.page, printable(entry_html(title, gt, spec, entry)))
    write_text_atomic(out / "index.html", printable(index_html(title, gt, spec, entries, top)))
