"""Scoring results: `eval`, `diagnose` and `compare`."""

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from ..diagnosis.params import DiagnosisParams
from ..metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, Resampling
from .app import app, say, show_findings
from .command import Real, whole_option
from .options import (
    DEFAULT_FPPI_TEXT,
    ONE_PROTOCOL_REQUEST,
    SCORES,
    SCORING_REQUEST,
    AnyMetricsOption,
    FormatOption,
    NamesOption,
    OptionGroup,
    OutputFormat,
    PlotOption,
    RequestOptions,
    ResamplesOption,
    SeedOption,
    SettingsOption,
    method_names,
    open_truth,
    option_parameters,
    render,
    repeated,
    setting_names,
    with_groups,
)

# The diagnosis' defaults, which the options of `diagnose` show.
DIAGNOSIS = DiagnosisParams()
MAX_EXAMPLES = 100

RESULTS_HELP = (
    "Result files: COCO result JSON (0-based image ids), leaderboard txt (image_id,x,y,w,h,score, "
    "1-based), the devkit's aggregated txt, a per-image folder, or a .zip / .tar.gz of any of them. "
    "Other benchmarks: COCO result JSON with the ground truth's image ids and each category_id."
)


ImageListsOption = repeated(
    Path,
    metavar="FILE",
    help="A list file of image names or ids to score as an extra split, beside the --split ones; repeatable.",
)


@app.command("eval")
@with_groups(asked=SCORING_REQUEST)
def eval_command(
    results: Annotated[list[Path], typer.Argument(metavar="RESULT", help=RESULTS_HELP)],
    asked: RequestOptions = None,
    images: ImageListsOption = None,
    setting: SettingsOption = None,
    metric: AnyMetricsOption = None,
    format: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
    name: NamesOption = None,
    curves: Annotated[bool, typer.Option(help="With --format json, include the full curves.")] = False,
) -> None:
    """Score results with the log-average miss rate, AP and AR, exactly as the leaderboard, the devkit or
    the 2024 challenge; on the other benchmarks (--benchmark) with their papers' AP and miss rates, per class.

    A result that looks misread (boxes written as corners, image ids off by one, detections of other
    images) stops with exit code 2 and the option that reads it right; --as-is scores it as read.
    """
    from ..scoring.run import evaluate_files

    request = asked.request(
        setting,
        method_names(name, results),
        metrics=[m.value for m in metric or []],
        images=images or [],
        curves=curves,
    )
    report = evaluate_files(request, results, plot)
    show_findings(report.findings)
    render(report, format)
    if plot is not None:
        say(f"figure written to {plot}")


# The operating point and the foreground: positive finite numbers.
POSITIVE = Real(0, 1e300, low_open=True)


MainSettingOption = Annotated[
    str,
    typer.Option(
        metavar="SETTING",
        help="The setting the false positives, misses, oracles and examples are shown for (JSON has every "
        "setting): a named one or a custom one as `eval --setting` takes it; the LAMR table covers the "
        "ten and this one.",
    ),
]
FppiOption = Annotated[
    float,
    typer.Option(
        metavar="FPPI",
        parser=POSITIVE,
        help="Operating point: the last detection of the curve whose FPPI does not exceed this (a positive number).",
    ),
]
ScoreThresholdOption = Annotated[
    float | None,
    typer.Option(metavar="SCORE", parser=SCORES, help="Operating point at this score threshold instead of --fppi."),
]
ForegroundOption = Annotated[
    float,
    typer.Option(
        metavar="PIXELS",
        parser=POSITIVE,
        help="Foreground: unoccluded pedestrians at least this tall (px); 115 is KAIST's 'near' (about 11 m).",
    ),
]
ExamplesOption = whole_option(0, MAX_EXAMPLES, help=f"Worst examples per error type, 0 to {MAX_EXAMPLES}.")


def _diagnosis_params(setting: str, **questions) -> DiagnosisParams:
    """The diagnosis' questions from `diagnose`'s options (the setting by its name, custom ones included)."""
    (setting,) = setting_names([setting])
    return DiagnosisParams(main_setting=setting, **questions)


# What `diagnose` asks of the diagnosis: the main setting, the bootstrap, the operating point, the
# foreground and the examples, each option's default the library's.
DIAGNOSIS_QUESTIONS = OptionGroup(
    option_parameters(
        ("setting", MainSettingOption, DIAGNOSIS.main_setting),
        ("resamples", ResamplesOption, DIAGNOSIS.resamples),
        ("seed", SeedOption, DIAGNOSIS.seed),
        ("fppi", FppiOption, DIAGNOSIS.fppi),
        ("score_threshold", ScoreThresholdOption, DIAGNOSIS.score_threshold),
        ("foreground_height", ForegroundOption, DIAGNOSIS.foreground_height),
        ("examples", ExamplesOption, DIAGNOSIS.examples),
    ),
    _diagnosis_params,
)


PictureFoldersOption = repeated(
    Path,
    metavar="FOLDER",
    help="Folders of the visible/lwir pictures, to draw the worst examples (KAIST's images/ "
    "tree or flat setXX_VYYY_IZZZZZ_visible.png files). Default: images/ beside the "
    "ground truth.",
)


@app.command("diagnose")
@with_groups(questions=DIAGNOSIS_QUESTIONS, asked=ONE_PROTOCOL_REQUEST)
def diagnose_command(
    result: Annotated[
        Path,
        typer.Argument(metavar="RESULT", help="A result in any format `kaist-kit eval` reads."),
    ],
    asked: RequestOptions = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="FOLDER", help="Folder for diagnosis.json, report.md, the figures and the drawn examples."
        ),
    ] = None,
    questions: DiagnosisParams = DIAGNOSIS,
    images: PictureFoldersOption = None,
    name: Annotated[
        str | None, typer.Option(metavar="NAME", help="Method name. Default: the file name before '_result'.")
    ] = None,
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
    from ..io.rooted import existing_folder
    from ..scoring.run import diagnose_file

    request = asked.request(None, [name] if name else None)
    pictures = [existing_folder(folder) for folder in images or []]
    done = diagnose_file(request, result, questions, out_dir=out_dir, pictures=pictures, matches=matches)
    show_findings(done.findings)
    render(done, format)
    for line in done.said():
        say(line)


CompareSettingsOption = repeated(
    str,
    metavar="SETTING",
    help="Setting, named or custom as `eval --setting` takes it; repeatable. Default: the protocol's own "
    "(leaderboard: reasonable, reasonable-small, reasonable-heavy, all-pedestrians; matlab: reasonable "
    "and the devkit's six).",
)


@app.command("compare")
@with_groups(asked=ONE_PROTOCOL_REQUEST)
def compare_command(
    results: Annotated[
        list[Path],
        typer.Argument(metavar="RESULT", help="Two or more results, in any format `kaist-kit eval` reads."),
    ],
    asked: RequestOptions = None,
    setting: CompareSettingsOption = None,
    resamples: ResamplesOption = DEFAULT_RESAMPLES,
    seed: SeedOption = DEFAULT_SEED,
    plot: PlotOption = None,
    name: NamesOption = None,
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
    from ..scoring.run import compare_files

    if zoo:
        zoo_only(
            setting=setting,
            split=asked.split,
            iou=asked.iou,
            fppi_range=asked.fppi_range_text != DEFAULT_FPPI_TEXT,
            resamples=resamples != DEFAULT_RESAMPLES,
            seed=seed != DEFAULT_SEED,
            benchmark=asked.benchmark,
        )
        _compare_zoo(results, asked, plot, name, format)
        return
    request = asked.request(setting, method_names(name, results))
    found = compare_files(request, results, Resampling(resamples, seed), plot)
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


def _compare_zoo(results, asked: RequestOptions, plot, name, format) -> None:
    """`compare --zoo`: the user's results beside published ones, as a paper's figure and table."""
    from ..zoo.figure import compare_with_zoo, split_results

    files, entries = split_results(results, zoo=True)
    if name and len(name) != len(files):
        raise typer.BadParameter(f"{len(name)} names for {len(files)} result files", param_hint="--name")
    truth = open_truth(asked.gt, None)
    if truth.benchmark.layout != "splits":
        raise typer.BadParameter(
            f"the zoo's results are KAIST's; the ground truth is scored as {truth.benchmark.name}", param_hint="--zoo"
        )
    protocol = asked.protocols[0].value if asked.protocols else "leaderboard"
    read = replace(asked.read, category_offset=0)
    found = compare_with_zoo(files, entries, truth.annotations, protocol, plot, read, name)
    show_findings(found.findings)
    render(found, format)
