"""What an organiser chooses for a hosted challenge: its title, its phases and its columns."""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field

from .. import __version__
from .columns import ColumnSpec
from .scoring import CONFIG_FORMAT

DEFAULT_TITLE = "KAIST multispectral pedestrian detection"
DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
# A phase given without dates is open for good, as a standing benchmark is.
OPEN_START, OPEN_END = "2000-01-01", "2099-12-31"
SPLIT_CODENAME = "test_split"


@dataclass(frozen=True)
class Phase:
    name: str
    codename: str
    start: str  # "YYYY-MM-DD HH:MM:SS", UTC
    end: str


def parse_phase(text: str) -> Phase:
    """``NAME`` or ``NAME:START:END`` with dates ``YYYY-MM-DD`` (a phase opens at 00:00:00 of its start
    and closes at 23:59:59 of its end, UTC); a ValueError says what is wrong."""
    name, *dates = [part.strip() for part in text.split(":")]
    if not name or len(dates) not in (0, 2):
        raise ValueError(f"a phase is NAME or NAME:START:END with dates YYYY-MM-DD, not {text!r}")
    start, end = dates or (OPEN_START, OPEN_END)
    try:
        begin = dt.datetime.strptime(start, "%Y-%m-%d")
        finish = dt.datetime.strptime(end, "%Y-%m-%d").replace(hour=23, minute=59, second=59)
    except ValueError:
        raise ValueError(f"the dates of phase {name!r} must read YYYY-MM-DD, not {start!r} and {end!r}") from None
    if finish < begin:
        raise ValueError(f"phase {name!r} ends ({end}) before it starts ({start})")
    codename = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "phase"
    return Phase(name, codename, begin.strftime(DATE_FORMAT), finish.strftime(DATE_FORMAT))


def printable(text: str) -> str:
    """``text`` as UTF-8 can write it: a byte of a name or an argument that is not UTF-8 (which Python
    holds as a lone surrogate, os.fsdecode's) becomes U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@dataclass
class HostOptions:
    title: str = DEFAULT_TITLE
    phases: list[Phase] = field(default_factory=lambda: [parse_phase("test")])
    spec: ColumnSpec = field(default_factory=ColumnSpec)

    def __post_init__(self) -> None:
        self.title = printable(self.title)
        if not self.title.strip():
            raise ValueError("the challenge needs a title")
        if not self.phases:
            raise ValueError("a challenge needs at least one phase")
        codenames = [p.codename for p in self.phases]
        if len(set(codenames)) < len(codenames):
            raise ValueError(f"two phases share the codename {next(c for c in codenames if codenames.count(c) > 1)!r}")
        for before, after in zip(self.phases, self.phases[1:]):
            if after.start <= before.end:
                raise ValueError(
                    f"phase {after.name!r} starts before phase {before.name!r} ends: phases follow one another"
                )


def scorer_config(options: HostOptions, reference: str) -> bytes:
    """challenge.json, which the scorer on the worker reads: the columns, the phases' splits, the
    reference file's name."""
    data = {
        "kaist_kit_challenge": CONFIG_FORMAT,
        "kit_version": __version__,
        "columns": options.spec.to_dict(),
        "labels": [c.label for c in options.spec.columns()],  # what the scorer returns, checked when it reads this
        "phases": {p.codename: {"name": p.name, "split": SPLIT_CODENAME} for p in options.phases},
        "reference": reference,
    }
    return (json.dumps(data, indent=1) + "\n").encode()
