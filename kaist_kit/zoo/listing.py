"""`kaist-kit zoo`: every entry with its file, reading, licence, the kit's numbers under both protocols and
the numbers its authors quote, and whether those agree."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..data.detections import RESULT_FORMATS
from ..output.tables import Table, markdown_sections
from .specs import PROTOCOLS, SPLITS, Entry, Quote, Reading
from .store import is_kept, local_path


def reading_text(reading: Reading | None) -> str:
    """The format as the listing names it: 'leaderboard txt, night images alone'."""
    if reading is None:
        return "not read"
    spec = RESULT_FORMATS[reading.format]
    parts = [spec.title]
    if spec.devkit_shift:
        parts.append("the devkit's +1 on x and y" if reading.devkit_shift else "as written")
    if reading.period:
        parts.append(f"{reading.period} images alone")
    if reading.frame_ids:
        parts.append("frame names as ids")
    return ", ".join(parts)


def cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def triple(values) -> str:
    """'8.13 / 8.28 / 7.86'."""
    return " / ".join(cell(v) for v in values)


def agreement(entry: Entry, quote: Quote) -> str:
    """Which of the kit's protocols gives the quoted numbers, rounded as quoted: 'leaderboard', 'matlab',
    'both', 'day: matlab; all, night: both', or what differs."""
    if not entry.kit:
        return "not computed"
    by_split = {}
    for k, split in enumerate(SPLITS):
        quoted = quote.numbers[k]
        if quoted is None or entry.kit[PROTOCOLS[0]][k] is None:
            continue
        same = [p for p in PROTOCOLS if round(entry.kit[p][k], 2) == quoted]
        by_split[split] = "both" if len(same) == len(PROTOCOLS) else same[0] if same else "differs"
    shared = [p for p in PROTOCOLS if by_split and all(v in (p, "both") for v in by_split.values())]
    if shared:
        return "= both" if len(shared) == len(PROTOCOLS) else f"= {shared[0]}"
    groups: dict[str, list[str]] = {}
    for split, verdict in by_split.items():
        groups.setdefault(verdict, []).append(split)
    return "; ".join(
        f"{', '.join(splits)} {verdict if verdict == 'differs' else '= ' + verdict}"
        for verdict, splits in groups.items()
    )


@dataclass
class ZooListing:
    """The entries, as `kaist-kit zoo` prints them."""

    entries: tuple[Entry, ...]
    details: bool = True
    light: bool = field(default=True, repr=False)

    def rows(self) -> list[dict]:
        return [self.row(e) for e in self.entries]

    def row(self, e: Entry) -> dict:
        return {
            "name": e.name,
            "method": e.method,
            "venue": e.venue,
            "repository": e.file.repo,
            "commit": e.file.commit,
            "path": e.file.path,
            "object_id": e.file.object_id,
            "size": e.file.size,
            "files": e.file.files or None,
            "url": e.file.page,
            "format": reading_text(e.reading),
            "covers": list(e.reading.covers) if e.reading else [],
            "quirks": list(e.quirks),
            "licence": e.licence,
            "kit": {p: dict(zip(SPLITS, e.kit[p])) for p in e.kit},
            "quotes": [
                {"source": q.source, "said": q.said or None, **dict(zip(SPLITS, q.numbers)), "agrees": agreement(e, q)}
                for q in e.quotes
            ],
            "note": e.note,
            "refused": e.refused,
            "copies": [c.where for c in e.copies],
            "kept": str(local_path(e.file)) if is_kept(e.file) else None,
        }

    def numbers_table(self) -> Table:
        rows = []
        for e in self.entries:
            quotes = self._quotes(e)
            if e.kit:
                numbers = [cell(v) for p in PROTOCOLS for v in e.kit[p]]
            else:
                numbers = ["not read" if not e.readable else "not computed"] + [""] * 5
            rows.append(
                [
                    e.name,
                    e.venue,
                    *numbers,
                    "; ".join(triple(q.numbers) for q in quotes) or "-",
                    "; ".join(agreement(e, q) for q in quotes),
                ]
            )
        return Table(
            "Published KAIST results: reasonable log-average miss rate (%)",
            ["entry", "venue", *(f"{p[:2]} {s}" for p in PROTOCOLS for s in SPLITS), "quoted", "which"],
            rows,
            note="le: the leaderboard's evaluation script (MLPD's, the public leaderboard's); ma: the KAIST MATLAB "
            "devkit, as most papers report. Each number is the kit's on the pinned file; quoted: all / day / night "
            "as the authors' README prints them, and which protocol gives them. `kaist-kit zoo` says where each file "
            "is and why a quote differs; `kaist-kit eval zoo:NAME` scores one.",
            label_columns=2,
        )

    @staticmethod
    def _quotes(e: Entry) -> list[Quote]:
        """The quotes, one per distinct set of numbers (several READMEs quote the same)."""
        seen, kept = set(), []
        for q in e.quotes:
            if q.numbers not in seen:
                seen.add(q.numbers)
                kept.append(q)
        return kept

    def files_table(self) -> Table:
        rows = [
            [
                e.name,
                f"{e.file.repo}@{e.file.commit[:7]}",
                e.file.path + ("/" if e.file.folder else ""),
                reading_text(e.reading),
                e.licence,
            ]
            for e in self.entries
        ]
        return Table("Their files", ["entry", "repository", "path", "read as", "licence"], rows, label_columns=5)

    def tables(self) -> list[Table]:
        return [self.numbers_table()] + ([self.files_table()] if self.details else [])

    def detail_lines(self, e: Entry) -> list[str]:
        lines = [f"{e.name}: {e.method} ({e.venue}), {e.file.page}"]
        size = (
            f"{e.file.files} files" if e.file.folder else (f"{e.file.size} bytes" if e.file.size else "size not listed")
        )
        lines.append(f"  git object {e.file.object_id}, {size}; read as {reading_text(e.reading)}; licence {e.licence}")
        lines += [f"  quirk: {q}" for q in e.quirks]
        for q in e.quotes:
            lines.append(f"  quoted {triple(q.numbers)} by the {q.source}: {agreement(e, q)}")
        if e.note:
            lines.append(f"  why: {e.note}")
        if e.refused:
            lines.append(f"  not read: {e.refused}")
        lines += [f"  also at {c.where}" for c in e.copies]
        return lines

    def lines(self) -> list[str]:
        if not self.details:
            return []
        return [line for e in self.entries for line in self.detail_lines(e)]

    def to_json(self) -> dict:
        return {"entries": self.rows()}

    def to_csv(self) -> str:
        table = self.numbers_table()
        return table.to_csv()

    def to_markdown(self) -> str:
        return "\n".join(markdown_sections(self.tables())) + "\n"
