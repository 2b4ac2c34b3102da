"""Several methods side by side: LAMR with bootstrap intervals, and paired tests of their differences.

Every method is resampled on the same images (the draw depends only on the seed and the split), so
the difference between two methods is measured on the same resampled test sets: the paired test.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..data.detections import Detections, ReadOptions
from ..data.groundtruth import GroundTruth
from ..metrics.bootstrap import (
    RESAMPLING,
    PairedTest,
    Resampling,
    bootstrap_intervals,
    holm,
    paired_test,
)
from ..metrics.evaluate import Evaluation, Result, unique_method_names
from ..metrics.matching import MATCH_THRESHOLD
from ..metrics.settings import (
    LEADERBOARD_SETTINGS,
    MATLAB_SETTINGS,
    SPLITS,
    Protocol,
    get_protocol,
    get_setting,
    lamr_variant,
    own_fppi_range,
)
from ..metrics.spec import LAMR
from ..output.tables import Table, flatten, markdown_sections, with_interval
from .findings import Finding, ground_truth_notes, inspect_scores, read_inspected


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
    holm_p_value: float  # Holm-adjusted over the pairs of methods of the setting and split

    def sentence(self, adjusted: bool = False) -> str:
        """'A is better than B on reasonable night: ...', the one with the lower LAMR named first; a
        difference with p >= 0.05 is said to be not significant. ``adjusted``: that p is the
        Holm-adjusted one, and both are given."""
        t = self.test
        p = f"p = {t.p_value:.3g}" + (f", Holm-adjusted p = {self.holm_p_value:.3g}" if adjusted else "")
        if t.difference == 0:
            return f"{self.a} and {self.b} tie on {self.setting} {self.split}, {p}"
        if t.difference < 0:
            better, worse, low, high = self.a, self.b, t.low, t.high
        else:
            better, worse, low, high = self.b, self.a, -t.high, -t.low
        # Only a difference the paired test supports is called "better".
        significant = (self.holm_p_value if adjusted else t.p_value) < 0.05
        verdict = "is better than" if significant else "scores lower than, not significantly,"
        return (
            f"{better} {verdict} {worse} on {self.setting} {self.split}: LAMR difference "
            f"{-100 * abs(t.difference):+.2f} points [{100 * low:+.2f}, {100 * high:+.2f}], {p}"
        )

    def to_dict(self, adjusted: bool = False) -> dict:
        t = self.test
        out = {
            "a": self.a,
            "b": self.b,
            "setting": self.setting,
            "split": self.split,
            "difference": t.difference,
            "interval": [t.low, t.high],
            "p_value": t.p_value,
        }
        if adjusted:
            out["holm_p_value"] = self.holm_p_value
        return out


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
    iou: float = MATCH_THRESHOLD  # the matching threshold
    fppi_range: tuple[float, float] | None = None  # the reference FPPI range when not the protocol's own

    @property
    def adjusted(self) -> bool:
        """With three methods or more, several pairs are tested on each setting and split: their
        p-values are Holm-adjusted too."""
        return len(self.methods) > 2

    def results(self) -> list[Result]:
        return [s.result for s in self.scores.values()]

    def to_dict(self) -> dict:
        bootstrap = {
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
            "interval": "percentile",
            "test": "paired, two-sided",
        }
        if self.adjusted:
            bootstrap["adjustment"] = "Holm-Bonferroni over the pairs of each setting and split"
        fppi = {} if self.fppi_range is None else {"fppi_range": list(self.fppi_range)}
        return {
            "protocol": self.protocol,
            "iou": self.iou,
            **fppi,
            "bootstrap": bootstrap,
            "methods": {
                m: {
                    s: {
                        split: {
                            LAMR.name: self.scores[(m, s, split)].result.lamr,
                            "interval": list(self.scores[(m, s, split)].interval),
                        }
                        for split in self.splits
                    }
                    for s in self.settings
                }
                for m in self.methods
            },
            "differences": [d.to_dict(self.adjusted) for d in self.differences],
        }


def compare(
    gt: GroundTruth,
    methods: Sequence[tuple[str, Detections]],
    protocol: str | Protocol = "leaderboard",
    settings: Iterable[str] | None = None,
    splits: Iterable[str] = SPLITS,
    resampling: Resampling = RESAMPLING,
    iou: float = MATCH_THRESHOLD,
) -> Comparison:
    """Score each method with an interval per setting and split, and test every pair of methods;
    matched at ``iou``, read at the reference FPPI of ``protocol`` (a Protocol for another range)."""
    proto = get_protocol(protocol)
    settings = list(dict.fromkeys(get_setting(name).name for name in settings or default_settings(proto.name)))
    splits = list(dict.fromkeys(splits))
    names = [name for name, _ in methods]
    if len(set(names)) < len(names):
        raise ValueError("method names must differ")
    evaluations = []
    for name, dets in methods:
        evaluation = Evaluation(gt, dets, settings, name, iou)
        evaluations.append(evaluation)

    scores: dict[tuple[str, str, str], Scored] = {}
    resamples, seed, level = resampling.resamples, resampling.seed, resampling.level
    bootstraps = bootstrap_intervals(evaluations, settings, splits, proto, resamples, seed, level)
    for split in splits:
        for evaluation, bootstrap in zip(evaluations, bootstraps):
            for setting in settings:
                resampled = bootstrap[(setting, split)]
                scores[(evaluation.method, setting, split)] = Scored(
                    evaluation.score(setting, split, proto), resampled.interval, resampled.lamrs
                )
    tests = {}
    for a, b in itertools.combinations(names, 2):
        for setting in settings:
            for split in splits:
                x, y = scores[(a, setting, split)], scores[(b, setting, split)]
                tests[(a, b, setting, split)] = paired_test(
                    x.result.lamr, y.result.lamr, x.resampled, y.resampled, level
                )
    adjusted = {}
    for setting in settings:
        for split in splits:
            keys = [key for key in tests if key[2:] == (setting, split)]
            adjusted.update(zip(keys, holm([tests[key].p_value for key in keys])))
    differences = [Difference(*key, test, adjusted[key]) for key, test in tests.items()]
    return Comparison(
        names, proto.name, settings, splits, resamples, seed, level, scores, differences, iou, own_fppi_range(proto)
    )


def comparison_table(comparison: Comparison) -> Table:
    """A row per setting and split, a column per method; with two methods, their paired test too."""
    c = comparison
    pair = len(c.methods) == 2
    tests = {(d.setting, d.split): d.test for d in c.differences}
    headers = ["setting", "split"] + c.methods + (["p"] if pair else [])
    rows = []
    for setting in c.settings:
        for split in c.splits:
            row = [setting, split] + [
                with_interval(c.scores[(m, setting, split)].result.lamr, c.scores[(m, setting, split)].interval)
                for m in c.methods
            ]
            if pair:
                t = tests[(setting, split)]
                row.append(f"{t.p_value:.3g}")
            rows.append(row)
    return Table(
        f"LAMR (%){lamr_variant(c.iou, c.fppi_range)}, {c.protocol} protocol, with {100 * c.level:g} % intervals",
        headers,
        rows,
        f"Percentile intervals from {c.resamples} image-level bootstrap resamples (seed {c.seed}); "
        "every method is resampled on the same images"
        + (", and p tests their difference on them (paired bootstrap, two-sided)." if pair else "."),
    )


def p_value_tables(comparison: Comparison) -> list[Table]:
    """With three methods or more, per setting: for each split, the Holm-adjusted p-value of every
    pair of methods (a matrix, row against column)."""
    c = comparison
    if not c.adjusted:
        return []
    p_values = {}
    for d in c.differences:
        p_values[(d.a, d.b, d.setting, d.split)] = p_values[(d.b, d.a, d.setting, d.split)] = d.holm_p_value
    n_pairs = len(c.methods) * (len(c.methods) - 1) // 2
    out = []
    for setting in c.settings:
        rows = [
            [split if k == 0 else "", a]
            + ["-" if a == b else f"{p_values[(a, b, setting, split)]:.3g}" for b in c.methods]
            for split in c.splits
            for k, a in enumerate(c.methods)
        ]
        out.append(
            Table(
                f"Holm-adjusted p-values, {setting}",
                ["split", "method"] + c.methods,
                rows,
                f"Paired bootstrap tests (two-sided) of every pair of methods, Holm-Bonferroni adjusted "
                f"over the {n_pairs} pairs of each split.",
                label_columns=2,
            )
        )
    return out


def tests_heading(comparison: Comparison) -> str:
    if comparison.adjusted:
        return (
            "Paired bootstrap tests (two-sided p, and p Holm-adjusted over the pairs of each setting and split; "
            "see docs/diagnosis.md)"
        )
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
        rows += [
            [difference["setting"], difference["split"], name, q, v]
            for q, v in flatten(difference)
            if q not in ("a", "b", "setting", "split")
        ]
    return Table("Comparison", ["setting", "split", "method", "quantity", "value"], rows, label_columns=4)


def to_markdown(comparison: Comparison) -> str:
    """The comparison's table and its paired tests in Markdown."""
    lines = markdown_sections([comparison_table(comparison)] + p_value_tables(comparison))
    lines += [f"## {tests_heading(comparison)}", ""]
    lines += [f"- {d.sentence(comparison.adjusted)}" for d in comparison.differences]
    return "\n".join(lines) + "\n"


@dataclass
class ComparedFiles:
    """Result files compared (`compare_files`), and what was found in each."""

    comparison: Comparison
    findings: list[Finding]
    light: bool = field(default=True, repr=False)  # its tables fit 80 columns in light rules

    def to_json(self) -> dict:
        return {**self.comparison.to_dict(), "findings": [f.to_dict() for f in self.findings]}

    def to_csv(self) -> str:
        return numbers_table(self.comparison).to_csv()

    def to_markdown(self) -> str:
        return to_markdown(self.comparison)

    def tables(self) -> list[Table]:
        return [comparison_table(self.comparison)] + p_value_tables(self.comparison)

    def lines(self) -> list[str]:
        return [f"{tests_heading(self.comparison)}:"] + [
            f"  {d.sentence(self.comparison.adjusted)}" for d in self.comparison.differences
        ]


def compare_files(
    paths: Sequence[str | os.PathLike],
    gt: GroundTruth,
    names: Sequence[str] | None = None,
    protocol: str | Protocol = "leaderboard",
    settings: Iterable[str] | None = None,
    splits: Iterable[str] = SPLITS,
    resampling: Resampling = RESAMPLING,
    iou: float = MATCH_THRESHOLD,
    options: ReadOptions | None = None,
) -> ComparedFiles:
    """`compare` of result files, each read (as ``options`` say) and inspected before any is scored;
    method names default to the file names. A file that looks misread stops with its fix (see
    `findings.refuse_errors`)."""
    if len(paths) < 2:
        raise ValueError("compare at least two results")
    names = list(names) if names else unique_method_names(paths)
    if len(names) != len(paths) or len(set(names)) < len(names):
        raise ValueError("give each result a name of its own")
    proto = get_protocol(protocol)
    settings = list(dict.fromkeys(get_setting(name).name for name in settings or default_settings(proto.name)))
    splits = list(dict.fromkeys(splits))
    for split in splits:
        gt.split_mask(split)  # before any result is read
    read = [read_inspected(path, gt, settings, splits, [proto.name], options) for path in paths]
    found = compare(gt, [(n, dets) for n, (dets, _) in zip(names, read)], proto, settings, splits, resampling, iou)
    scored = found.results()
    findings = ground_truth_notes(gt) + [
        f
        for (dets, inspected), n in zip(read, names)
        for f in inspected + inspect_scores([r for r in scored if r.method == n], dets)
    ]
    return ComparedFiles(found, findings)
