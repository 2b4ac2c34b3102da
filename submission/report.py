"""Plain-text reports of a packaged or checked submission, one line per fact or finding."""

from __future__ import annotations

from pathlib import Path

from kaist_kit.data.detections import COCO, TXT, method_name
from kaist_kit.errors import percent, quantity
from kaist_kit.metrics.evaluate import Result
from kaist_kit.metrics.settings import LEADERBOARD_SETTINGS
from kaist_kit.output.tables import Table

from .checks import WARNING, Inspection
from .evaluators import CORRECT, CRASH, MISSCORE, Outcome
from .submit import CheckReport, PackageReport
from .targets import CHALLENGE2024, LEADERBOARD

VERDICTS = {
    CORRECT: "scores this file correctly",
    MISSCORE: "would mis-score this file",
    CRASH: "its evaluator would crash on this file",
}


def summary(inspection: Inspection) -> list[str]:
    counts = inspection.counts
    dets = inspection.read
    scores = f", scores {dets.scores.min():.3g} to {dets.scores.max():.3g}" if len(dets) else ""
    lines = [f"{inspection.source.name}: {inspection.format.title}, {counts['in_source']} detections{scores}"]
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
    rows = [
        [setting] + [percent(cells[(setting, s)]) for s in splits]
        for setting in LEADERBOARD_SETTINGS
        if (setting, splits[0]) in cells
    ]
    return Table(title, ["setting"] + splits, rows).to_text(indent=2, widths=(18, 8)).split("\n")


def challenge_table(evaluation: dict, title: str) -> list[str]:
    """The 2024 challenge's six leaderboard columns, in its units (MR in percent, AP as fractions)."""
    columns = evaluation["columns"]
    cells = [f"{v:.2f}" if name.startswith("MR") else f"{v:.4f}" for name, v in columns.items()]
    return Table(title, list(columns), [cells], label_columns=0).to_text(indent=2).split("\n")


def package_lines(report: PackageReport) -> list[str]:
    inspection = report.inspection
    lines = summary(inspection) + findings(inspection)
    what = (
        f"{inspection.counts['packaged']} detections in {inspection.counts['images_with_detections']} images, "
        f"category_id {report.target.category_id}"
    )
    if report.zip_bytes is None:
        lines.append(
            f"wrote {report.out} ({what}, {report.results_bytes / 1e3:.0f} kB): the file to upload to "
            f"{report.target.description}; its manifest, for your records: {report.manifest_path}"
        )
    else:
        lines.append(
            f"wrote {report.out}: {report.results_name} ({what}, {report.results_bytes / 1e3:.0f} kB) "
            f"and manifest.json; {report.zip_bytes / 1e3:.0f} kB in all. Upload {report.results_name} "
            f"from inside it to {report.target.description}: the evaluators read .json and .txt files, "
            "not a zip"
        )
    if report.target is CHALLENGE2024 and report.manifest.get("target_evaluation"):
        lines += challenge_table(report.manifest["target_evaluation"], "self-evaluated, the 2024 challenge's columns:")
    elif report.results:
        lines += lamr_table(report.results, "self-evaluated log-average miss rate (%), leaderboard protocol:")
    return lines


def check_lines(report: CheckReport) -> list[str]:
    """The check as lines: what kaist-kit finds, which target the file is written for, then what each
    evaluator would do with it as uploaded (that target's first) and the fix."""
    inspection = report.inspection
    if inspection is not None:
        lines = summary(inspection)
        lines += [f"{f.level}: {f.line(with_source=False)}" for f in inspection.findings]
    else:
        lines = [f"{report.path.name}: kaist-kit cannot read it ({report.refused})"]
    lines += [f"{f.level}: {f.line(with_source=False)}" for f in report.extra_findings]
    target = report.target
    if target is not None:
        json_file = report.path.name.lower().endswith(COCO.upload_suffix) or (
            inspection is not None and inspection.format is COCO
        )
        kind = (COCO if json_file else TXT).kind
        lines.append(f"written for: {target.description} (category_id {target.category_id}, {kind})")
    first = (target or LEADERBOARD).name
    main = report.outcomes[first]
    lines += _outcome_lines(report, main, main=True)
    for name, other in report.outcomes.items():
        if name != first:
            same = other.crash is not None and other.crash == main.crash
            lines += _outcome_lines(report, other, main=False, same_crash=same)
    if report.inner is not None:
        member, outcomes = report.inner
        judged = outcomes[first]
        verdict = VERDICTS[judged.verdict] if judged.verdict != CRASH else "its evaluator would crash on it"
        lines.append(
            f"inside it, {member}: {judged.evaluator.label}: {verdict}"
            + (f": {_why(judged)}" if judged.verdict != CORRECT else "; upload that file")
        )
    lines += _tables(report)
    return lines


def _outcome_lines(report: CheckReport, outcome: Outcome, main: bool, same_crash: bool = False) -> list[str]:
    label = outcome.evaluator.label
    if outcome.verdict == CORRECT:
        warned = sum(f.level == WARNING for f in report.findings)
        text = f"{label}: {VERDICTS[CORRECT]}"
        if main and warned:
            text += f"; see the {quantity(warned, 'warning')} above for what may cost miss rate"
        return [text]
    if outcome.crash is not None and outcome.crash.exception == "":
        text = f"{label}: takes no such upload: {_why(outcome)}"
    elif same_crash:
        text = f"{label}: its evaluator would crash on it too, in the same place (it loads files alike)"
    else:
        text = f"{label}: {VERDICTS[outcome.verdict]}: {_why(outcome)}"
    lines = [text]
    if main and outcome.printed is not None and outcome.verdict == MISSCORE:
        lines.append(f"  it would print {_printed(outcome)}")
    elif main and outcome.verdict == MISSCORE and outcome.unpredicted:
        lines.append(f"  {outcome.unpredicted}")
    fix = _fix(report, outcome)
    if fix:
        lines.append(f"  fix: {fix}")
    return lines


def _why(outcome: Outcome) -> str:
    crash = outcome.crash
    if crash is not None:
        where = f" at {crash.where}" if crash.where else ""
        return f"{crash.exception}{where}: {crash.cause}" if crash.exception else crash.cause
    return "; ".join(outcome.reasons)


def _printed(outcome: Outcome) -> str:
    values = outcome.printed or {}
    return ", ".join(
        f"{name} {value:.4f}" if name.startswith("AP") else f"{name} {value:.2f}"
        for name, value in values.items()
        if value is not None
    )


def _fix(report: CheckReport, outcome: Outcome) -> str:
    """The `kaist-kit submit` line that writes the file this evaluator scores correctly."""
    if report.inspection is None:
        by_hand = outcome.crash.fix if outcome.crash is not None else ""
        return (f"{by_hand}; " if by_hand else "") + "kaist-kit cannot package it as it is (see above)"
    if report.inner is not None and outcome.crash is not None and outcome.crash.where == "":
        member, inside = report.inner
        if inside[outcome.evaluator.name].verdict == CORRECT:
            return f"upload {member} from inside it"
    source = report.path
    stem = method_name(source) or "entry"
    suffix = "-2024" if outcome.evaluator.name == CHALLENGE2024.name else ""
    out = source.with_name(f"{stem}{suffix}.json")
    if out.resolve() == source.resolve():
        out = source.with_name(f"{stem}{suffix}-entry.json")
    option = f" --target {outcome.evaluator.name}" if outcome.evaluator.name != LEADERBOARD.name else ""
    command = f"`kaist-kit submit {_quoted(source)} --out {_quoted(out)}{option}`"
    errors = [f for f in report.findings if f.level == "error"]
    if errors:
        fix = errors[0].fix or errors[0].kind.fix
        if fix.startswith("rerun with --"):  # the option that reads the file right
            command = command[:-1] + " " + fix[len("rerun with ") :] + "`"
        else:
            command += f" once the [{errors[0].code}] error above is resolved"
    by_hand = outcome.crash.fix if outcome.crash is not None and outcome.crash.fix else ""
    return command + (f" (or by hand: {by_hand})" if by_hand else "")


def _quoted(path: Path) -> str:
    text = str(path)
    return text if all(c.isalnum() or c in "/._-+=:,@" for c in text) else "'" + text.replace("'", "'\\''") + "'"


def _tables(report: CheckReport) -> list[str]:
    inspection = report.inspection
    judged = report.judged
    target = report.target
    name = judged.evaluator.label
    if report.ok and report.challenge:
        return challenge_table(report.challenge, "predicted, the 2024 challenge's columns:")
    if report.ok and report.as_submitted:
        lines = lamr_table(report.as_submitted, "predicted log-average miss rate (%), leaderboard protocol:")
        if report.packaged and lamr_rows(report.packaged) != lamr_rows(report.as_submitted):
            lines += lamr_table(report.packaged, "once packaged by `kaist-kit submit` (%):")
        return lines
    if report.ok:
        return (
            []
            if inspection is None or inspection.gt is not None
            else [f"{name}: pass --gt FILE for the predicted score"]
        )
    if report.packaged and target is not None:
        return lamr_table(
            report.packaged, "once packaged (as written), log-average miss rate (%), leaderboard protocol:"
        )
    if inspection is not None and inspection.gt is None:
        return [f"{name}: pass --gt FILE for the predicted score"]
    return []


def lamr_rows(results: list[Result]) -> list[tuple]:
    return [(r.setting, r.split, r.lamr) for r in results]
