"""A diagnosis as tables (terminal and Markdown), and the files of `kaist-kit diagnose --out`:
diagnosis.json, report.md, the figures and the drawn examples. Nothing here changes the diagnosis."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.detections import Detections
from ..data.groundtruth import GroundTruth
from ..errors import InputError, percent
from ..io.read import note_input
from ..io.write import atomic_folder, check_outputs, write_json_atomic, write_text_atomic
from ..metrics.settings import lamr_variant, own_fppi_range
from ..metrics.spec import LAMR
from ..output.show import find_pictures
from ..output.tables import Table, flatten, markdown_sections, with_interval
from .compute import OUTCOMES, Diagnosis
from .error_types import FP_TYPES, ORACLES
from .figures import draw_example, plot_curves, plot_false_positives, plot_misses, plot_oracles

JSON_NAME = "diagnosis.json"
REPORT_NAME = "report.md"
FIGURES = {
    "curves": "mr-fppi.png",
    "false_positives": "false-positives.png",
    "misses": "misses.png",
    "oracles": "oracles.png",
}
EXAMPLES_DIR = "examples"


def operating_rule(diagnosis: Diagnosis) -> str:
    p = diagnosis.params
    if p.score_threshold is not None:
        return f"score >= {p.score_threshold:g}"
    return f"FPPI {p.fppi:g} (the last detection whose FPPI does not exceed it)"


def tables(diagnosis: Diagnosis, detailed: bool = True) -> list[Table]:
    """The report's tables; ``detailed`` adds the filtered LAMRs and every person's misses."""
    d = diagnosis
    p = d.params
    splits = list(p.splits)
    level = f"{100 * p.level:g} %"
    out = [
        Table(
            f"LAMR (%){lamr_variant(p.iou, own_fppi_range(p.scoring_protocol))} of {d.method}, {p.protocol} protocol, "
            f"with {level} intervals",
            ["setting"] + splits,
            [
                [s] + [with_interval(d.view(s, split).result.lamr, d.view(s, split).interval) for split in splits]
                for s in p.settings
            ],
            f"Percentile intervals from {p.resamples} image-level bootstrap resamples (seed {p.seed}).",
        )
    ]
    main = [d.view(p.main_setting, split) for split in splits]

    for where, title in (("operating_point", "at the operating point"), ("curve", "over the whole curve")):
        if where == "curve" and not detailed:
            continue
        at_op = where == "operating_point"
        rows = []
        for v in main:
            score = v.operating_point.score
            rows.append(
                [v.split]
                + ([f"{score:.4g}" if score is not None else "-"] if at_op else [])
                + [str(v.false_positives[where][t]) for t in FP_TYPES]
                + [f"{v.ghosts_per_image(where):.3f}"]
            )
        out.append(
            Table(
                f"False positives by type, {p.main_setting}, {title}",
                ["split"] + (["score at op"] if at_op else []) + list(FP_TYPES) + ["ghosts per image"],
                rows,
                f"Operating point: {operating_rule(d)}. Each false positive has one type, in the "
                "precedence duplicate, scale, localization, ghost."
                if at_op
                else "",
            )
        )

    rows = []
    for family in ("height", "height (fine)", "occlusion", "period"):
        for name in main[0].misses[family]:
            cells = [_miss_cell(v.misses[family][name], detailed) for v in main]
            if any(v.misses[family][name].pedestrians for v in main):
                rows.append([f"{family}: {name}"] + cells)
    at_end = ", and with every detection of the curve" if detailed else ""
    out.append(
        Table(
            f"Missed pedestrians, {p.main_setting}: missed / pedestrians at the operating point{at_end}",
            ["pedestrians"] + splits,
            rows,
            f"Each split is read at its own operating point, {operating_rule(d)} on that split's own "
            "curve, whose score the false positives' table gives: a pedestrian of a day image can be "
            "missed in 'day' and found in 'all'. Heights in pixels: far < 45, medium 45-115, near >= 115.",
        )
    )

    rows = []
    for name in ORACLES:
        rows.append([name] + [f"{percent(v.oracles[name])} ({_signed(v.oracles[name] - v.result.lamr)})" for v in main])
    out.append(
        Table(
            f"Oracles, {p.main_setting}: LAMR (%) with one error type fixed (change)",
            ["fix"] + splits,
            [["none"] + [percent(v.result.lamr) for v in main]] + rows,
            "Duplicates and ghosts are removed; scale and localization errors become true positives of "
            "their pedestrian when it is still free, else are removed; missed pedestrians of a height "
            "are added as found at the top of the curve.",
        )
    )

    rows = []
    for split in splits:
        f = d.foreground[split]
        rows.append(
            [
                split,
                str(f.pedestrians),
                percent(f.lowest_miss_rate),
                "-" if f.c_star is None else f"{f.c_star:.4g}",
                f"{f.ghosts_per_image:.3f}",
                f"{f.fppi:.3f}",
                percent(f.miss_rate_at_operating_point),
            ]
        )
    out.append(
        Table(
            f"Foreground: unoccluded pedestrians of {p.foreground_height:g} px or taller (near the vehicle)",
            [
                "split",
                "pedestrians",
                "lowest miss rate (%)",
                "c*",
                "ghosts per image at c*",
                "FPPI at c*",
                "miss rate at op (%)",
            ],
            rows,
            "c* is the highest score threshold that reaches the lowest foreground miss rate.",
        )
    )
    if not detailed:
        return out

    rows = []
    for family, bins in main[0].filtered.items():
        for name in bins:
            cells = []
            for v in main:
                entry = v.filtered.get(family, {}).get(name)
                cells.append("-" if entry is None else f"{percent(entry[LAMR.name])} / {percent(entry['lamr_ghosts'])}")
            rows.append(["every pedestrian of the setting" if family == "all" else f"{family}: {name}"] + cells)
    out.append(
        Table(
            f"Filtered LAMR (%), {p.main_setting}: every false positive / ghost detections only",
            ["pedestrians"] + splits,
            rows,
            "The miss rate counts only the category's pedestrians; the second number reads the curve "
            "at ghost detections per image instead of all false positives per image.",
        )
    )

    rows = []
    for family in ("position", "height", "occlusion"):
        for name in d.persons[splits[0]].misses[family]:
            rows.append([f"{family}: {name}"] + [_miss_cell(d.persons[s].misses[family][name], True) for s in splits])
    out.append(
        Table(
            "Every box labelled person: missed / persons at each split's operating-point score, and with "
            "every detection",
            ["persons"] + splits,
            rows,
            "Unlike the settings, this counts people of any size and occlusion, and those within 5 px "
            "of the border (truncated: touching or crossing it), which every setting ignores.",
        )
    )
    return out


def _miss_cell(count, with_end: bool) -> str:
    if not count.pedestrians:
        return "-"
    cell = f"{count.missed_at_operating_point}/{count.pedestrians} ({100 * count.miss_rate_at_operating_point:.1f} %)"
    return f"{cell}; {count.missed_at_end} at the end" if with_end else cell


def _signed(value: float) -> str:
    return f"{100 * value:+.2f}"


def numbers_table(diagnosis: Diagnosis) -> Table:
    """Every number of diagnosis.json but the examples', one per row (`kaist-kit diagnose --format csv`):
    setting, split, quantity (its key path in diagnosis.json under the setting and split), value. The
    foreground's and every person's numbers have the settings "foreground" and "every person"."""
    data = diagnosis.to_dict()
    rows = []
    for setting, by_split in data["settings"].items():
        for split, view in by_split.items():
            rows += [[setting, split, q, v] for q, v in flatten(view) if q not in ("setting", "split")]
    for setting, key in (("foreground", "foreground"), ("every person", "every_person")):
        for split, numbers in data[key].items():
            rows += [[setting, split, q, v] for q, v in flatten(numbers)]
    return Table(f"Diagnosis of {diagnosis.method}", ["setting", "split", "quantity", "value"], rows, label_columns=3)


def matches_table(diagnosis: Diagnosis, gt: GroundTruth) -> Table:
    """A row per detection and setting (`kaist-kit diagnose --matches`), in the order of the result:
    the detection's position in it, its image (id and frame), its score; in the setting, its status
    (TP; FP; ignored: matched to a box the setting ignores; unscored: beyond the protocol's detections
    per image), a false positive's type, the annotation it matched (a true positive's pedestrian, the
    ignored box, or under the leaderboard the pedestrian with id 0), and the pedestrian a duplicate,
    scale or localization error is about. ``gt`` is the ground truth diagnosed."""
    o = diagnosis.outcomes
    n = len(o.image)
    detection = np.arange(n).astype(str).tolist()
    image_id = gt.image_ids[o.image].astype(str).tolist()
    frame = [gt.image_names[i] for i in o.image]
    score = [repr(s) for s in o.score.tolist()]
    statuses = np.array(OUTCOMES, dtype=object)
    fp_types = np.array(list(FP_TYPES) + [""], dtype=object)  # -1, no false positive, reads ""
    per_setting = [
        (
            statuses[o.status[row]].tolist(),
            fp_types[o.fp_type[row]].tolist(),
            _annotation_ids(gt, o.matched[row]),
            _annotation_ids(gt, o.about[row]),
        )
        for row in range(len(o.settings))
    ]
    rows = [
        [detection[d], image_id[d], frame[d], score[d], setting, status[d], fp_type[d], matched[d], about[d]]
        for d in range(n)
        for setting, (status, fp_type, matched, about) in zip(o.settings, per_setting)
    ]
    return Table(
        f"Matches of {diagnosis.method}",
        [
            "detection",
            "image_id",
            "frame",
            "score",
            "setting",
            "status",
            "false_positive_type",
            "annotation_id",
            "error_annotation_id",
        ],
        rows,
        label_columns=9,
    )


def _annotation_ids(gt: GroundTruth, index: np.ndarray) -> list[str]:
    ids = np.where(index >= 0, gt.ann_ids[np.maximum(index, 0)], 0).astype(str)
    return np.where(index >= 0, ids, "").tolist()


def write_matches(diagnosis: Diagnosis, gt: GroundTruth, path: str | os.PathLike) -> Path:
    """The `matches_table` as CSV, written atomically."""
    write_text_atomic(path, matches_table(diagnosis, gt).to_csv())
    return Path(path)


def to_markdown(
    diagnosis: Diagnosis, figures: dict[str, str] | None = None, pictures: dict[int, str] | None = None
) -> str:
    """The report: every table, then the ``figures`` (name -> path) and the worst examples, linked
    to their ``pictures`` (example index -> path) where they were drawn."""
    d = diagnosis
    pictures = pictures or {}
    variant = lamr_variant(d.params.iou, own_fppi_range(d.params.scoring_protocol))
    lines = [
        f"# Diagnosis of {d.method}",
        "",
        f"Ground truth: {d.ground_truth}. Protocol: {d.params.protocol}. Main setting: {d.params.main_setting}."
        + (f" Matched and read as the LAMR{variant}." if variant else ""),
        "",
    ]
    lines += markdown_sections(tables(d))
    if figures:
        lines += ["## Figures", ""]
        for name, path in figures.items():
            lines += [f"![{name}]({path})", ""]
    if d.examples:
        lines += [
            "## Worst examples",
            "",
            "| error | frame | box (x, y, w, h) | score | pedestrian height | picture |",
            "|---|---|---|---:|---:|---|",
        ]
        for k, e in enumerate(d.examples):
            box = ", ".join(f"{v:.0f}" for v in e.box)
            picture = f"[{Path(pictures[k]).name}]({pictures[k]})" if k in pictures else ""
            lines.append(
                f"| {e.error} | {e.frame} | {box} | {'' if e.score is None else f'{e.score:.3f}'} | "
                f"{'' if e.height is None else f'{e.height:.0f}'} | {picture} |"
            )
        lines.append("")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Files


@dataclass
class WrittenReport:
    """What `write_report` wrote."""

    folder: Path
    files: list[Path]  # every file, the figures and drawn examples first
    pictures: dict[int, str]  # the index of each example drawn -> its picture, relative to the folder


@dataclass
class ReportPlan:
    """What `write_report` writes into its folder: the figures, the drawn examples, the JSON and the
    Markdown report."""

    folder: Path
    examples: list[tuple[int, str, tuple[Path, Path]]]  # example index, drawing (relative), its pictures

    @property
    def files(self) -> list[Path]:
        return (
            [self.folder / name for name in FIGURES.values()]
            + [self.folder / relative for _, relative, _ in self.examples]
            + [self.folder / JSON_NAME, self.folder / REPORT_NAME]
        )


def plan_report(
    diagnosis: Diagnosis, out_dir: str | os.PathLike, images: Sequence[str | os.PathLike] = ()
) -> ReportPlan:
    """The files `write_report` would write into ``out_dir``, and the pictures under the ``images``
    folders it would draw the examples on, which become inputs of the command now (see
    `kaist_kit.io.read.note_input`), before anything is written."""
    find = picture_finder(images)
    rank: dict[str, int] = {}
    examples = []
    for k, example in enumerate(diagnosis.examples):
        rank[example.error] = rank.get(example.error, 0) + 1
        found = find(example.frame)
        if found is None:
            continue
        for picture in found:
            note_input(picture)
        relative = f"{EXAMPLES_DIR}/{example.error}-{rank[example.error]}-{example.frame.replace('/', '_')}.png"
        examples.append((k, relative, found))
    return ReportPlan(Path(out_dir), examples)


def write_report(
    diagnosis: Diagnosis,
    gt: GroundTruth,
    dets: Detections,
    out_dir: str | os.PathLike,
    images: Sequence[str | os.PathLike] = (),
    plan: ReportPlan | None = None,
) -> WrittenReport:
    """diagnosis.json, report.md, the figures, and the examples whose frames have pictures under
    ``images`` (folders) drawn (``plan``, when `plan_report` made it already); each file written
    atomically, and every one checked before the first is written. ``gt`` and ``dets`` are those
    diagnosed."""
    plan = plan or plan_report(diagnosis, out_dir, images)
    check_outputs(plan.files)
    out = Path(out_dir)
    written = []
    figures = {}
    # Built aside and moved into place whole (into an earlier report's folder, file by file): a full
    # disk or an error leaves nothing, not even an empty folder.
    with atomic_folder(out, merge=True) as staging:
        for name, draw in (
            ("curves", plot_curves),
            ("false_positives", plot_false_positives),
            ("misses", plot_misses),
            ("oracles", plot_oracles),
        ):
            draw(diagnosis, staging / FIGURES[name])
            written.append(out / FIGURES[name])
            figures[name] = FIGURES[name]
        pictures = {}
        for k, relative, found in plan.examples:
            example = diagnosis.examples[k]
            view = diagnosis.view(example.setting, diagnosis.params.splits[0])
            draw_example(gt, dets, example, found, staging / relative, view)
            written.append(out / relative)
            pictures[k] = relative
        write_json_atomic(staging / JSON_NAME, diagnosis.to_dict(pictures), indent=1)
        write_text_atomic(staging / REPORT_NAME, to_markdown(diagnosis, figures, pictures))
        written += [out / JSON_NAME, out / REPORT_NAME]
    return WrittenReport(out, written, pictures)


def picture_finder(roots: Sequence[str | os.PathLike]) -> Callable[[str], tuple[Path, Path] | None]:
    """frame name -> its (visible, lwir) pictures under ``roots``, or None; answers are remembered."""
    known: dict[str, tuple[Path, Path] | None] = {}

    def find(frame: str) -> tuple[Path, Path] | None:
        if frame not in known:
            try:
                known[frame] = find_pictures(frame, roots) if roots and frame.count("/") == 2 else None
            except InputError:
                known[frame] = None
        return known[frame]

    return find
