"""Several methods side by side: LAMR with bootstrap intervals, and paired tests of their differences.

Every method is resampled on the same images (the draw depends only on the seed and the split), so
the difference between two methods is measured on the same resampled test sets: the paired test.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    LEVEL,
    PairedTest,
    bootstrap_intervals,
    paired_test,
)
from .detections import Detections
from .evaluate import Evaluation, Result, warn_leaderboard_input
from .groundtruth import GroundTruth
from .settings import LEADERBOARD_SETTINGS, MATLAB_SETTINGS, SPLITS, get_protocol, get_setting
from .tables import Table, flatten, markdown_sections, with_interval


def default_settings(protocol: str) -> tuple[str, ...]:
    """The settings each protocol's own tables show."""
    return LEADERBOARD_SETTINGS if protocol == "leaderboard" else MATLAB_SETTINGS


@dataclass
class Scored:
    result: Result
    interval: tuple[float, float]
    resampled: np.ndarray


@dataclass
class Difference:
    a: str
    b: str
    setting: str
    split: str
    test: PairedTest

    def sentence(self) -> str:
        """'A is better than B on reasonable night: ...', the one with the lower LAMR named first; a
        difference with p >= 0.05 is said to be not significant."""
        t = self.test
        if t.difference == 0:
            return f"{self.a} and {self.b} tie on {self.setting} {self.split}, p = {t.p_value:.3g}"
        if t.difference < 0:
            better, worse, low, high = self.a, self.b, t.low, t.high
        else:
            better, worse, low, high = self.b, self.a, -t.high, -t.low
        # Only a difference the paired test supports is called "better".
        verdict = "is better than" if t.p_value < 0.05 else "scores lower than, not significantly,"
        return (f"{better} {verdict} {worse} on {self.setting} {self.split}: LAMR difference "
                f"{-100 * abs(t.difference):+.2f} points [{100 * low:+.2f}, {100 * high:+.2f}], p = {t.p_value:.3g}")

    def to_dict(self) -> dict:
        t = self.test
        return {"a": self.a, "b": self.b, "setting": self.setting, "split": self.split,
                "difference": t.difference, "interval": [t.low, t.high], "p_value": t.p_value}


@dataclass
class Comparison:
    methods: list[str]
    protocol: str
    settings: list[str]
    splits: list[str]
    resamples: int
    seed: int
    level: float
    scores: dict[tuple[str, str, str], Scored]  # (method, setting, split)
    differences: list[Difference]

    def results(self) -> list[Result]:
        return [s.result for s in self.scores.values()]

    def to_dict(self) -> dict:
        return {
            "protocol": self.protocol,
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "level": self.level,
                          "interval": "percentile", "test": "paired, two-sided"},
            "methods": {m: {s: {split: {"lamr": self.scores[(m, s, split)].result.lamr,
                                        "interval": list(self.scores[(m, s, split)].interval)}
                                for split in self.splits} for s in self.settings} for m in self.methods},
            "differences": [d.to_dict() for d in self.differences],
        }


def compare(gt: GroundTruth, methods: Sequence[tuple[str, Detections]], protocol: str = "leaderboard",
            settings: Iterable[str] | None = None, splits: Iterable[str] = SPLITS,
            resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = LEVEL) -> Comparison:
    """Score each method with an interval per setting and split, and test every pair of methods."""
    proto = get_protocol(protocol)
    settings = list(dict.fromkeys(settings or default_settings(proto.name)))
    for name in settings:
        get_setting(name)
    splits = list(dict.fromkeys(splits))
    names = [name for name, _ in methods]
    if len(set(names)) < len(names):
        raise ValueError("method names must differ")
    evaluations = []
    for name, dets in methods:
        evaluation = Evaluation(gt, dets, settings, name)
        if proto.name == "leaderboard":
            warn_leaderboard_input(evaluation, dets)
        evaluations.append(evaluation)

    scores: dict[tuple[str, str, str], Scored] = {}
    bootstraps = bootstrap_intervals(evaluations, settings, splits, proto, resamples, seed, level)
    for split in splits:
        for evaluation, bootstrap in zip(evaluations, bootstraps):
            for setting in settings:
                resampled = bootstrap[(setting, split)]
                scores[(evaluation.method, setting, split)] = Scored(evaluation.score(setting, split, proto),
                                                                     resampled.interval, resampled.lamrs)
    differences = []
    for a, b in itertools.combinations(names, 2):
        for setting in settings:
            for split in splits:
                x, y = scores[(a, setting, split)], scores[(b, setting, split)]
                test = paired_test(x.result.lamr, y.result.lamr, x.resampled, y.resampled, level)
                differences.append(Difference(a, b, setting, split, test))
    return Comparison(names, proto.name, settings, splits, resamples, seed, level, scores, differences)


def comparison_table(comparison: Comparison) -> Table:
    """A row per setting and split, a column per method; with two methods, their paired test too."""
    c = comparison
    pair = len(c.methods) == 2
    tests = {(d.setting, d.split): d.test for d in c.differences}
    headers = ["setting", "split"] + c.methods + (["p"] if pair else [])
    rows = []
    for setting in c.settings:
        for split in c.splits:
            row = [setting, split] + [with_interval(c.scores[(m, setting, split)].result.lamr,
                                                    c.scores[(m, setting, split)].interval) for m in c.methods]
            if pair:
                t = tests[(setting, split)]
                row.append(f"{t.p_value:.3g}")
            rows.append(row)
    return Table(f"LAMR (%), {c.protocol} protocol, with {100 * c.level:g} % intervals", headers, rows,
                 f"Percentile intervals from {c.resamples} image-level bootstrap resamples (seed {c.seed}); "
                 "every method is resampled on the same images" + (", and p tests their difference on them "
                 "(paired bootstrap, two-sided)." if pair else "."))


def tests_heading(comparison: Comparison) -> str:
    return "Paired bootstrap tests (two-sided p; see docs/diagnosis.md)"


def numbers_table(comparison: Comparison) -> Table:
    """Every number of the comparison's JSON, one per row (`kaist-kit compare --format csv`): setting,
    split, method (a difference: "A - B"), quantity (its key path in the JSON), value."""
    data = comparison.to_dict()
    rows = []
    for method, by_setting in data["methods"].items():
        for setting, by_split in by_setting.items():
            for split, numbers in by_split.items():
                rows += [[setting, split, method, q, v] for q, v in flatten(numbers)]
    for difference in data["differences"]:
        name = f"{difference['a']} - {difference['b']}"
        rows += [[difference["setting"], difference["split"], name, q, v] for q, v in flatten(difference)
                 if q not in ("a", "b", "setting", "split")]
    return Table("Comparison", ["setting", "split", "method", "quantity", "value"], rows, label_columns=4)


def to_markdown(comparison: Comparison) -> str:
    """The comparison's table and its paired tests in Markdown."""
    lines = markdown_sections([comparison_table(comparison)])
    lines += [f"## {tests_heading(comparison)}", ""] + [f"- {d.sentence()}" for d in comparison.differences]
    return "\n".join(lines) + "\n"
