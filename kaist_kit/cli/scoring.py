"""Scoring results: `eval`, `diagnose` and `compare`."""

from pathlib import Path
from typing import Annotated

import typer

from ..bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..diagnosis.params import DiagnosisParams
from ..metrics.spec import LAMR
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
    benchmark_request,
    fppi_range,
    iou_thresholds,
    kaist_choices,
    kaist_only,
    kaist_settings,
    method_names,
    one_iou_threshold,
    open_truth,
    read_options,
    render,
    setting_names,
    split_names,
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
    from ..errors import InputError
    from ..metrics.spec import iou_conflict

    names = method_names(name, results)
    settings = setting_names(setting, benchmarks=True) if setting else None
    ious, fppi = iou_thresholds(iou), fppi_range(fppi_range_text)
    protocols = [p.value for p in protocol or []]
    metrics = list(dict.fromkeys(m.value for m in metric or []))
    options = read_options(devkit_shift, id_offset, corners, as_is, category_offset)
    truth = open_truth(gt, benchmark, origin)
    kaist_only(
        truth,
        **{
            "--plot": (plot, True),
            "--curves": (curves, True),
            "--no-devkit-shift": (not devkit_shift, True),
            "--category-offset": (category_offset, False),
            "--llvip-bounds": (llvip_bounds, False),
        },
    )
    if truth.kaist is None:
        _eval_benchmark(
            results,
            truth,
            names,
            split,
            images,
            settings,
            protocols,
            metrics,
            ious,
            fppi,
            options,
            llvip_bounds,
            format,
        )
        return
    from ..findings import evaluate_inspected
    from ..imagesets import list_split_names, select_images
    from ..plots import check_figure_path, plot_results
    from ..report import EvalReport

    kaist_choices(protocols, metrics)
    kaist_settings(settings)
    metrics = metrics or [LAMR.name]
    conflict = iou_conflict(metrics, ious)
    if conflict:
        raise InputError(conflict)
    if plot is not None:
        check_figure_path(plot)
    splits: list = split_names(split)
    ground_truth = truth.kaist
    for split_spec in splits:
        ground_truth.split_mask(split_spec)  # before any work
    for list_path, list_split in zip(images or [], list_split_names(images or [], splits)):
        splits.append((list_split, select_images(list_path, ground_truth)))
    found = evaluate_inspected(
        results,
        ground_truth,
        settings or ["reasonable"],
        splits,
        protocols or ["leaderboard"],
        names=names,
        options=options,
        ious=ious,
        metrics=metrics,
        fppi_range=fppi,
    )
    if plot is not None:
        check_figure_path(plot)  # again, now that every input is known

    show_findings(found.findings)
    render(EvalReport(found.results, found.findings, ground_truth.describe(), curves), format)
    if plot is not None:
        plot_results(found.results, plot)
        say(f"figure written to {plot}")


def _eval_benchmark(
    results, truth, names, split, images, settings, protocols, metrics, ious, fppi, options, llvip_bounds, format
) -> None:
    """`eval` on a benchmark other than KAIST: per-class rows of each of its protocols."""
    from ..benchmark_scoring import evaluate_benchmark_files

    request = benchmark_request(truth, protocols, metrics, split, images, settings, ious, fppi, llvip_bounds)
    found = evaluate_benchmark_files(results, truth, request, names, options)
    show_findings(found.findings)
    render(found, format)


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
    from ..diagnosis import diagnose_file
    from ..rooted import existing_folder

    (setting,) = setting_names([setting])
    options = read_options(devkit_shift, id_offset, corners, as_is, category_offset)
    iou_value, fppi_refs = one_iou_threshold(iou), fppi_range(fppi_range_text)
    truth = open_truth(gt, benchmark, origin)
    kaist_only(
        truth,
        **{
            "--out": (out_dir, True),
            "--matches": (matches, True),
            "--images": (images, True),
            "--setting": (setting != DIAGNOSIS.main_setting, True),
            "--resamples": (resamples != DIAGNOSIS.resamples, True),
            "--seed": (seed != DIAGNOSIS.seed, True),
            "--fppi": (fppi != DIAGNOSIS.fppi, True),
            "--score-threshold": (score_threshold != DIAGNOSIS.score_threshold, True),
            "--foreground-height": (foreground_height != DIAGNOSIS.foreground_height, True),
            "--examples": (examples != DIAGNOSIS.examples, True),
            "--no-devkit-shift": (not devkit_shift, True),
            "--category-offset": (category_offset, False),
            "--llvip-bounds": (llvip_bounds, False),
        },
    )
    if truth.kaist is None:
        from ..benchmark_scoring import diagnose_benchmark_file

        request = benchmark_request(
            truth, [protocol.value] if protocol else [], [], split, None, None, [iou_value], fppi_refs, llvip_bounds
        )
        found = diagnose_benchmark_file(result, truth, request, name, options)
        show_findings(found.findings)
        render(found, format)
        return
    kaist_choices([protocol.value] if protocol else [], [])
    params = DiagnosisParams(
        protocol=protocol.value if protocol else DIAGNOSIS.protocol,
        splits=tuple(split_names(split)),
        main_setting=setting,
        resamples=resamples,
        seed=seed,
        fppi=fppi,
        score_threshold=score_threshold,
        foreground_height=foreground_height,
        examples=examples,
        iou=iou_value,
        fppi_range=fppi_refs,
    )
    ground_truth, gt_path = truth.kaist, truth.path
    pictures = [existing_folder(folder) for folder in images] if images else [gt_path.parent / "images", gt_path.parent]

    done = diagnose_file(
        result, ground_truth, params, options, name, out_dir=out_dir, pictures=pictures, matches=matches
    )

    show_findings(done.findings)
    render(done, format)
    if done.written is not None:
        say(
            f"diagnosis written to {out_dir}: diagnosis.json, report.md, 4 figures, "
            f"{len(done.written.pictures)} drawn examples"
        )
    if done.matches is not None:
        say(f"matches written to {matches}: {len(done.dets)} detections x {len(params.settings)} settings")


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
    from ..comparison import compare_files
    from ..evaluate import unique_method_names
    from ..plots import check_figure_path, plot_results
    from ..settings import get_protocol, with_fppi_range

    if zoo:
        for option, given in (
            ("--setting", setting),
            ("--split", split),
            ("--iou", iou),
            ("--fppi-range", fppi_range_text != DEFAULT_FPPI_TEXT),
            ("--resamples", resamples != DEFAULT_RESAMPLES),
            ("--seed", seed != DEFAULT_SEED),
            ("--benchmark", benchmark),
        ):
            if given:
                raise typer.BadParameter(
                    "--zoo compares the reasonable setting, all / day / night, as papers do, without the bootstrap",
                    param_hint=option,
                )
        _compare_zoo(results, gt, protocol, plot, name, read_options(devkit_shift, id_offset, corners, as_is), format)
        return
    if len(results) < 2:
        raise typer.BadParameter("give at least two results to compare", param_hint="RESULT")
    names = method_names(name, results) or unique_method_names(results)
    if len(set(names)) < len(names):
        raise typer.BadParameter("two results have the same name; name them with --name", param_hint="--name")
    settings = setting_names(setting, benchmarks=True) if setting else None
    options = read_options(devkit_shift, id_offset, corners, as_is, category_offset)
    iou_value, fppi_refs = one_iou_threshold(iou), fppi_range(fppi_range_text)
    if plot is not None:
        check_figure_path(plot)
    truth = open_truth(gt, benchmark, origin)
    kaist_only(
        truth,
        **{
            "--plot": (plot, True),
            "--resamples": (resamples != DEFAULT_RESAMPLES, True),
            "--seed": (seed != DEFAULT_SEED, True),
            "--no-devkit-shift": (not devkit_shift, True),
            "--category-offset": (category_offset, False),
            "--llvip-bounds": (llvip_bounds, False),
        },
    )
    if truth.kaist is None:
        from ..benchmark_scoring import compare_benchmark_files

        request = benchmark_request(
            truth, [protocol.value] if protocol else [], [], split, None, settings, [iou_value], fppi_refs, llvip_bounds
        )
        found = compare_benchmark_files(results, truth, request, names, options)
        show_findings(found.findings)
        render(found, format)
        return
    kaist_choices([protocol.value] if protocol else [], [])
    kaist_settings(settings)
    proto = with_fppi_range(get_protocol(protocol.value if protocol else "leaderboard"), fppi_refs)
    ground_truth = truth.kaist

    found = compare_files(
        results, ground_truth, names, proto, settings, split_names(split), resamples, seed, iou_value, options
    )
    if plot is not None:
        check_figure_path(plot)  # again, now that every input is known

    show_findings(found.findings)
    render(found, format)
    if plot is not None:
        plot_results(found.comparison.results(), plot)
        say(f"figure written to {plot}")


def _compare_zoo(results, gt, protocol, plot, name, options, format) -> None:
    """`compare --zoo`: the user's results beside published ones, as a paper's figure and table."""
    from ..zoo.figure import compare_with_zoo, split_results

    files, entries = split_results(results, zoo=True)
    if name and len(name) != len(files):
        raise typer.BadParameter(f"{len(name)} names for {len(files)} result files", param_hint="--name")
    truth = open_truth(gt, None)
    kaist_only(truth, **{"--zoo": (True, True)})
    found = compare_with_zoo(
        files, entries, truth.kaist, protocol.value if protocol else "leaderboard", plot, options, name
    )
    show_findings(found.findings)
    render(found, format)
