"""Tables as the kit prints and writes them: on the terminal (rich), in Markdown, CSV and plain text.

A `Table` is data: a title, column headers, rows of cells already written as text, and a note. Its
first ``label_columns`` columns name the row and are aligned left; the others hold numbers and are
aligned right. A table without headers is a list of named values: its names are printed bold.
`kaist-kit eval`, `stats`, `diagnose`, `compare` and the submission reports all print through it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..errors import percent


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]
    note: str = ""
    label_columns: int = 1

    def to_markdown(self) -> str:
        """A Markdown table (without title or note), with no newline at the end."""
        n = len(self.headers)
        lines = [
            "| " + " | ".join(self.headers) + " |",
            "|" + "|".join(["---"] * min(self.label_columns, n) + ["---:"] * (n - self.label_columns)) + "|",
        ]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        return "\n".join(lines)

    def to_csv(self) -> str:
        """The headers and rows as CSV (without title or note), a newline after each line."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        if self.headers:
            writer.writerow(self.headers)
        writer.writerows(self.rows)
        return out.getvalue()

    def to_text(self, indent: int = 2, widths: Sequence[int] = ()) -> str:
        """The title, then the header and the rows indented, each column padded to a width: ``widths``
        in order (the last one for every further column), else its longest cell and two spaces. A
        cell wider than its column runs over, as in a format string. No newline at the end."""

        def width(k: int) -> int:
            if widths:
                return widths[min(k, len(widths) - 1)]
            return max(len(row[k]) for row in [self.headers, *self.rows] if k < len(row)) + 2

        def line(cells: Sequence[str]) -> str:
            return " " * indent + "".join(
                cell.ljust(width(k)) if k < self.label_columns else cell.rjust(width(k)) for k, cell in enumerate(cells)
            )

        lines = [self.title] if self.title else []
        if self.headers:
            lines.append(line(self.headers))
        lines += [line(row) for row in self.rows]
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)

    def to_rich(self, light: bool = False):
        """A rich table, the note as its caption. ``light``: thin rules and no padding, so that a table
        of intervals stays within an 80-column terminal."""
        from rich import box
        from rich.table import Table as RichTable

        caption = self.note or None
        if light:
            table = RichTable(
                title=self.title,
                caption=caption,
                caption_justify="left",
                title_justify="left",
                box=box.SIMPLE_HEAD,
                padding=(0, 0),
                pad_edge=False,
                show_edge=False,
            )
        elif not self.headers:
            table = RichTable(
                title=self.title, caption=caption, caption_justify="left", title_justify="left", show_header=False
            )
        else:
            table = RichTable(title=self.title, caption=caption, caption_justify="left")
        n_columns = len(self.headers) or max((len(row) for row in self.rows), default=0)
        for k in range(n_columns):
            table.add_column(
                self.headers[k] if self.headers else "",
                justify="left" if k < self.label_columns else "right",
                style="bold" if not self.headers and k == 0 else None,
                overflow="fold" if k < self.label_columns else "ellipsis",
            )  # names stay whole
        for row in self.rows:
            table.add_row(*row)
        return table


def print_tables(tables: Sequence[Table], console, light: bool = False) -> None:
    """Each table within the console's width (80 columns where it cannot tell): its title above it and
    its note below it as lines wrapped to that width, not to the table's."""
    for table in tables:
        if table.title:
            console.print(table.title, soft_wrap=False, markup=False, highlight=False)
        console.print(replace(table, title="", note="").to_rich(light), soft_wrap=False)
        if table.note:
            console.print(table.note, soft_wrap=False, markup=False, highlight=False)


def markdown_sections(tables: Sequence[Table]) -> list[str]:
    """Lines of Markdown: each table under its title as a heading, its note below it."""
    lines = []
    for table in tables:
        lines += [f"## {table.title}", "", table.to_markdown(), ""]
        if table.note:
            lines += [table.note, ""]
    return lines


def flatten(value, path: str = "") -> list[tuple[str, str]]:
    """(key path, value) of every number and string in JSON-like data, as CSV cells: keys joined by
    dots, list items numbered from 0, floats written exactly (repr), None as an empty cell."""
    if isinstance(value, dict):
        return [item for key, v in value.items() for item in flatten(v, f"{path}.{key}" if path else str(key))]
    if isinstance(value, (list, tuple)):
        return [item for k, v in enumerate(value) for item in flatten(v, f"{path}.{k}" if path else str(k))]
    return [(path, "" if value is None else repr(value) if isinstance(value, float) else str(value))]


def with_interval(value: float, interval: tuple[float, float]) -> str:
    """'8.13 [6.71, 9.62]': a fraction and its interval, as percentages."""
    return f"{percent(value)} [{percent(interval[0])}, {percent(interval[1])}]"
