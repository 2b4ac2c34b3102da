"""What a result file holds, what the leaderboard would do with it, and the normalised detections.

`inspect_result` reads any result format the evaluator reads, leniently: detections the evaluator
would stop on are left out or repaired and counted. It normalises the rest to what the leaderboard
scores correctly (sorted by image and descending score, at most 1,000 per image, positive sizes)
and lists findings. Each finding says what is wrong and what it costs.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kaist_kit.detections import Detections, load_detections
from kaist_kit.errors import InputError, KitWarning, quantity
from kaist_kit.evaluate import Result, evaluate
from kaist_kit.findings import IdBaseWarning, images_not_sorted, pedestrians_hit
from kaist_kit.groundtruth import GroundTruth, ground_truth_from_coco
from kaist_kit.settings import KAIST_FRAME_SIZE, LEADERBOARD, LEADERBOARD_SETTINGS

# KAIST test-all-20: the leaderboard knows its images by their position in name order, 0..2251.
TEST_IMAGES = 2252
MAX_PER_IMAGE = LEADERBOARD.max_detections_per_image
UPLOAD_LIMIT_BYTES = 30_000_000
# A lowest score at or above this suggests a detector threshold that cut the curve short.
LOW_SCORE_LIMIT = 0.05

# Measured with the kit on the published MLPD detections (tests/test_submission.py checks both).
THRESHOLD_COST = "keeping only scores >= 0.5 takes MLPD's file from 7.58 to 10.15"
ONE_BASED_COST = "MLPD's file written with 1-based ids scores 95.20 instead of 7.58"
SHUFFLED_COST = "MBNet's file shuffled gets 80.05 instead of 8.13"

# Levels of a finding. A crash or a mis-score concerns the file as given to the leaderboard; the
# packaged file is immune to both.
CRASH = "crash"  # the leaderboard's evaluator stops on the file
MISSCORE = "mis-score"  # the leaderboard gives the file a wrong number
WARNING = "warning"  # scored as written, but it probably costs the user miss rate
NOTE = "note"


@dataclass
class Finding:
    code: str
    level: str
    message: str

    def to_dict(self) -> dict:
        return {"code": self.code, "level": self.level, "message": self.message}


@dataclass
class Inspection:
    source: Path
    format: str  # coco, txt or per-image
    gt: GroundTruth | None
    read: Detections  # as read leniently, in file order (boxes converted when corners=True)
    packaged: Detections  # normalised: what the submission holds
    submission_ids: np.ndarray  # the leaderboard's id of every image of the reference ground truth
    counts: dict
    findings: list[Finding]
    results: list[Result] = field(default_factory=list)  # packaged, leaderboard protocol (needs gt)
    options: dict = field(default_factory=dict)

    @property
    def lowest_score(self) -> float | None:
        return float(self.packaged.scores.min()) if len(self.packaged) else None

    def lamr(self, setting: str = "reasonable") -> dict[str, float]:
        return {r.split: r.lamr for r in self.results if r.setting == setting}


def stand_in_ground_truth() -> GroundTruth:
    """The test images known by id alone: enough to read ids 0..2251 (1..2252 in txt) without labels."""
    width, height = KAIST_FRAME_SIZE
    return ground_truth_from_coco(
        {"images": [{"id": i, "width": width, "height": height} for i in range(TEST_IMAGES)]})


def submission_ids(gt: GroundTruth) -> np.ndarray:
    """The leaderboard's id of each of ``gt``'s images: its position in test-all-20 name order.

    Another test set (a synthetic one, a validation split) keeps its own ids."""
    if gt.n_images != TEST_IMAGES:
        return gt.image_ids.copy()
    if all(gt.image_names):
        order = np.argsort(np.array(gt.image_names), kind="stable")
        ids = np.empty(TEST_IMAGES, np.int64)
        ids[order] = np.arange(TEST_IMAGES)
        return ids
    if np.array_equal(gt.image_ids, np.arange(TEST_IMAGES)):
        return gt.image_ids.copy()
    raise InputError("the ground truth's images have neither frame names nor the ids 0..2251, so they "
                     "cannot be mapped to the leaderboard's ids", gt.path)


def as_corners(dets: Detections) -> Detections:
    """Boxes written as [x1, y1, x2, y2] turned into [x, y, w, h]."""
    boxes = dets.boxes.copy()
    boxes[:, 2:] -= boxes[:, :2]
    return Detections(dets.image, boxes, dets.scores, dets.source, dets.format, dets.dropped)


def normalise(dets: Detections) -> tuple[Detections, dict]:
    """Positive sizes only, sorted by image and descending score (ties keep file order), at most
    1,000 per image (the highest scores): the order and cap the leaderboard protocol scores by."""
    positive = (dets.boxes[:, 2] > 0) & (dets.boxes[:, 3] > 0)
    index = np.flatnonzero(positive)
    index = index[np.lexsort((-dets.scores[index], dets.image[index]))]
    image = dets.image[index]
    rank = np.arange(len(index)) - np.searchsorted(image, image, side="left")
    per_image = np.bincount(image, minlength=1)
    crowded = per_image > MAX_PER_IMAGE
    kept = index[rank < MAX_PER_IMAGE]
    counts = {
        "non_positive_size": int((~positive).sum()),
        "images_over_cap": int(crowded.sum()),
        "over_cap": int((per_image[crowded] - MAX_PER_IMAGE).sum()),
        "most_in_an_image": int(per_image.max()) if len(image) else 0,
    }
    packaged = Detections(dets.image[kept], dets.boxes[kept], dets.scores[kept], dets.source, "coco")
    return packaged, counts


def inspect_result(path: str | Path, gt: GroundTruth | None = None, *, id_offset: int = 0,
                   corners: bool = False, format: str = "auto", devkit_shift: bool = True) -> Inspection:
    """Read a result leniently, normalise it, and list what is wrong with it and what each costs."""
    path = Path(path)
    reference = gt if gt is not None else stand_in_ground_truth()
    ids = submission_ids(gt) if gt is not None else np.arange(TEST_IMAGES)
    dets, reader_warnings = _read(path, reference, format, devkit_shift, id_offset)
    if gt is None and dets.format == "per-image":
        raise InputError("per-image files are matched to images by frame name, which needs the ground "
                         "truth: pass --gt FILE (or set KAIST_KIT_GT)", path)
    if corners:
        dets = as_corners(dets)
    packaged, normalised = normalise(dets)
    dropped = dets.dropped
    counts = {
        "in_source": len(dets) + dropped.non_finite + dropped.negative_size + dropped.unknown_image
                     + sum(dropped.other_labels.values()),
        "non_finite": dropped.non_finite,
        "negative_size": dropped.negative_size,
        "unknown_image_id": dropped.unknown_image,
        "other_label": sum(dropped.other_labels.values()),
        "non_positive_size": normalised["non_positive_size"],
        "over_1000_per_image": normalised["over_cap"],
        "category_rewritten": sum(dropped.recategorised.values()),
        "images_not_sorted": len(images_not_sorted(dets)),
        "packaged": len(packaged),
        "images": len(ids),
        "images_with_detections": int(len(np.unique(packaged.image))),
    }
    inspection = Inspection(path, dets.format, gt, dets, packaged, ids, counts, [],
                            options={"id_offset": id_offset, "corners": corners,
                                     "devkit_shift": devkit_shift})
    findings = inspection.findings
    findings += _structure_findings(inspection, normalised)
    if gt is not None and len(packaged):
        inspection.results, evaluator_warnings = score_leaderboard(gt, packaged)
    else:
        evaluator_warnings = []
    findings += _id_base_findings(inspection, reader_warnings)
    if not corners:
        findings += _corner_findings(inspection)
    findings += _threshold_findings(inspection)
    findings += [Finding("reader", WARNING, _without_prefix(m, path)) for m in reader_warnings
                 if not isinstance(m, IdBaseWarning)]
    findings += [Finding("empty-images", NOTE, _without_prefix(m, path)) for m in evaluator_warnings]
    if gt is None:
        findings += _without_gt_findings(inspection)
    elif gt.n_images != TEST_IMAGES:
        findings.append(Finding("not-test-all-20", WARNING,
                                f"the ground truth has {gt.n_images} images, not the {TEST_IMAGES} of "
                                "the leaderboard's test-all-20: the package is scored against it, and "
                                "the public leaderboard would not accept it"))
    elif not np.array_equal(ids, gt.image_ids):
        findings.append(Finding("ids-remapped", NOTE,
                                "this ground truth's image ids are not the leaderboard's: the package "
                                "writes each image's position in name order (the leaderboard's ids)"))
    return inspection


def _read(path: Path, gt: GroundTruth, format: str, devkit_shift: bool, id_offset: int):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", KitWarning)
        dets = load_detections(path, gt, format, devkit_shift, on_invalid="drop", id_offset=id_offset)
    messages = []
    for w in caught:
        if issubclass(w.category, KitWarning):
            messages.append(w.message)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return dets, messages


def score_leaderboard(gt: GroundTruth, dets: Detections, settings=LEADERBOARD_SETTINGS):
    """Results under the leaderboard protocol, and the evaluator's warnings as text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", KitWarning)
        results = evaluate(gt, dets, settings, protocols=["leaderboard"])
    return results, [w.message for w in caught if issubclass(w.category, KitWarning)]


def _reasonable_all(gt: GroundTruth, dets: Detections) -> float:
    """The packaged miss rate of another reading of the same file, to say what a mistake costs."""
    packaged, _ = normalise(dets)
    results, _ = score_leaderboard(gt, packaged, ["reasonable"])
    return next(r.lamr for r in results if r.split == "all")


def _without_prefix(message, path: Path) -> str:
    """A reader's warning without the leading 'path:' (the report names the file once)."""
    text = str(message)
    if text.startswith(str(path)):
        cut = text.find(": ", len(str(path)))
        if cut >= 0:
            return text[cut + 2:]
    return text


def _id_range(inspection: Inspection) -> str:
    return "1..2252 (1-based)" if inspection.format == "txt" else "0..2251"


def _structure_findings(inspection: Inspection, normalised: dict) -> list[Finding]:
    """What the leaderboard's evaluator crashes on or mis-scores, and what the package repairs."""
    counts, dropped, found = inspection.counts, inspection.read.dropped, []
    if counts["in_source"] == 0:
        found.append(Finding("empty", CRASH, "the file holds no detections: the leaderboard's evaluator "
                                             "crashes on an empty result"))
    if dropped.recategorised:
        kinds = ", ".join(f"{quantity(n, 'detection')} with category_id {c!r}"
                          for c, n in dropped.recategorised.items())
        found.append(Finding(
            "category", CRASH,
            f"{kinds} (first at {dropped.first['recategorised']}): the leaderboard's evaluator crashes on "
            "any category other than person (1); packaged as person, so remove detections of other "
            "classes first if that is what they are"))
    if dropped.unknown_ids:
        ids = sorted(dropped.unknown_ids)
        shown = ", ".join(map(str, ids[:3])) + (", ..." if len(ids) > 3 else "")
        found.append(Finding(
            "unknown-ids", CRASH,
            f"{quantity(dropped.unknown_image, 'detection')} with an image id outside {_id_range(inspection)} "
            f"({shown}; first at {dropped.first['unknown_ids']}): the leaderboard's evaluator crashes "
            "on them; left out of the package"))
    if normalised["over_cap"]:
        found.append(Finding(
            "over-1000", CRASH,
            f"{quantity(normalised['images_over_cap'], 'image')} with more than {MAX_PER_IMAGE:,} detections "
            f"(most: {normalised['most_in_an_image']}): the leaderboard's evaluator crashes on them; the "
            f"package keeps the {MAX_PER_IMAGE:,} highest-scoring of each ({normalised['over_cap']} left "
            "out), the ones the leaderboard protocol scores, so its number does not change (the "
            "devkit's, which has no cap, can)"))
    if counts["images_not_sorted"] and inspection.format != "per-image":
        found.append(Finding(
            "unsorted", MISSCORE,
            f"detections of {quantity(counts['images_not_sorted'], 'image')} not in descending score order: the "
            f"leaderboard's evaluator scores such a file wrongly ({SHUFFLED_COST}); the package sorts "
            "them, which changes no number of `kaist-kit eval`"))
    if dropped.non_finite:
        found.append(Finding(
            "non-finite", MISSCORE,
            f"{quantity(dropped.non_finite, 'detection')} with a nan or infinite number (first at "
            f"{dropped.first['non_finite']}): the leaderboard's evaluator has no defined result for "
            "them; left out of the package"))
    if dropped.negative_size:
        found.append(Finding(
            "negative-size", MISSCORE,
            f"{quantity(dropped.negative_size, 'box', 'boxes')} with a negative width or height (first at "
            f"{dropped.first['negative_size']}): no evaluator scores them meaningfully; left out of the "
            "package (boxes are [x, y, width, height])"))
    if dropped.other_labels:
        labels = ", ".join(f"{n} {label!r}" for label, n in dropped.other_labels.items())
        found.append(Finding(
            "other-labels", WARNING,
            f"lines labelled other than person ({labels}; first at {dropped.first['other_labels']}): "
            "left out of the package"))
    if normalised["non_positive_size"]:
        found.append(Finding(
            "zero-size", WARNING,
            f"{quantity(normalised['non_positive_size'], 'box', 'boxes')} without area (width or height "
            "<= 0): they cannot "
            "match a pedestrian, so each was a false positive; left out of the package, which can only "
            "lower its miss rate"))
    return found


def _id_base_findings(inspection: Inspection, reader_warnings: list) -> list[Finding]:
    """Ids written with the other base: by overlap with ground truth, else by their range."""
    fix = inspection.options["id_offset"] + (1 if inspection.format == "txt" else -1)
    base = "0-based" if inspection.format == "txt" else "1-based"
    shifted = [m for m in reader_warnings if isinstance(m, IdBaseWarning)]
    gt = inspection.gt
    if shifted and gt is not None:
        as_written = inspection.lamr().get("all", 1.0)
        alternative, _ = _read(inspection.source, gt, inspection.format,
                               inspection.options["devkit_shift"], fix)
        if inspection.options["corners"]:
            alternative = as_corners(alternative)
        fixed = _reasonable_all(gt, alternative)
        return [Finding("id-base", WARNING,
                        f"{_without_prefix(shifted[0], inspection.source)}; measured (reasonable, all): "
                        f"{100 * as_written:.2f} as written, {100 * fixed:.2f} with --id-offset {fix}: "
                        f"rerun with --id-offset {fix} if the ids are {base}")]
    if gt is not None or not len(inspection.read):
        return []
    # Without labels only the range can tell: 1..2252 in COCO JSON, or 0..2251 in txt.
    mapped_unknown = {i + inspection.options["id_offset"] for i in inspection.read.dropped.unknown_ids}
    image = inspection.read.image
    if inspection.format == "coco" and mapped_unknown == {TEST_IMAGES} and not (image == 0).any():
        span = "1..2252"
    elif inspection.format == "txt" and mapped_unknown == {0} and not (image == TEST_IMAGES - 1).any():
        span = "0..2251"
    else:
        return []
    return [Finding("id-base", WARNING,
                    f"image ids run {span}: they look {base}, but this format's ids are "
                    f"{_id_range(inspection)}, so every detection is scored against the wrong image "
                    f"({ONE_BASED_COST}): rerun with --id-offset {fix}")]


def _corner_findings(inspection: Inspection) -> list[Finding]:
    """Boxes written as corners [x1, y1, x2, y2] where [x, y, w, h] is read."""
    dets, gt = inspection.read, inspection.gt
    if len(dets) == 0:
        return []
    x, y, w, h = dets.boxes.T
    width, height = KAIST_FRAME_SIZE
    if gt is not None:
        width, height = gt.image_sizes[dets.image].T
    corner_like = float(np.mean((w > x) & (h > y)))
    outside = float(np.mean((x + w > width) | (y + h > height)))
    if corner_like < 0.8:
        return []
    evidence = (f"{100 * corner_like:.0f}% of the boxes have a width above their x and a height above "
                f"their y, and {100 * outside:.0f}% reach past the frame")
    if gt is None:
        if outside < 0.2:
            return []
        return [Finding("corners", WARNING,
                        f"the boxes look like corners [x1, y1, x2, y2], not [x, y, width, height]: "
                        f"{evidence}; read as written nearly nothing can match a pedestrian: rerun with "
                        "--corners if they are corners")]
    converted = as_corners(dets)
    positive = (converted.boxes[:, 2] > 0) & (converted.boxes[:, 3] > 0)
    hits_written = pedestrians_hit(dets.image, dets.boxes, gt)
    hits_corners = pedestrians_hit(converted.image[positive], converted.boxes[positive], gt)
    if hits_corners < 20 or hits_corners <= 3 * max(hits_written, 1):
        return []
    as_written = inspection.lamr().get("all", 1.0)
    fixed = _reasonable_all(gt, converted)
    return [Finding("corners", WARNING,
                    f"the boxes look like corners [x1, y1, x2, y2], not [x, y, width, height]: {evidence}; "
                    f"read as corners they overlap {hits_corners} pedestrians instead of {hits_written}; "
                    f"measured (reasonable, all): {100 * as_written:.2f} as written, {100 * fixed:.2f} "
                    "with --corners: rerun with --corners")]


def _threshold_findings(inspection: Inspection) -> list[Finding]:
    """A detector threshold that cuts the curve short of one false positive per image."""
    lowest = inspection.lowest_score
    if lowest is None:
        return []
    reasonable = [r for r in inspection.results if r.setting == "reasonable"]
    if reasonable:
        ends = {r.split: float(r.curve.fppi[-1]) if len(r.curve.fppi) else 0.0 for r in reasonable}
        short = {split: end for split, end in ends.items() if end < 1.0}
        if short:
            where = ", ".join(f"{split} {end:.2f}" for split, end in short.items())
            return [Finding("threshold", WARNING,
                            f"the curve stops short of 1 false positive per image ({where}), the end of "
                            f"the range the log-average miss rate reads, so the miss rates beyond are read "
                            f"at its last point; the lowest score is {lowest:.3g}: detections below it "
                            f"would lower the miss rate ({THRESHOLD_COST})")]
        if lowest >= LOW_SCORE_LIMIT:
            return [Finding("threshold", NOTE,
                            f"the lowest score is {lowest:.3g}, but the curve passes 1 false positive per "
                            "image in every split, so lower-scored detections would not change the number")]
        return []
    if lowest >= LOW_SCORE_LIMIT:
        return [Finding("threshold", WARNING,
                        f"the lowest score is {lowest:.3g}: detections below a threshold were probably "
                        "dropped; the log-average miss rate reads the curve up to 1 false positive per "
                        f"image and rewards keeping low-scored detections ({THRESHOLD_COST})")]
    return []


def _without_gt_findings(inspection: Inspection) -> list[Finding]:
    found = []
    empty = TEST_IMAGES - inspection.counts["images_with_detections"]
    if empty and len(inspection.packaged):
        found.append(Finding(
            "empty-images", NOTE,
            f"{empty} of the {TEST_IMAGES} images have no detection: the leaderboard leaves the "
            "pedestrians in such images out of the miss rate (which lowers it), the devkit most papers "
            "quote counts them as misses"))
    found.append(Finding(
        "no-ground-truth", NOTE,
        "no ground truth: checked the ids by their range and the boxes by their shape only; pass --gt "
        "FILE (or set KAIST_KIT_GT) for the self-evaluated miss rate and the overlap checks"))
    return found
