"""Why a detector misses: intervals, false positives by type, misses by kind of pedestrian, the
foreground operating point and oracle fixes (docs/diagnosis.md).

`diagnose` is a pure function of the ground truth, the detections and one `DiagnosisParams`: it
reads and writes nothing. Everything is computed from one `Evaluation` (one matching for every
setting) and the protocol's curve terms, so each number agrees with the LAMR that `kaist-kit eval`
reports. The report and figures (`report`, `figures`) are made from the `Diagnosis` it returns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..data.detections import Detections, method_name
from ..data.groundtruth import GroundTruth
from ..metrics.bootstrap import Resampled, bootstrap_intervals
from ..metrics.evaluate import CurveTerms, Evaluation, Result, score_curve
from ..metrics.matching import IGNORED, Pairs, greedy_match, ignore_masks, overlaps_by_image, pair_overlaps, squarified
from ..metrics.settings import Protocol, Setting
from ..metrics.spec import LAMR
from .categories import Categories, MissCount, miss_counts
from .error_types import (
    FP_TYPES,
    GHOST,
    ErrorTypes,
    false_positive_mask,
    oracle_lamrs,
    type_false_positives,
)
from .params import DiagnosisParams

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
            LAMR.name: self.result.lamr,
            "interval": list(self.interval),
            "miss_rates": list(self.result.miss_rates),
            "n_images": self.result.n_images,
            "n_gt": self.result.n_gt,
            "operating_point": {"detections": op.length, "score": op.score, "fppi": op.fppi, "miss_rate": op.miss_rate},
            "false_positives": self.false_positives,
            "ghosts_per_image": {w: self.ghosts_per_image(w) for w in ("operating_point", "curve")},
            "misses": {f: {b: c.to_dict() for b, c in bins.items()} for f, bins in self.misses.items()},
            "filtered_lamr": self.filtered,
            "oracles": self.oracles,
        }


def filtered_lamrs(
    evaluation: Evaluation, row: int, terms: CurveTerms, kind: np.ndarray, categories: Categories, proto: Protocol
) -> dict[str, dict[str, dict]]:
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
            out.setdefault(family, {})[name] = {"pedestrians": n, LAMR.name: full.lamr, "lamr_ghosts": ghosts.lamr}
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
    return OperatingPoint(
        length, float(curve.scores[length - 1]), float(curve.fppi[length - 1]), 1.0 if math.isnan(miss) else miss
    )


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
        return {
            "threshold": self.threshold,
            "misses": {f: {b: c.to_dict() for b, c in bins.items()} for f, bins in self.misses.items()},
        }


def foreground_setting(height: float) -> Setting:
    return Setting("foreground", (height, math.inf), frozenset({0}), "diagnosis", f"height >= {height:g}, no occlusion")


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

    def to_dict(self) -> dict:
        return dict(self.__dict__)


# What became of a detection in a setting: matched to a pedestrian that counts, a false positive,
# matched to a box the setting ignores, or beyond the protocol's detections per image.
OUTCOMES = ("TP", "FP", "ignored", "unscored")
TP, FP, IGNORED_MATCH, UNSCORED = range(len(OUTCOMES))


@dataclass
class Outcomes:
    """Every detection's outcome in every setting of the diagnosis, in the result's order: index d
    is the detection at position d of the result. Ground-truth boxes are indices into its arrays."""

    settings: list[str]
    image: np.ndarray  # (D,) the image's index
    score: np.ndarray  # (D,)
    status: np.ndarray  # (S, D) int8: index into OUTCOMES
    fp_type: np.ndarray  # (S, D) int8: index into FP_TYPES for a false positive, else -1
    matched: np.ndarray  # (S, D) int64: the box matched (a true positive, an ignored match, the leaderboard's id 0)
    about: np.ndarray  # (S, D) int64: the pedestrian a duplicate, scale or localization error is about


def detection_outcomes(evaluation: Evaluation, types: ErrorTypes, proto: Protocol) -> Outcomes:
    fp = false_positive_mask(evaluation, proto)
    status = np.where(fp, FP, np.where(evaluation.matches.status == IGNORED, IGNORED_MATCH, TP)).astype(np.int8)
    if proto.max_detections_per_image is not None:
        status[:, evaluation.rank >= proto.max_detections_per_image] = UNSCORED
    fp_type = np.where(status == FP, types.kind, -1).astype(np.int8)
    about = np.where(status == FP, types.target, -1)
    matched = np.where(status == UNSCORED, -1, evaluation.matches.matched_gt)
    in_file_order = np.argsort(evaluation.file_index)
    return Outcomes(
        list(evaluation.settings),
        evaluation.image[in_file_order],
        evaluation.scores[in_file_order],
        status[:, in_file_order],
        fp_type[:, in_file_order],
        matched[:, in_file_order],
        about[:, in_file_order],
    )


@dataclass
class Diagnosis:
    method: str
    params: DiagnosisParams
    views: dict[tuple[str, str], View]
    foreground: dict[str, Foreground]
    persons: dict[str, PersonMisses]
    examples: list[Example]  # the worst of each error on the main setting and the first split
    outcomes: Outcomes = field(repr=False)
    ground_truth: str = ""

    def view(self, setting: str, split: str) -> View:
        return self.views[(setting, split)]

    def to_dict(self, pictures: dict[int, str] | None = None) -> dict:
        """Everything but the outcomes, as diagnosis.json holds it; ``pictures`` maps an example's
        index to its drawing (see `report.write_report`)."""
        p = self.params
        pictures = pictures or {}
        return {
            "method": self.method,
            "protocol": p.protocol,
            "iou": p.iou,
            "fppi_refs": list(p.scoring_protocol.fppi_refs),
            "ground_truth": self.ground_truth,
            "main_setting": p.main_setting,
            "bootstrap": {"resamples": p.resamples, "seed": p.seed, "level": p.level, "interval": "percentile"},
            "operating_point": p.operating_rule,
            "false_positive_types": list(FP_TYPES),
            "foreground_height": p.foreground_height,
            "settings": {s: {split: self.views[(s, split)].to_dict() for split in p.splits} for s in p.settings},
            "foreground": {split: f.to_dict() for split, f in self.foreground.items()},
            "every_person": {split: m.to_dict() for split, m in self.persons.items()},
            "examples": [{**e.to_dict(), "picture": pictures.get(k)} for k, e in enumerate(self.examples)],
        }


def diagnose(gt: GroundTruth, dets: Detections, params: DiagnosisParams | None = None, method: str = "") -> Diagnosis:
    """Diagnose one method: every setting and split with a bootstrap interval, and for each the
    false positives by type, misses by category, filtered and oracle LAMRs; the foreground operating
    point per split; the worst examples; every detection's outcome. Reads and writes nothing."""
    params = params or DiagnosisParams()
    proto = params.scoring_protocol
    settings, splits, main_setting = list(params.settings), list(params.splits), params.main_setting
    evaluation = Evaluation(gt, dets, settings, method, params.iou)
    pairs = intersecting_pairs(evaluation)
    types = type_false_positives(evaluation, pairs, proto)
    categories = Categories.of(gt)

    bootstrap = bootstrap_intervals([evaluation], settings, splits, proto, params.resamples, params.seed, params.level)[
        0
    ]
    views = {
        (setting, split): _view(
            evaluation, setting, split, proto, types, categories, bootstrap[(setting, split)], params
        )
        for split in splits
        for setting in settings
    }

    # The foreground and every person box: two matchings of their own, from the same overlaps.
    extra_ignored = np.vstack([ignore_masks(gt, [foreground_setting(params.foreground_height)]), gt.ignore[None]])
    extra = greedy_match(evaluation.image, pairs.at_least(evaluation.iou), extra_ignored, evaluation.iou)
    foreground, persons = {}, {}
    main_row = evaluation.setting_row[main_setting]
    for split in splits:
        main = views[(main_setting, split)]
        images_mask = gt.split_mask(split)
        fg_terms = evaluation.curve_terms_of(extra.status[0], extra.matched_gt[0], extra_ignored[0], images_mask, proto)
        foreground[split] = _foreground(
            evaluation, fg_terms, extra.matched_gt[0], main, types.kind[main_row], proto, params.foreground_height
        )
        person_terms = evaluation.curve_terms_of(
            extra.status[1], extra.matched_gt[1], extra_ignored[1], images_mask, proto
        )
        persons[split] = _person_misses(evaluation, person_terms, extra.matched_gt[1], main, categories)

    worst = worst_examples(evaluation, types, views[(main_setting, splits[0])], params.examples)
    return Diagnosis(
        method or (method_name(dets.source) if dets.source else ""),
        params,
        views,
        foreground,
        persons,
        worst,
        detection_outcomes(evaluation, types, proto),
        gt.describe(),
    )


def intersecting_pairs(evaluation: Evaluation) -> Pairs:
    """Every detection / ground-truth pair that intersects, with the overlaps of the boxes as annotated;
    where a setting squarifies pedestrians, also the pairs that intersect only a squarified box."""
    gt = evaluation.gt
    pairs = overlaps_by_image(evaluation.image, evaluation.boxes, gt, min_overlap=0.0)
    ratios = {s.squarify for s in evaluation.setting_objects} - {None}
    if not ratios:
        return pairs
    n_gt = len(gt.ann_ids)
    keys = [pairs.det * n_gt + pairs.gt]
    for ratio in ratios:
        more = overlaps_by_image(evaluation.image, evaluation.boxes, gt, 0.0, squarified(gt.boxes, ratio))
        keys.append(more.det * n_gt + more.gt)
    keys = np.unique(np.concatenate(keys))
    det, g = keys // n_gt, keys % n_gt
    positive, iou_positive, iod_positive = pair_overlaps(evaluation.boxes[det], gt.boxes[g])
    iou, iod = np.zeros(len(keys)), np.zeros(len(keys))
    iou[positive], iod[positive] = iou_positive, iod_positive
    return Pairs(det, g, iou, iod)


def _view(
    evaluation: Evaluation,
    setting: str,
    split: str,
    proto: Protocol,
    types: ErrorTypes,
    categories: Categories,
    resampled: Resampled,
    params: DiagnosisParams,
) -> View:
    row = evaluation.setting_row[setting]
    terms = evaluation.curve_terms(setting, split, proto)
    result = evaluation.score(setting, split, proto)

    op = operating_point(result, params.fppi, params.score_threshold)
    kind = types.kind[row, terms.sequence]
    false_positives = {
        "operating_point": _type_counts(kind[: op.length]),
        "curve": _type_counts(kind),
    }
    matched = evaluation.matches.matched_gt[row]
    missed_op = terms.counted & ~credited(evaluation, matched, terms, op.length)
    missed_end = terms.counted & ~credited(evaluation, matched, terms, len(terms.sequence))
    misses = miss_counts(categories, terms.counted, missed_op, missed_end)
    filtered = filtered_lamrs(evaluation, row, terms, kind, categories, proto)
    oracles = oracle_lamrs(evaluation, row, terms, types, result, categories, missed_end, proto)
    return View(
        setting,
        split,
        result,
        resampled.interval,
        op,
        false_positives,
        misses,
        filtered,
        oracles,
        terms,
        resampled.lamrs,
    )


def _type_counts(kind: np.ndarray) -> dict[str, int]:
    counts = np.bincount(kind[kind >= 0], minlength=len(FP_TYPES))
    return {name: int(n) for name, n in zip(FP_TYPES, counts)}


def _foreground(
    evaluation: Evaluation,
    terms: CurveTerms,
    matched_gt: np.ndarray,
    main: View,
    main_kind: np.ndarray,
    proto: Protocol,
    height: float,
) -> Foreground:
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


def _person_misses(
    evaluation: Evaluation, terms: CurveTerms, matched_gt: np.ndarray, main: View, categories: Categories
) -> PersonMisses:
    threshold = main.operating_point.score
    scores = evaluation.scores[terms.sequence]
    length = int(np.count_nonzero(scores >= threshold)) if threshold is not None else 0
    missed_op = terms.counted & ~credited(evaluation, matched_gt, terms, length)
    missed_end = terms.counted & ~credited(evaluation, matched_gt, terms, len(terms.sequence))
    return PersonMisses(threshold, miss_counts(categories, terms.counted, missed_op, missed_end))


def worst_examples(evaluation: Evaluation, types: ErrorTypes, view: View, per_type: int) -> list[Example]:
    """The worst examples of each error on a view, at most one per frame and type: false positives
    of the highest scores, and misses at the operating point, tallest and least occluded first."""
    if per_type <= 0:
        return []
    gt = evaluation.gt
    row = evaluation.setting_row[view.setting]
    sequence = view.terms.sequence
    kind = types.kind[row, sequence]
    out = []
    for error, name in enumerate(FP_TYPES):
        for det in _first_per_frame(sequence[kind == error], evaluation.image, gt, per_type):
            target = types.target[row, det]
            out.append(
                Example(
                    name,
                    view.setting,
                    gt.image_names[evaluation.image[det]],
                    int(evaluation.image[det]),
                    [float(v) for v in evaluation.boxes[det]],
                    float(evaluation.scores[det]),
                    float(gt.heights[target]) if target >= 0 else None,
                    int(evaluation.file_index[det]),
                    int(gt.ann_ids[target]) if target >= 0 else None,
                )
            )
    missed = view.terms.counted & ~credited(
        evaluation, evaluation.matches.matched_gt[row], view.terms, view.operating_point.length
    )
    pedestrians = np.flatnonzero(missed)
    pedestrians = pedestrians[np.lexsort((-gt.heights[pedestrians], gt.occlusion[pedestrians]))]
    for k in _first_per_frame(pedestrians, gt.ann_image, gt, per_type):
        out.append(
            Example(
                "missed",
                view.setting,
                gt.image_names[gt.ann_image[k]],
                int(gt.ann_image[k]),
                [float(v) for v in gt.boxes[k]],
                None,
                float(gt.heights[k]),
                None,
                int(gt.ann_ids[k]),
            )
        )
    return out


def _first_per_frame(items: np.ndarray, image_of: np.ndarray, gt: GroundTruth, n: int) -> list[int]:
    """The first ``n`` of ``items`` on distinct frames."""
    chosen: list[int] = []
    frames: set[str] = set()
    for item in items:
        if len(chosen) == n:
            break
        frame = gt.image_names[image_of[item]]
        if frame not in frames:
            chosen.append(int(item))
            frames.add(frame)
    return chosen
