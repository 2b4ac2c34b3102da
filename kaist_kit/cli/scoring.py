"""Scoring results: `eval`, `diagnose` and `compare`."""


from pathlib import Path
from typing import Annotated

import typer

from ..bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..diagnosis.params import DiagnosisParams
from ..groundtruth import load_ground_truth
from .app import app, say, show_findings
from .command import Real, Whole
from .options import (
    DEFAULT_FPPI_TEXT,
    DEFAULT_PROTOCOLS,
    SCORES,
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
    read_options,
    render,
    setting_names,
    split_names,
)

# The diagnosis' defaults, which the options of `diagnose` show.
DIAGNOSIS = DiagnosisParams()
MAX_EXAMPLES = 100
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
    from ..errors import InputError
    from ..findings import evaluate_inspected
    from ..imagesets import list_split_names, select_images
    from ..plots import check_figure_path, plot_results
    from ..report import EvalReport
    from ..settings import metric_iou_conflict

    names = method_names(name, results)
    settings = setting_names(setting)
    ious, metrics, fppi = iou_thresholds(iou), metric_names(metric), fppi_range(fppi_range_text)
    conflict = metric_iou_conflict(metrics, ious)
    if conflict:
        raise InputError(conflict)
    options = read_options(devkit_shift, id_offset, corners, as_is)
    if plot is not None:
        check_figure_path(plot)
    splits: list = split_names(split)
    ground_truth = load_gt(gt)
    for split_spec in splits:
        ground_truth.split_mask(split_spec)  # before any work
    for list_path, list_split in zip(images or [], list_split_names(images or [], splits)):
        splits.append((list_split, select_images(list_path, ground_truth)))
    found = evaluate_inspected(results, ground_truth, settings, splits, [p.value for p in protocol], names=names,
                               options=options, ious=ious, metrics=metrics, fppi_range=fppi)
    if plot is not None:
        check_figure_path(plot)  # again, now that every input is known

    show_findings(found.findings)
    render(EvalReport(found.results, found.findings, ground_truth.describe(), curves), format)
    if plot is not None:
        plot_results(found.results, plot)
        say(f"figure written to {plot}")


# The operating point and the foreground: positive finite numbers.
POSITIVE = Real(0, 1e300, low_open=True)


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
        metavar="FPPI", parser=POSITIVE,
        help="Operating point: the last detection of the curve whose FPPI does not exceed this (a positive "
             "number).")] = DIAGNOSIS.fppi,
    score_threshold: Annotated[float | None, typer.Option(
        metavar="SCORE", parser=SCORES, help="Operating point at this score threshold instead of --fppi.")]
    = DIAGNOSIS.score_threshold,
    foreground_height: Annotated[float, typer.Option(
        metavar="PIXELS", parser=POSITIVE,
        help="Foreground: unoccluded pedestrians at least this tall (px); 115 is KAIST's 'near' (about "
             "11 m).")] = DIAGNOSIS.foreground_height,
    images: Annotated[list[Path] | None, typer.Option(
        metavar="FOLDER", help="Folders of the visible/lwir pictures, to draw the worst examples (KAIST's images/ "
                               "tree or flat setXX_VYYY_IZZZZZ_visible.png files). Default: images/ beside the "
                               "ground truth.")] = None,
    examples: Annotated[int, typer.Option(
        metavar="N", parser=Whole(0, MAX_EXAMPLES), help=f"Worst examples per error type, 0 to {MAX_EXAMPLES}.")]
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
    from ..diagnosis import diagnose_file

    (setting,) = setting_names([setting])
    params = DiagnosisParams(protocol=protocol.value, splits=tuple(split_names(split)), main_setting=setting,
                             resamples=resamples, seed=seed, fppi=fppi, score_threshold=score_threshold,
                             foreground_height=foreground_height, examples=examples, iou=one_iou_threshold(iou),
                             fppi_range=fppi_range(fppi_range_text))
    options = read_options(devkit_shift, id_offset, corners, as_is)
    gt_path = locate_gt(gt)
    ground_truth = load_ground_truth(gt_path)
    pictures = images or [gt_path.parent / "images", gt_path.parent]

    done = diagnose_file(result, ground_truth, params, options, name, out_dir=out_dir, pictures=pictures,
                         matches=matches)

    show_findings(done.findings)
    render(done, format)
    if done.written is not None:
        say(f"diagnosis written to {out_dir}: diagnosis.json, report.md, 4 figures, "
            f"{len(done.written.pictures)} drawn examples")
    if done.matches is not None:
        say(f"matches written to {matches}: {len(done.dets)} detections x {len(params.settings)} settings")


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
    from ..comparison import compare_files
    from ..evaluate import unique_method_names
    from ..plots import check_figure_path, plot_results
    from ..settings import get_protocol, with_fppi_range

    if len(results) < 2:
        raise typer.BadParameter("give at least two results to compare", param_hint="RESULT")
    names = method_names(name, results) or unique_method_names(results)
    if len(set(names)) < len(names):
        raise typer.BadParameter("two results have the same name; name them with --name", param_hint="--name")
    settings = setting_names(setting) if setting else None
    proto = with_fppi_range(get_protocol(protocol.value), fppi_range(fppi_range_text))
    options = read_options(devkit_shift, id_offset, corners, as_is)
    if plot is not None:
        check_figure_path(plot)
    ground_truth = load_gt(gt)

    found = compare_files(results, ground_truth, names, proto, settings, split_names(split), resamples, seed,
                          one_iou_threshold(iou), options)
    if plot is not None:
        check_figure_path(plot)  # again, now that every input is known

    show_findings(found.findings)
    render(found, format)
    if plot is not None:
        plot_results(found.comparison.results(), plot)
        say(f"figure written to {plot}")
