"""The columns of a hosted leaderboard: which number each shows, its label, its sort order and what it means.

A column is one number of `kaist-kit eval`: a metric (LAMR, AP50, ...) of a setting and a split
under a protocol, shown in percent as the kit's tables show it. The EvalAI bundle, the Codabench
bundle and the scorer that runs on their workers all build their columns here from the same
`ColumnSpec`, so that the labels the configuration declares are the labels the scorer returns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..datasets import kaist_parse_split
from ..metrics.settings import PROTOCOLS, SPLITS, get_protocol, get_setting
from ..metrics.spec import LAMR, MISS_RATE, get_metric, names_of

# How a protocol is named in a label when a leaderboard shows both.
PROTOCOL_TAGS = {"leaderboard": "leaderboard", "matlab": "devkit"}
PROTOCOL_NAMES = {
    "leaderboard": "the public KAIST leaderboard's protocol",
    "matlab": "the MATLAB devkit's protocol (as most papers report)",
}
SPLIT_TEXT = {"all": "all test images", "day": "the day images", "night": "the night images"}


@dataclass(frozen=True)
class Column:
    metric: str  # a metric's name (kaist_kit.metrics.spec)
    setting: str
    split: str
    protocol: str
    label: str  # the leaderboard's column name, and the key of the number in EvalAI's result
    key: str  # an identifier for it (Codabench's scores.json)
    description: str

    @property
    def lower_is_better(self) -> bool:
        return get_metric(self.metric).lower_is_better


@dataclass(frozen=True)
class ColumnSpec:
    """What a leaderboard shows: every metric of every setting and split, under each protocol.

    LAMR always comes first, and the first column (LAMR, first setting, first split, first protocol)
    is the default order: reasonable / all, leaderboard protocol, unless told otherwise."""

    metrics: tuple[str, ...] = (LAMR.name,)
    settings: tuple[str, ...] = ("reasonable",)
    splits: tuple[str, ...] = SPLITS
    protocols: tuple[str, ...] = ("leaderboard",)

    def __post_init__(self) -> None:
        metrics = tuple(dict.fromkeys((LAMR.name, *self.metrics)))
        for name in metrics:
            if name not in names_of(MISS_RATE):
                raise ValueError(f"unknown metric {name!r}; choose from {', '.join(names_of(MISS_RATE))}")
        for name in self.protocols:
            get_protocol(name)
        for name in self.splits:
            kaist_parse_split(name)
        settings = tuple(dict.fromkeys(get_setting(s).name for s in self.settings))
        if not (settings and self.splits and self.protocols):
            raise ValueError("a leaderboard needs at least one setting, split and protocol")
        object.__setattr__(self, "metrics", metrics)
        object.__setattr__(self, "settings", settings)
        object.__setattr__(self, "splits", tuple(dict.fromkeys(self.splits)))
        object.__setattr__(self, "protocols", tuple(dict.fromkeys(self.protocols)))

    def to_dict(self) -> dict:
        return {
            "metrics": list(self.metrics),
            "settings": list(self.settings),
            "splits": list(self.splits),
            "protocols": list(self.protocols),
        }

    @classmethod
    def from_dict(cls, data: dict) -> ColumnSpec:
        return cls(tuple(data["metrics"]), tuple(data["settings"]), tuple(data["splits"]), tuple(data["protocols"]))

    def grid(self):
        """What a result is scored on to fill these columns (a `kaist_kit.metrics.evaluate.ScoreGrid`)."""
        from ..metrics.evaluate import ScoreGrid

        return ScoreGrid(self.settings, self.splits, self.protocols, metrics=self.metrics)

    def columns(self) -> list[Column]:
        columns = []
        for protocol in self.protocols:
            for setting in self.settings:
                for metric in self.metrics:
                    for split in self.splits:
                        label = self._label(metric, setting, split, protocol)
                        columns.append(
                            Column(
                                metric,
                                setting,
                                split,
                                protocol,
                                label,
                                column_key(label),
                                describe(metric, setting, split, protocol),
                            )
                        )
        return columns

    def _label(self, metric: str, setting: str, split: str, protocol: str) -> str:
        parts = [get_metric(metric).label]
        if len(self.settings) > 1 or setting != "reasonable":
            parts.append(setting)
        parts.append(split)
        label = " ".join(parts)
        return f"{label} ({PROTOCOL_TAGS.get(protocol, protocol)})" if len(self.protocols) > 1 else label


def column_key(label: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def describe(metric: str, setting: str, split: str, protocol: str) -> str:
    """What a column's number is, in one sentence that names everything it depends on."""
    where = SPLIT_TEXT.get(split, f"the {split} images")
    spec = get_metric(metric)
    better = "lower is better" if spec.lower_is_better else "higher is better"
    return (
        f"{spec.column} (%), {setting} pedestrians ({get_setting(setting).description}), "
        f"{where}, {PROTOCOL_NAMES.get(protocol, PROTOCOLS[protocol].description)}; {better}"
    )
