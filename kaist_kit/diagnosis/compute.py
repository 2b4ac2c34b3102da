"""Why a detector misses: intervals, false positives by type, misses by kind of pedestrian, the
foreground operating point and oracle fixes (docs/diagnosis.md).

Everything is computed from one `Evaluation` (one matching for every setting) and the protocol's
curve terms, so each number agrees with the LAMR that `kaist-kit eval` reports.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    LEVEL,
    WeightedCurve,
    bootstrap_lamrs,
    percentile_interval,
    resample_counts,
)
from ..detections import Detections, method_name
from ..evaluate import CurveTerms, Evaluation, Result, score_curve, warn_leaderboard_input
from ..groundtruth import GroundTruth
from ..matching import (
    MATCH_THRESHOLD,
    Pairs,
    greedy_match,
    ignore_masks,
    overlaps_by_image,
)
from ..settings import SETTINGS, SPLITS, Protocol, Setting, get_protocol, get_setting
from .categories import Categories, MissCount, miss_counts
from .error_types import FP_TYPES, GHOST, ErrorTypes, oracle_lamrs, type_false_positives

# Hwang et al. (CVPR 2015) call pedestrians of 115 pixels or taller "near": within about 11 m of
# the vehicle with KAIST's cameras. Unoccluded ones of that size are the foreground a driver
# assistance system must not miss.
FOREGROUND_HEIGHT = 115.0
DEFAULT_FPPI = 1.0
DEFAULT_EXAMPLES = 3


# ----------------------------------------------------------------------------------------------
# One setting and split


@dataclass
class OperatingPoint:
    """A prefix of the curve: its first ``length`` detections."""

    length: int
    score: float | None  # the score of the last detection in it (None when empty)
    fppi: float
    miss_rate: float


@dataclass
class View:
    """The diagnosis of one setting on one split."""

    setting: str
    split: str
    result: Result
    interval: tuple[float, float]  # percentile bootstrap interval of the LAMR
    operating_point: OperatingPoint
    false_positives: dict[str, dict[str, int]]  # "operating_point" / "curve" -> type -> count
    misses: dict[str, dict[str, MissCount]]  # family -> bin -> counts
    filtered: dict[str, dict[str, dict]]  # family -> bin -> {"pedestrians", "lamr", "lamr_ghosts"}
    oracles: dict[str, float]  # fix -> LAMR with it applied alone
    terms: CurveTerms = field(repr=False)
    resampled: np.ndarray = field(repr=False)  # the LAMR of each bootstrap resample

    @property
    def n_images(self) -> int:
        return self.result.n_images

    def ghosts_per_image(self, where: str = "operating_point") -> float:
        return self.false_positives[where]["ghost"] / self.n_images if self.n_images else 0.0

    def to_dict(self) -> dict:
        op = self.operating_point
        return {
            "setting": self.setting,
            "split": self.split,
            "lamr": self.result.lamr,
            "interval": list(self.interval),
            "miss_rates": list(self.result.miss_rates),
            "n_images": self.result.n_images,
            "n_gt": self.result.n_gt,
            "operating_point": {"detections": op.length, "score": op.score, "fppi": op.fppi,
                                "miss_rate": op.miss_rate},
            "false_positives": self.false_positives,
            "ghosts_per_image": {w: self.ghosts_per_image(w) for w in ("operating_point", "curve")},
            "misses": {f: {b: c.to_dict() for b, c in bins.items()} for f, bins in self.misses.items()},
            "filtered_lamr": self.filtered,
            "oracles": self.oracles,
        }


def filtered_lamrs(evaluation: Evaluation, row: int, terms: CurveTerms, kind: np.ndarray,
                   categories: Categories, proto: Protocol) -> dict[str, dict[str, dict]]:
    """Per category of pedestrian: the LAMR with recall restricted to that category (every false
    positive still counts), and the same read at ghost detections per image."""
    sequence, positive = terms.sequence, terms.positive
    scores = evaluation.scores[sequence]
    matched = evaluation.matches.matched_gt[row, sequence]
    ghost_or_hit = positive | (kind == GHOST)
    groups = {"all": {"all": terms.counted}}
    for family in ("height", "occlusion"):
        names, _ = categories.families[family]
        groups[family] = {name: terms.counted & categories.mask(family, name) for name in names}
    out: dict[str, dict[str, dict]] = {}
    for family, bins in groups.items():
        for name, members in bins.items():
            n = int(members.sum())
            if n == 0:
                continue
            hit = positive & members[np.maximum(matched, 0)]
            keep = ~positive | hit  # true positives of other pedestrians leave the curve
            full = score_curve(hit[keep], scores[keep], n, terms.n_images, proto)
            keep_ghosts = keep & ghost_or_hit
            ghosts = score_curve(hit[keep_ghosts], scores[keep_ghosts], n, terms.n_images, proto)
            out.setdefault(family, {})[name] = {"pedestrians": n, "lamr": full.lamr, "lamr_ghosts": ghosts.lamr}
    return out


def operating_point(result: Result, fppi: float | None, score_threshold: float | None) -> OperatingPoint:
    """The curve's prefix at a score threshold, or else up to the last detection whose FPPI does not
    exceed ``fppi`` (the detection the LAMR reads at that reference)."""
    curve = result.curve
    if score_threshold is not None:
        length = int(np.count_nonzero(curve.scores >= score_threshold))
    else:
        length = int(np.searchsorted(curve.fppi, fppi, side="right"))
    if length == 0:
        return OperatingPoint(0, None, 0.0, 1.0)
    miss = float(curve.miss_rate[length - 1])
    return OperatingPoint(length, float(curve.scores[length - 1]), float(curve.fppi[length - 1]),
                          1.0 if math.isnan(miss) else miss)


def credited(evaluation: Evaluation, matched_gt: np.ndarray, terms: CurveTerms, length: int) -> np.ndarray:
    """(N,) bool: pedestrians found by the true positives among the curve's first ``length`` detections."""
    found = np.zeros(len(evaluation.gt.ann_ids), bool)
    head = terms.sequence[:length][terms.positive[:length]]
    found[matched_gt[head]] = True
    return found


# ----------------------------------------------------------------------------------------------
# Views beyond the settings


@dataclass
class Foreground:
    """Pedestrians near the vehicle and the score threshold that finds as many of them as possible."""

    height: float
    pedestrians: int
    lowest_miss_rate: float | None  # with every detection; None when no foreground pedestrian counts
    c_star: float | None  # the highest score threshold reaching it; None when no detection finds one
    ghosts_per_image: float  # ghost detections per image scoring at least c*
    fppi: float  # false positives per image scoring at least c*
    miss_rate_at_operating_point: float | None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class PersonMisses:
    """Every box labelled person, whatever its size, occlusion or place (the settings ignore some)."""

    threshold: float | None
    misses: dict[str, dict[str, MissCount]]

    def to_dict(self) -> dict:
        return {"threshold": self.threshold,
                "misses": {f: {b: c.to_dict() for b, c in bins.items()} for f, bins in self.misses.items()}}


def foreground_setting(height: float) -> Setting:
    return Setting("foreground", (height, math.inf), frozenset({0}), "diagnosis",
                   f"height >= {height:g}, no occlusion")


# ----------------------------------------------------------------------------------------------
# The diagnosis


@dataclass
class Example:
    error: str  # a false-positive type, or "missed"
    setting: str
    frame: str
    image: int
    box: list[float]
    score: float | None  # the detection's (None for a miss)
    height: float | None  # the pedestrian's (None for a ghost)
    detection: int | None  # the detection's position in the result, in file order (None for a miss)
    annotation_id: int | None  # the pedestrian's (None for a ghost)
    picture: str | None = None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Diagnosis:
    method: str
    protocol: str
    settings: list[str]
    splits: list[str]
    main_setting: str
    resamples: int
    seed: int
    level: float
    operating_rule: dict  # {"fppi": x} or {"score_threshold": x}
    foreground_height: float
    views: dict[tuple[str, str], View]
    foreground: dict[str, Foreground]
    persons: dict[str, PersonMisses]
    examples: list[Example]
    ground_truth: str = ""
    files: list[Path] = field(default_factory=list)

    def view(self, setting: str, split: str) -> View:
        return self.views[(setting, split)]

    def to_dict(self) -> dict:
        return {
            "method": self.method,
            "protocol": self.protocol,
            "ground_truth": self.ground_truth,
            "main_setting": self.main_setting,
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "level": self.level,
                          "interval": "percentile"},
            "operating_point": self.operating_rule,
            "false_positive_types": list(FP_TYPES),
            "foreground_height": self.foreground_height,
            "settings": {s: {split: self.views[(s, split)].to_dict() for split in self.splits}
                         for s in self.settings},
            "foreground": {split: f.to_dict() for split, f in self.foreground.items()},
            "every_person": {split: p.to_dict() for split, p in self.persons.items()},
            "examples": [e.to_dict() for e in self.examples],
        }


def diagnose(gt: GroundTruth, dets: Detections, method: str = "", protocol: str = "leaderboard",
             settings: Iterable[str] = tuple(SETTINGS), splits: Iterable[str] = SPLITS,
             main_setting: str = "reasonable", resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
             level: float = LEVEL, fppi: float = DEFAULT_FPPI, score_threshold: float | None = None,
             foreground_height: float = FOREGROUND_HEIGHT, images: Sequence[str | os.PathLike] = (),
             examples: int = DEFAULT_EXAMPLES, out_dir: str | os.PathLike | None = None) -> Diagnosis:
    """Diagnose one method: every setting and split with a bootstrap interval, and for each the
    false positives by type, misses by category, filtered and oracle LAMRs; the foreground operating
    point per split. ``images`` are folders searched for the frames' pictures, to draw the worst
    examples. With ``out_dir``, write diagnosis.json, report.md and the figures there."""
    proto = get_protocol(protocol)
    settings = list(dict.fromkeys([main_setting, *settings]))
    for name in settings:
        get_setting(name)
    splits = list(dict.fromkeys(splits))
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    evaluation = Evaluation(gt, dets, settings, method)
    if proto.name == "leaderboard":
        warn_leaderboard_input(evaluation, dets)
    pairs = overlaps_by_image(evaluation.image, evaluation.boxes, gt, min_overlap=0.0)
    types = type_false_positives(evaluation, pairs, proto)
    categories = Categories.of(gt)

    views: dict[tuple[str, str], View] = {}
    for split in splits:
        images_mask = gt.split_mask(split)
        counts = resample_counts(images_mask, resamples, seed, split)
        for setting in settings:
            views[(setting, split)] = _view(evaluation, setting, split, proto, types, categories, counts,
                                            level, fppi, score_threshold)

    # The foreground and every person box: two matchings of their own, from the same overlaps.
    strong = pairs.iod >= MATCH_THRESHOLD
    pairs05 = Pairs(pairs.det[strong], pairs.gt[strong], pairs.iou[strong], pairs.iod[strong])
    extra_ignored = np.vstack([ignore_masks(gt, [foreground_setting(foreground_height)]), gt.ignore[None]])
    extra = greedy_match(evaluation.image, pairs05, extra_ignored)
    foreground, persons = {}, {}
    main_row = evaluation.setting_row[main_setting]
    for split in splits:
        main = views[(main_setting, split)]
        images_mask = gt.split_mask(split)
        fg_terms = evaluation.curve_terms_of(extra.status[0], extra.matched_gt[0], extra_ignored[0], images_mask, proto)
        foreground[split] = _foreground(evaluation, fg_terms, extra.matched_gt[0], main, types.kind[main_row],
                                        proto, foreground_height)
        person_terms = evaluation.curve_terms_of(extra.status[1], extra.matched_gt[1], extra_ignored[1], images_mask,
                                                 proto)
        persons[split] = _person_misses(evaluation, person_terms, extra.matched_gt[1], main, categories)

    rule = {"score_threshold": score_threshold} if score_threshold is not None else {"fppi": fppi}
    pictures = picture_finder(list(images))
    worst = worst_examples(evaluation, types, views[(main_setting, splits[0])], examples,
                           (lambda frame: pictures(frame) is not None) if images else None)
    diagnosis = Diagnosis(method or (method_name(dets.source) if dets.source else ""), proto.name, settings,
                          splits, main_setting, resamples, seed, level, rule, foreground_height, views,
                          foreground, persons, worst, gt.describe())
    if out_dir is not None:
        from .report import write_outputs

        write_outputs(diagnosis, gt, dets, out_dir, pictures)
    return diagnosis


def _view(evaluation: Evaluation, setting: str, split: str, proto: Protocol, types: ErrorTypes,
          categories: Categories, counts: np.ndarray, level: float, fppi: float,
          score_threshold: float | None) -> View:
    row = evaluation.setting_row[setting]
    terms = evaluation.curve_terms(setting, split, proto)
    result = evaluation.score(setting, split, proto)
    resampled = bootstrap_lamrs(WeightedCurve.of(evaluation, terms), counts, proto)
    interval = percentile_interval(resampled, level)

    op = operating_point(result, fppi, score_threshold)
    kind = types.kind[row, terms.sequence]
    false_positives = {
        "operating_point": _type_counts(kind[:op.length]),
        "curve": _type_counts(kind),
    }
    matched = evaluation.matches.matched_gt[row]
    missed_op = terms.counted & ~credited(evaluation, matched, terms, op.length)
    missed_end = terms.counted & ~credited(evaluation, matched, terms, len(terms.sequence))
    misses = miss_counts(categories, terms.counted, missed_op, missed_end)
    filtered = filtered_lamrs(evaluation, row, terms, kind, categories, proto)
    oracles = oracle_lamrs(evaluation, row, terms, types, result, categories, missed_end, proto)
    return View(setting, split, result, interval, op, false_positives, misses, filtered, oracles, terms, resampled)


def _type_counts(kind: np.ndarray) -> dict[str, int]:
    counts = np.bincount(kind[kind >= 0], minlength=len(FP_TYPES))
    return {name: int(n) for name, n in zip(FP_TYPES, counts)}


def _foreground(evaluation: Evaluation, terms: CurveTerms, matched_gt: np.ndarray, main: View,
                main_kind: np.ndarray, proto: Protocol, height: float) -> Foreground:
    scores = evaluation.scores[terms.sequence]
    n = terms.n_gt
    found = int(terms.positive.sum())
    lowest = 1 - found / n if n else None
    c_star = float(scores[np.flatnonzero(terms.positive)[-1]]) if found else None
    if c_star is None:
        ghosts = fps = 0
    else:
        above = main.result.curve.scores >= c_star
        kind = main_kind[main.terms.sequence]
        ghosts = int(np.count_nonzero(above & (kind == GHOST)))
        fps = int(np.count_nonzero(above & (kind >= 0)))
    n_images = max(terms.n_images, 1)
    op_score = main.operating_point.score
    if n == 0:
        at_op = None
    else:
        hits = int(np.count_nonzero(terms.positive & (scores >= op_score))) if op_score is not None else 0
        at_op = 1 - hits / n
    return Foreground(height, n, lowest, c_star, ghosts / n_images, fps / n_images, at_op)


def _person_misses(evaluation: Evaluation, terms: CurveTerms, matched_gt: np.ndarray, main: View,
                   categories: Categories) -> PersonMisses:
    threshold = main.operating_point.score
    scores = evaluation.scores[terms.sequence]
    length = int(np.count_nonzero(scores >= threshold)) if threshold is not None else 0
    missed_op = terms.counted & ~credited(evaluation, matched_gt, terms, length)
    missed_end = terms.counted & ~credited(evaluation, matched_gt, terms, len(terms.sequence))
    return PersonMisses(threshold, miss_counts(categories, terms.counted, missed_op, missed_end))


def worst_examples(evaluation: Evaluation, types: ErrorTypes, view: View, per_type: int,
                   has_pictures: Callable[[str], bool] | None = None) -> list[Example]:
    """The worst examples of each error on a view, at most one per frame and type: false positives
    of the highest scores, and misses at the operating point, tallest and least occluded first.

    With ``has_pictures``, frames whose pictures exist are preferred (so that they can be drawn);
    when none of the candidates has them, the worst are listed all the same.
    """
    if per_type <= 0:
        return []
    gt = evaluation.gt
    row = evaluation.setting_row[view.setting]
    sequence = view.terms.sequence
    kind = types.kind[row, sequence]
    candidates: dict[str, list[Example]] = {}
    for error, name in enumerate(FP_TYPES):
        dets = sequence[kind == error]
        candidates[name] = []
        for det in dets:
            target = types.target[row, det]
            candidates[name].append(Example(
                name, view.setting, gt.image_names[evaluation.image[det]], int(evaluation.image[det]),
                [float(v) for v in evaluation.boxes[det]], float(evaluation.scores[det]),
                float(gt.heights[target]) if target >= 0 else None, int(evaluation.file_index[det]),
                int(gt.ann_ids[target]) if target >= 0 else None))
    missed = view.terms.counted & ~credited(evaluation, evaluation.matches.matched_gt[row], view.terms,
                                            view.operating_point.length)
    pedestrians = np.flatnonzero(missed)
    pedestrians = pedestrians[np.lexsort((-gt.heights[pedestrians], gt.occlusion[pedestrians]))]
    candidates["missed"] = [Example("missed", view.setting, gt.image_names[gt.ann_image[k]], int(gt.ann_image[k]),
                                    [float(v) for v in gt.boxes[k]], None, float(gt.heights[k]), None,
                                    int(gt.ann_ids[k]))
                            for k in pedestrians]
    out = []
    for found in candidates.values():
        out += _pick(found, per_type, has_pictures)
    return out


def _pick(candidates: list[Example], n: int, has_pictures: Callable[[str], bool] | None) -> list[Example]:
    """Up to ``n`` examples on distinct frames: the worst with pictures first, then the worst of the rest."""
    chosen: list[Example] = []
    frames: set[str] = set()
    for usable in ([has_pictures] if has_pictures is not None else []) + [lambda frame: True]:
        for example in candidates:
            if len(chosen) == n:
                return chosen
            if example.frame not in frames and usable(example.frame):
                chosen.append(example)
                frames.add(example.frame)
    return chosen


def picture_finder(roots: Sequence[str | os.PathLike]) -> Callable[[str], tuple[Path, Path] | None]:
    """frame name -> its (visible, lwir) pictures under ``roots``, or None; answers are remembered."""
    from ..errors import InputError
    from ..show import find_pictures

    known: dict[str, tuple[Path, Path] | None] = {}

    def find(frame: str) -> tuple[Path, Path] | None:
        if frame not in known:
            try:
                known[frame] = find_pictures(frame, roots) if roots and frame.count("/") == 2 else None
            except InputError:
                known[frame] = None
        return known[frame]

    return find
