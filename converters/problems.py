"""Collecting what is wrong with the input while a conversion keeps going."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from kaist_kit.errors import quantity, where

# Kinds that only describe the input's surroundings: they never change the output, so --strict
# does not fail on them.
NOTES = {
    "stray file",
    "no annotation file",
    "folder link",
    "broken link",
    # The other benchmarks' rules, as their evaluations apply them (FLIR-aligned's dog boxes, CVC-14's
    # frames annotated in one modality), and what a COCO file's reader read under another name.
    "dropped label",
    "one modality only",
    "reader note",
    "unnamed frame",
}
# Kinds found while the files of any format are located and chosen, before they are read.
LOCATING = frozenset(
    {"stray file", "no annotation file", "missing frame", "folder link", "broken link", "outside link"}
)


@dataclass(frozen=True)
class Finding:
    """What a conversion says about its source as a whole (it looks like another format, it gives no
    box): returned with the conversion for the CLI to print, and a failure under --strict."""

    code: str  # stable, as printed in brackets
    message: str
    path: str | None = None  # what it is about

    @property
    def text(self) -> str:
        return f"[{self.code}] {self.message}"

    def __str__(self) -> str:
        return f"[{self.code}] {where(self.path)}: {self.message}" if self.path else self.text


class Problems:
    """Problems found in the input: each is echoed as one line (the first ``limit`` of each kind),
    starting with "problem:" or, for the kinds in NOTES, "note:"."""

    def __init__(self, echo: Callable[[str], None] | None = None, limit: int = 20):
        self.echo = echo
        self.limit = limit
        self.counts: Counter[str] = Counter()
        self.records: list[tuple[str, str]] = []  # (kind, one-line text), in the order found

    def add(self, kind: str, message: str, path: str | None = None, line: int | None = None) -> None:
        self.extend([(kind, f"{where(path, line)}: {message}" if path else message)])

    def extend(self, records: list[tuple[str, str]]) -> None:
        """Record problems (also those found in a worker process), echoing them here."""
        for kind, text in records:
            self.counts[kind] += 1
            self.records.append((kind, text))
            if self.echo and self.counts[kind] <= self.limit:
                self.echo(f"{'note' if kind in NOTES else 'problem'}: {text}")

    @property
    def failing(self) -> int:
        """How many problems changed or dropped annotation content (what --strict rejects)."""
        return sum(n for kind, n in self.counts.items() if kind not in NOTES)

    def summary(self) -> str:
        if not self.counts:
            return "no problems found"
        parts = [quantity(n, kind) for kind, n in sorted(self.counts.items())]
        hidden = sum(max(0, n - self.limit) for n in self.counts.values())
        tail = f" ({hidden} not shown)" if hidden and self.echo else ""
        return ", ".join(parts) + tail

    def as_dict(self) -> dict[str, int]:
        return dict(sorted(self.counts.items()))
