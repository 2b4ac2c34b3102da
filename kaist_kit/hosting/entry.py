"""One entry of a leaderboard site: what was scored, as the cache keeps it and the pages show it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Entry:
    name: str
    source: str  # the file or folder's name in the submissions folder
    digest: str  # what the cache is keyed by
    page: str  # the entry's page, relative to the site
    verdict: str = ""  # submit --check's (correct, mis-score, crash), or refused when the kit refuses the file
    verdict_text: str = ""
    refused: str = ""  # the kit's one line, when it does not score the entry
    values: dict[str, float | None] = field(default_factory=dict)  # by column label, fractions
    findings: list[str] = field(default_factory=list)
    curves: dict[str, list] = field(default_factory=dict)  # "protocol/split" -> [[fppi, miss rate], ...]

    def to_dict(self) -> dict:
        return dict(self.__dict__)
