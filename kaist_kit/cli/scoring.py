"""Scoring results: `eval`, `diagnose` and `compare`."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..diagnosis.params import DiagnosisParams
from .app import app, out, say, show_findings
from .options import (
    DEFAULT_FPPI_TEXT,
    DEFAULT_PROTOCOLS,
    AsIsOption,
    CornersOption,
    DevkitShiftOption,
    FormatOption,
    FppiRangeOption,
    GroundTruthOption,
    IdOffsetOption,
    IousOption,
    MetricsOption,
    NamesOption,
    OutputFormat,
    PlotOption,
    ProtocolName,
    ProtocolOption,
    ProtocolsOption,
    ResamplesOption,
    SeedOption,
    SettingsOption,
    SplitsOption,
    fppi_range,
    iou_thresholds,
    load_gt,
    locate_gt,
    method_names,
    metric_names,
    one_iou_threshold,
    setting_names,
    split_names,
)

# The diagnosis' defaults, which the options of `diagnose` show.
DIAGNOSIS = DiagnosisParams()
DIAGNOSIS_PROTOCOL = ProtocolName(DIAGNOSIS.protocol)

RESULTS_HELP = ("Result files: COCO result JSON (0-based image ids), leaderboard txt (image_id,x,y,w,h,score, "
                "1-based), the devkit's aggregated txt, a per-image folder, or a .zip / .tar.gz of any of them.")


@app.command("eval")
def eval_command(
    results: Annotated[list[Path], typer.Argument(metavar="RESULT", help=RESULTS_HELP, show_default=False)],
    gt: GroundTruthOption = None,
    split: SplitsOption = None,
    images: Annotated[list[Path] | None, typer.Option(
        metavar="FILE", help="A list file of image names or ids to score as an extra split, beside the --split "
                             "ones; repeatable.")] = None,
    setting: SettingsOption = None,
    protocol: ProtocolsOption = DEFAULT_PROTOCOLS,
    iou: IousOption = None,
    metric: MetricsOption = None,
    fppi_range_text: FppiRangeOption = DEFAULT_FPPI_TEXT,
    format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
    name: NamesOption = None,
    devkit_shift: DevkitShiftOption = True,
    id_offset: IdOffsetOption = 0,
    corners: CornersOption = False,
    as_is: AsIsOption = False,
    curves: Annotated[bool, typer.Option(help="With --format json, include the full curves.")] = False,
) -> None:
    """Score results with the log-average miss rate, AP and AR, exactly as the leaderboard, the devkit or
    the 2024 challenge.

    A result that looks misread (boxes written as corners, image ids off by one, detections of other
    images) stops with exit code 2 and the option that reads it right; --as-is scores it as read.
    """
    from .. import report
    from ..errors import InputError
    from ..findings import evaluate_inspected
    from ..imagesets import list_split_names, select_images
    from ..plots import check_figure_path, plot_results
    from ..settings import metric_iou_conflict

    names = method_names(name, results)
    settings = setting_names(setting)
    ious, metrics, fppi = iou_thresholds(iou), metric_names(metric), fppi_range(fppi_range_text)
    conflict = metric_iou_conflict(metrics, ious)
    if conflict:
        raise InputError(conflict)
    if plot is not None:
        check_figure_path(plot)
    splits: list = split_names(split)
    ground_truth = load_gt(gt)
    for split_spec in splits:
        ground_truth.split_mask(split_spec)  # before any work
    for list_path, list_split in zip(images or [], list_split_names(images or [], splits)):
        splits.append((list_split, select_images(list_path, ground_truth)))
    found = evaluate_inspected(results, ground_truth, settings, splits, [p.value for p in protocol], names=names,
                               devkit_shift=devkit_shift, id_offset=id_offset, corners=corners, as_is=as_is,
                               ious=ious, metrics=metrics, fppi_range=fppi)

    show_findings(found.findings)
    if format is OutputFormat.json:
        print(report.to_json(found.results, with_curve=curves, findings=found.findings))
    elif format is OutputFormat.csv:
        sys.stdout.write(report.to_csv(found.results))
    elif format is OutputFormat.markdown:
        sys.stdout.write(report.to_markdown(found.results))
    else:
        caption = "\n".join([f"ground truth: {ground_truth.describe()}"] + report.protocol_notes(found.results)
                            + report.variant_notes(found.results))
        report.print_table(found.results, out, caption)
    if plot is not None:
        plot_results(found.results, plot)
        say(f"figure written to {plot}")


def _positive(value: float, option: str) -> None:
    if not (value > 0 and math.isfinite(value)):
        raise typer.BadParameter("must be a positive number", param_hint=option)


@app.command("diagnose")
def diagnose_command(
    result: Annotated[Path, typer.Argument(metavar="RESULT", help="A result in any format `kaist-kit eval` reads.",
                                           show_default=False)],
    gt: GroundTruthOption = None,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", metavar="FOLDER", help="Folder for diagnosis.json, report.md, the figures and the drawn "
                                        "examples.")] = None,
    setting: Annotated[str, typer.Option(
        metavar="SETTING",
        help="The setting the false positives, misses, oracles and examples are shown for (JSON has every "
             "setting): a named one or a custom one as `eval --setting` takes it; the LAMR table covers the "
             "ten and this one.")] = DIAGNOSIS.main_setting,
    split: SplitsOption = None,
    protocol: ProtocolOption = DIAGNOSIS_PROTOCOL,
    iou: IousOption = None,
    fppi_range_text: FppiRangeOption = DEFAULT_FPPI_TEXT,
    resamples: ResamplesOption = DIAGNOSIS.resamples,
    seed: SeedOption = DIAGNOSIS.seed,
    fppi: Annotated[float, typer.Option(
        metavar="FPPI", help="Operating point: the last detection of the curve whose FPPI does not exceed this.")]
    = DIAGNOSIS.fppi,
    score_threshold: Annotated[float | None, typer.Option(
        metavar="SCORE", help="Operating point at this score threshold instead of --fppi.")]
    = DIAGNOSIS.score_threshold,
    foreground_height: Annotated[float, typer.Option(
        metavar="PIXELS", help="Foreground: unoccluded pedestrians at least this tall (px); 115 is KAIST's 'near' "
                               "(about 11 m).")] = DIAGNOSIS.foreground_height,
    images: Annotated[list[Path] | None, typer.Option(
        metavar="FOLDER", help="Folders of the visible/lwir pictures, to draw the worst examples (KAIST's images/ "
                               "tree or flat setXX_VYYY_IZZZZZ_visible.png files). Default: images/ beside the "
                               "ground truth.")] = None,
    examples: Annotated[int, typer.Option(metavar="N", min=0, help="Worst examples per error type.")]
    = DIAGNOSIS.examples,
    name: Annotated[str | None, typer.Option(metavar="NAME", help="Method name. Default: the file name before "
                                                                  "'_result'.")] = None,
    devkit_shift: DevkitShiftOption = True,
    id_offset: IdOffsetOption = 0,
    corners: CornersOption = False,
    as_is: AsIsOption = False,
    format: FormatOption = OutputFormat.table,
    matches: Annotated[Path | None, typer.Option(
        "--matches", metavar="FILE", help="Also write every detection's outcome in every setting to this CSV file: "
                                          "TP, FP with its type, ignored, unscored, and the annotation matched.")]
    = None,
) -> None:
    """Why a detector misses: LAMR with intervals, false positives by type, misses, foreground c*, oracles."""
    import json

    from ..detections import method_name
    from ..diagnosis import diagnose, write_report
    from ..diagnosis.report import numbers_table, tables, to_markdown, write_matches
    from ..files import check_writable
    from ..findings import inspect_scores, read_inspected
    from ..groundtruth import load_ground_truth
    from ..tables import print_tables

    (setting,) = setting_names([setting])
    threshold, fppi_limits = one_iou_threshold(iou), fppi_range(fppi_range_text)
    _positive(fppi, "--fppi")
    if score_threshold is not None and not math.isfinite(score_threshold):
        raise typer.BadParameter("must be a finite number", param_hint="--score-threshold")
    _positive(foreground_height, "--foreground-height")
    if out_dir is not None:
        check_writable(out_dir, folder=True)
    if matches is not None:
        check_writable(matches)
    params = DiagnosisParams(protocol=protocol.value, splits=tuple(split_names(split)), main_setting=setting,
                             resamples=resamples, seed=seed, fppi=fppi, score_threshold=score_threshold,
                             foreground_height=foreground_height, examples=examples, iou=threshold,
                             fppi_range=fppi_limits)
    gt_path = locate_gt(gt)
    ground_truth = load_ground_truth(gt_path)
    for name_of_split in params.splits:
        ground_truth.split_mask(name_of_split)  # before the result is read
    dets, findings = read_inspected(result, ground_truth, [setting], params.splits, [protocol.value],
                                    devkit_shift=devkit_shift, id_offset=id_offset, corners=corners, as_is=as_is)
    found = diagnose(ground_truth, dets, params, name or method_name(result))
    findings += inspect_scores([found.view(setting, s).result for s in params.splits], dets)
    show_findings(findings)
    written = None
    if out_dir is not None:
        roots = images or [gt_path.parent / "images", gt_path.parent]
        written = write_report(found, ground_truth, dets, out_dir, roots)
    if matches is not None:
        write_matches(found, ground_truth, matches)
    if format is OutputFormat.json:
        print(json.dumps({**found.to_dict(written.pictures if written else None),
                          "findings": [f.to_dict() for f in findings]}, indent=1))
    elif format is OutputFormat.csv:
        sys.stdout.write(numbers_table(found).to_csv())
    elif format is OutputFormat.markdown:
        sys.stdout.write(to_markdown(found))
    else:
        print_tables(tables(found, detailed=False), out, light=True)
    if written is not None:
        say(f"diagnosis written to {out_dir}: diagnosis.json, report.md, 4 figures, "
            f"{len(written.pictures)} drawn examples")
    if matches is not None:
        say(f"matches written to {matches}: {len(dets)} detections x {len(params.settings)} settings")


@app.command("compare")
def compare_command(
    results: Annotated[list[Path], typer.Argument(
        metavar="RESULT", help="Two or more results, in any format `kaist-kit eval` reads.", show_default=False)],
    gt: GroundTruthOption = None,
    setting: Annotated[list[str] | None, typer.Option(
        metavar="SETTING",
        help="Setting, named or custom as `eval --setting` takes it; repeatable. Default: the protocol's own "
             "(leaderboard: reasonable, reasonable-small, reasonable-heavy, all-pedestrians; matlab: reasonable "
             "and the devkit's six).")] = None,
    split: SplitsOption = None,
    protocol: ProtocolOption = ProtocolName.leaderboard,
    iou: IousOption = None,
    fppi_range_text: FppiRangeOption = DEFAULT_FPPI_TEXT,
    resamples: ResamplesOption = DEFAULT_RESAMPLES,
    seed: SeedOption = DEFAULT_SEED,
    plot: PlotOption = None,
    name: NamesOption = None,
    devkit_shift: DevkitShiftOption = True,
    id_offset: IdOffsetOption = 0,
    corners: CornersOption = False,
    as_is: AsIsOption = False,
    format: FormatOption = OutputFormat.table,
) -> None:
    """Methods side by side with bootstrap intervals, and paired bootstrap tests of their differences."""
    import json

    from ..comparison import (
        compare,
        comparison_table,
        default_settings,
        numbers_table,
        p_value_tables,
        tests_heading,
        to_markdown,
    )
    from ..evaluate import unique_method_names
    from ..findings import inspect_scores, read_inspected
    from ..plots import check_figure_path, plot_results
    from ..settings import get_protocol, with_fppi_range
    from ..tables import print_tables

    if len(results) < 2:
        raise typer.BadParameter("give at least two results to compare", param_hint="RESULTS")
    names = method_names(name, results) or unique_method_names(results)
    if len(set(names)) < len(names):
        raise typer.BadParameter("two results have the same name; name them with --name", param_hint="--name")
    settings = setting_names(setting) if setting else list(default_settings(protocol.value))
    threshold = one_iou_threshold(iou)
    proto = with_fppi_range(get_protocol(protocol.value), fppi_range(fppi_range_text))
    splits = split_names(split)
    if plot is not None:
        check_figure_path(plot)
    ground_truth = load_gt(gt)
    for name_of_split in splits:
        ground_truth.split_mask(name_of_split)  # before any result is read
    read = [read_inspected(path, ground_truth, settings, splits, [protocol.value], devkit_shift=devkit_shift,
                           id_offset=id_offset, corners=corners, as_is=as_is) for path in results]
    found = compare(ground_truth, [(n, dets) for n, (dets, _) in zip(names, read)], proto, settings, splits,
                    resamples, seed, iou=threshold)
    scored = found.results()
    findings = [f for (dets, inspected), n in zip(read, names)
                for f in inspected + inspect_scores([r for r in scored if r.method == n], dets)]
    show_findings(findings)
    if format is OutputFormat.json:
        print(json.dumps({**found.to_dict(), "findings": [f.to_dict() for f in findings]}, indent=1))
    elif format is OutputFormat.csv:
        sys.stdout.write(numbers_table(found).to_csv())
    elif format is OutputFormat.markdown:
        sys.stdout.write(to_markdown(found))
    else:
        print_tables([comparison_table(found)] + p_value_tables(found), out, light=True)
        out.print(f"{tests_heading(found)}:", highlight=False, markup=False)
        for difference in found.differences:
            out.print(f"  {difference.sentence(found.adjusted)}", highlight=False, markup=False)
    if plot is not None:
        plot_results(scored, plot)
        say(f"figure written to {plot}")
