"""Scoring results: `eval`, `diagnose` and `compare`."""

from pathlib import Path
from typing import Annotated

import typer

from ..bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..diagnosis.params import DiagnosisParams
from .app import app, say, show_findings
from .command import Real, Whole
from .options import (
    DEFAULT_FPPI_TEXT,
    SCORES,
    AnyMetricsOption,
    AnyProtocolOption,
    AnyProtocolsOption,
    AsIsOption,
    BenchmarkOption,
    CategoryOffsetOption,
    CornersOption,
    DevkitShiftOption,
    FormatOption,
    FppiRangeOption,
    IdOffsetOption,
    IousOption,
    LlvipBoundsOption,
    NamesOption,
    OriginOption,
    OutputFormat,
    PlotOption,
    ResamplesOption,
    ScoringGroundTruthOption,
    SeedOption,
    SettingsOption,
    SplitsOption,
    method_names,
    one_iou_threshold,
    open_truth,
    read_options,
    render,
    scoring_options,
    setting_names,
)

# The diagnosis' defaults, which the options of `diagnose` show.
DIAGNOSIS = DiagnosisParams()
MAX_EXAMPLES = 100

RESULTS_HELP = (
    "Result files: COCO result JSON (0-based image ids), leaderboard txt (image_id,x,y,w,h,score, "
    "1-based), the devkit's aggregated txt, a per-image folder, or a .zip / .tar.gz of any of them. "
    "Other benchmarks: COCO result JSON with the ground truth's image ids and each category_id."
)


@app.command("eval")
def eval_command(
    results: Annotated[list[Path], typer.Argument(metavar="RESULT", help=RESULTS_HELP, show_default=False)],
    gt: ScoringGroundTruthOption = None,
    benchmark: BenchmarkOption = None,
    split: SplitsOption = None,
    images: Annotated[
        list[Path] | None,
        typer.Option(
            metavar="FILE",
            help="A list file of image names or ids to score as an extra split, beside the --split ones; repeatable.",
        ),
    ] = None,
    setting: SettingsOption = None,
    protocol: AnyProtocolsOption = None,
    iou: IousOption = None,
    metric: AnyMetricsOption = None,
    fppi_range_text: FppiRangeOption = DEFAULT_FPPI_TEXT,
    format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
    name: NamesOption = None,
    devkit_shift: DevkitShiftOption = True,
    id_offset: IdOffsetOption = 0,
    corners: CornersOption = False,
    as_is: AsIsOption = False,
    category_offset: CategoryOffsetOption = 0,
    origin: OriginOption = None,
    llvip_bounds: LlvipBoundsOption = None,
    curves: Annotated[bool, typer.Option(help="With --format json, include the full curves.")] = False,
) -> None:
    """Score results with the log-average miss rate, AP and AR, exactly as the leaderboard, the devkit or
    the 2024 challenge; on the other benchmarks (--benchmark) with their papers' AP and miss rates, per class.

    A result that looks misread (boxes written as corners, image ids off by one, detections of other
    images) stops with exit code 2 and the option that reads it right; --as-is scores it as read.
    """
    from ..benchmark_scoring import evaluate_files, make_request

    scoring = scoring_options(setting, iou, fppi_range_text, llvip_bounds)  # option values before any file
    read = read_options(devkit_shift, id_offset, corners, as_is, category_offset)
    request = make_request(
        open_truth(gt, benchmark, origin),
        protocols=[p.value for p in protocol or []],
        metrics=[m.value for m in metric or []],
        splits=split or [],
        images=images or [],
        scoring=scoring,
        read=read,
        names=method_names(name, results),
        curves=curves,
    )
    report = evaluate_files(request, results, plot)
    show_findings(report.findings)
    render(report, format)
    if plot is not None:
        say(f"figure written to {plot}")


# The operating point and the foreground: positive finite numbers.
POSITIVE = Real(0, 1e300, low_open=True)


@app.command("diagnose")
def diagnose_command(
    result: Annotated[
        Path,
        typer.Argument(metavar="RESULT", help="A result in any format `kaist-kit eval` reads.", show_default=False),
    ],
    gt: ScoringGroundTruthOption = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="FOLDER", help="Folder for diagnosis.json, report.md, the figures and the drawn examples."
        ),
    ] = None,
    setting: Annotated[
        str,
        typer.Option(
            metavar="SETTING",
            help="The setting the false positives, misses, oracles and examples are shown for (JSON has every "
            "setting): a named one or a custom one as `eval --setting` takes it; the LAMR table covers the "
            "ten and this one.",
        ),
    ] = DIAGNOSIS.main_setting,
    split: SplitsOption = None,
    protocol: AnyProtocolOption = None,
    iou: IousOption = None,
    fppi_range_text: FppiRangeOption = DEFAULT_FPPI_TEXT,
    resamples: ResamplesOption = DIAGNOSIS.resamples,
    seed: SeedOption = DIAGNOSIS.seed,
    fppi: Annotated[
        float,
        typer.Option(
            metavar="FPPI",
            parser=POSITIVE,
            help="Operating point: the last detection of the curve whose FPPI does not exceed this (a positive "
            "number).",
        ),
    ] = DIAGNOSIS.fppi,
    score_threshold: Annotated[
        float | None,
        typer.Option(metavar="SCORE", parser=SCORES, help="Operating point at this score threshold instead of --fppi."),
    ] = DIAGNOSIS.score_threshold,
    foreground_height: Annotated[
        float,
        typer.Option(
            metavar="PIXELS",
            parser=POSITIVE,
            help="Foreground: unoccluded pedestrians at least this tall (px); 115 is KAIST's 'near' (about 11 m).",
        ),
    ] = DIAGNOSIS.foreground_height,
    images: Annotated[
        list[Path] | None,
        typer.Option(
            metavar="FOLDER",
            help="Folders of the visible/lwir pictures, to draw the worst examples (KAIST's images/ "
            "tree or flat setXX_VYYY_IZZZZZ_visible.png files). Default: images/ beside the "
            "ground truth.",
        ),
    ] = None,
    examples: Annotated[
        int,
        typer.Option(
            metavar="N", parser=Whole(0, MAX_EXAMPLES), help=f"Worst examples per error type, 0 to {MAX_EXAMPLES}."
        ),
    ] = DIAGNOSIS.examples,
    name: Annotated[
        str | None, typer.Option(metavar="NAME", help="Method name. Default: the file name before '_result'.")
    ] = None,
    devkit_shift: DevkitShiftOption = True,
    id_offset: IdOffsetOption = 0,
    corners: CornersOption = False,
    as_is: AsIsOption = False,
    benchmark: BenchmarkOption = None,
    category_offset: CategoryOffsetOption = 0,
    origin: OriginOption = None,
    llvip_bounds: LlvipBoundsOption = None,
    format: FormatOption = OutputFormat.table,
    matches: Annotated[
        Path | None,
        typer.Option(
            "--matches",
            metavar="FILE",
            help="Also write every detection's outcome in every setting to this CSV file: "
            "TP, FP with its type, ignored, unscored, and the annotation matched.",
        ),
    ] = None,
) -> None:
    """Why a detector misses: LAMR with intervals, false positives by type, misses, foreground c*, oracles;
    on the other benchmarks (--benchmark), per-class rows of every protocol and split, and what each class's
    strongest detections are."""
    from ..benchmark_scoring import diagnose_file, make_request
    from ..rooted import existing_folder

    (setting,) = setting_names([setting])
    scoring = scoring_options(None, [one_iou_threshold(iou)], fppi_range_text, llvip_bounds)
    read = read_options(devkit_shift, id_offset, corners, as_is, category_offset)
    request = make_request(
        open_truth(gt, benchmark, origin),
        protocols=[protocol.value] if protocol else [],
        splits=split or [],
        scoring=scoring,
        read=read,
        names=[name] if name else None,
    )
    params = DiagnosisParams(
        main_setting=setting,
        resamples=resamples,
        seed=seed,
        fppi=fppi,
        score_threshold=score_threshold,
        foreground_height=foreground_height,
        examples=examples,
    )
    pictures = [existing_folder(folder) for folder in images or []]
    done = diagnose_file(request, result, params, out_dir=out_dir, pictures=pictures, matches=matches)
    show_findings(done.findings)
    render(done, format)
    for line in done.said():
        say(line)


@app.command("compare")
def compare_command(
    results: Annotated[
        list[Path],
        typer.Argument(
            metavar="RESULT", help="Two or more results, in any format `kaist-kit eval` reads.", show_default=False
        ),
    ],
    gt: ScoringGroundTruthOption = None,
    setting: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SETTING",
            help="Setting, named or custom as `eval --setting` takes it; repeatable. Default: the protocol's own "
            "(leaderboard: reasonable, reasonable-small, reasonable-heavy, all-pedestrians; matlab: reasonable "
            "and the devkit's six).",
        ),
    ] = None,
    split: SplitsOption = None,
    protocol: AnyProtocolOption = None,
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
    benchmark: BenchmarkOption = None,
    category_offset: CategoryOffsetOption = 0,
    origin: OriginOption = None,
    llvip_bounds: LlvipBoundsOption = None,
    format: FormatOption = OutputFormat.table,
    zoo: Annotated[
        bool,
        typer.Option(
            "--zoo",
            help="Compare with published results (`kaist-kit zoo`): the entries named among RESULT (NAME or "
            "zoo:NAME), else one file per method. Draws the figure papers draw, MR-FPPI curves of all / day / "
            "night with the legend ranked, as PDF and PNG (--plot NAME.pdf, default mr-fppi-zoo.pdf), and "
            "tables both protocols; no bootstrap.",
        ),
    ] = False,
) -> None:
    """Methods side by side with bootstrap intervals, and paired bootstrap tests of their differences; on the
    other benchmarks (--benchmark), their per-class rows side by side."""
    from ..benchmark_scoring import compare_files, make_request

    if zoo:
        zoo_only(setting=setting, split=split, iou=iou, fppi_range=fppi_range_text != DEFAULT_FPPI_TEXT,
                 resamples=resamples != DEFAULT_RESAMPLES, seed=seed != DEFAULT_SEED, benchmark=benchmark)  # fmt: skip
        _compare_zoo(results, gt, protocol, plot, name, read_options(devkit_shift, id_offset, corners, as_is), format)
        return
    scoring = scoring_options(setting, [one_iou_threshold(iou)], fppi_range_text, llvip_bounds)
    read = read_options(devkit_shift, id_offset, corners, as_is, category_offset)
    request = make_request(
        open_truth(gt, benchmark, origin),
        protocols=[protocol.value] if protocol else [],
        splits=split or [],
        scoring=scoring,
        read=read,
        names=method_names(name, results),
    )
    found = compare_files(request, results, resamples, seed, plot)
    show_findings(found.findings)
    render(found, format)
    if plot is not None:
        say(f"figure written to {plot}")


def zoo_only(**given) -> None:
    """Options `compare --zoo` does not take (it compares as papers do): one line naming the first."""
    for option, value in given.items():
        if value:
            raise typer.BadParameter(
                "--zoo compares the reasonable setting, all / day / night, as papers do, without the bootstrap",
                param_hint="--" + option.replace("_", "-"),
            )


def _compare_zoo(results, gt, protocol, plot, name, options, format) -> None:
    """`compare --zoo`: the user's results beside published ones, as a paper's figure and table."""
    from ..zoo.figure import compare_with_zoo, split_results

    files, entries = split_results(results, zoo=True)
    if name and len(name) != len(files):
        raise typer.BadParameter(f"{len(name)} names for {len(files)} result files", param_hint="--name")
    truth = open_truth(gt, None)
    if truth.benchmark.layout != "splits":
        raise typer.BadParameter(
            f"the zoo's results are KAIST's; the ground truth is scored as {truth.benchmark.name}", param_hint="--zoo"
        )
    found = compare_with_zoo(
        files, entries, truth.annotations, protocol.value if protocol else "leaderboard", plot, options, name
    )
    show_findings(found.findings)
    render(found, format)
