"""Plain-text reports of a packaged or checked submission, one line per fact or finding."""

from __future__ import annotations

from kaist_kit.errors import quantity
from kaist_kit.evaluate import Result
from kaist_kit.settings import LEADERBOARD_SETTINGS
from kaist_kit.tables import Table, percent

from .checks import WARNING, Inspection
from .submit import CheckReport, PackageReport
from .targets import CHALLENGE2024, LEADERBOARD, on_the_other

VERDICTS = {
    "correct": "scores this file correctly",
    "mistake": "would score this file as it is written, which is not what it means (see the error above)",
    "mis-score": "would mis-score this file",
    "crash": "its evaluator would crash on this file",
    "not-accepted": "does not read per-image files",
}


def summary(inspection: Inspection) -> list[str]:
    counts = inspection.counts
    dets = inspection.read
    scores = f", scores {dets.scores.min():.3g} to {dets.scores.max():.3g}" if len(dets) else ""
    lines = [f"{inspection.source.name}: {inspection.format.title}, "
             f"{counts['in_source']} detections{scores}"]
    if inspection.gt is not None:
        lines.append(f"ground truth: {inspection.gt.describe()}")
    return lines


def findings(inspection: Inspection) -> list[str]:
    """A line per finding, led by what the leaderboard would do with the file when it would crash on it
    or mis-score it, else by the finding's level."""
    return [f"{f.leaderboard or f.level}: {f.line(with_source=False)}" for f in inspection.findings]


def lamr_table(results: list[Result], title: str) -> list[str]:
    splits = list(dict.fromkeys(r.split for r in results))
    cells = {(r.setting, r.split): r.lamr for r in results}
    rows = [[setting] + [percent(cells[(setting, s)]) for s in splits]
            for setting in LEADERBOARD_SETTINGS if (setting, splits[0]) in cells]
    return Table(title, ["setting"] + splits, rows).to_text(indent=2, widths=(18, 8)).split("\n")


def challenge_table(evaluation: dict, title: str) -> list[str]:
    """The 2024 challenge's six leaderboard columns, in its units (MR in percent, AP as fractions)."""
    columns = evaluation["columns"]
    cells = [f"{v:.2f}" if name.startswith("MR") else f"{v:.4f}" for name, v in columns.items()]
    return Table(title, list(columns), [cells], label_columns=0).to_text(indent=2).split("\n")


def package_lines(report: PackageReport) -> list[str]:
    inspection = report.inspection
    lines = summary(inspection) + findings(inspection)
    what = (f"{inspection.counts['packaged']} detections in {inspection.counts['images_with_detections']} images, "
            f"category_id {report.target.category_id}")
    if report.zip_bytes is None:
        lines.append(f"wrote {report.out} ({what}, {report.results_bytes / 1e3:.0f} kB): the file to upload to "
                     f"{report.target.description}; its manifest, for your records: {report.manifest_path}")
    else:
        lines.append(f"wrote {report.out}: {report.results_name} ({what}, {report.results_bytes / 1e3:.0f} kB) "
                     f"and manifest.json; {report.zip_bytes / 1e3:.0f} kB in all. Upload {report.results_name} "
                     f"from inside it to {report.target.description}: the evaluators read .json and .txt files, "
                     "not a zip")
    if report.target is CHALLENGE2024 and report.manifest.get("target_evaluation"):
        lines += challenge_table(report.manifest["target_evaluation"], "self-evaluated, the 2024 challenge's columns:")
    elif report.results:
        lines += lamr_table(report.results, "self-evaluated log-average miss rate (%), leaderboard protocol:")
    return lines


def check_lines(report: CheckReport) -> list[str]:
    inspection = report.inspection
    lines = summary(inspection) + findings(inspection)
    target = report.target
    if target is not None:
        lines.append(f"written for: {target.description} (category_id {target.category_id}, "
                     f"{inspection.format.kind}); {on_the_other(target)}")
    name = "2024 challenge" if target is CHALLENGE2024 else "leaderboard"
    verdict = VERDICTS[report.verdict]
    warned = sum(f.level == WARNING for f in inspection.findings)
    if report.ok and warned:
        verdict += f"; see the {quantity(warned, 'warning')} above for what may cost miss rate"
    if report.ok and report.challenge:
        lines.append(f"{name}: {verdict}")
        lines += challenge_table(report.challenge, "predicted, the 2024 challenge's columns:")
    elif report.ok and report.as_submitted:
        lines.append(f"{name}: {verdict}")
        lines += lamr_table(report.as_submitted, "predicted log-average miss rate (%), leaderboard protocol:")
        if report.as_submitted is not report.packaged and report.packaged:
            lines += lamr_table(report.packaged, "once packaged by `kaist-kit submit` (%):")
    elif report.packaged and target is not None:
        option = "" if target is LEADERBOARD else f" --target {target.name}"
        lines.append(f"{name}: {verdict}; package it with `kaist-kit submit{option}`")
        lines += lamr_table(report.packaged, "once packaged (as written), log-average miss rate (%), "
                                             "leaderboard protocol:")
    else:
        need = "; pass --gt FILE for the predicted score" if inspection.gt is None else ""
        lines.append(f"{name}: {verdict}{need}")
    return lines
