"""The `kaist-kit` command. Each verb is a thin shell over a library function."""

from __future__ import annotations

import sys
import warnings
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from .. import __version__
from ..errors import InputError, KitWarning

app = typer.Typer(
    name="kaist-kit",
    help="Tools for the KAIST multispectral pedestrian benchmark: convert, evaluate, train, submit.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    if issubclass(category, KitWarning):
        err.print(f"[yellow]warning:[/yellow] {escape(str(message))}", markup=True, highlight=False)
    else:
        err.print(f"warning: {category.__name__}: {message}", markup=False, highlight=False)


def main() -> None:
    """Console entry point: input errors become one line on stderr and exit code 2."""
    warnings.showwarning = _show_warning
    warnings.simplefilter("default", KitWarning)
    try:
        app()
    except InputError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", markup=True, highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


def _version(value: bool) -> None:
    if value:
        out.print(f"kaist-kit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    pass


class Split(str, Enum):
    all = "all"
    day = "day"
    night = "night"


class ProtocolName(str, Enum):
    leaderboard = "leaderboard"
    matlab = "matlab"


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


def _setting_names(values: list[str] | None) -> list[str]:
    from ..settings import SETTINGS

    names = list(dict.fromkeys(values or ["reasonable"]))
    for name in names:
        if name not in SETTINGS:
            raise typer.BadParameter(f"unknown setting {name!r}; choose from {', '.join(SETTINGS)}",
                                     param_hint="--setting")
    return names


@app.command("eval")
def eval_command(
    results: Annotated[list[Path], typer.Argument(
        help="Result files: COCO result JSON (0-based image ids), leaderboard txt "
             "(image_id,x,y,w,h,score, 1-based), the devkit's aggregated txt, a per-image folder, "
             "or a .zip / .tar.gz of any of them.", show_default=False)],
    gt: Annotated[Path | None, typer.Option(
        help="Ground truth (COCO JSON). Default: $KAIST_KIT_GT, then "
             "~/.local/share/kaist-kit/test-all-20.leaderboard.json.")] = None,
    split: Annotated[list[Split] | None, typer.Option(
        help="Split to score; repeat for several. Default: all, day and night.")] = None,
    images: Annotated[list[Path] | None, typer.Option(
        help="A list file of image names or ids to score as an extra split; repeatable.")] = None,
    setting: Annotated[list[str] | None, typer.Option(
        help="Setting: reasonable, reasonable-small, reasonable-heavy, all-pedestrians, near, medium, "
             "far, occ-none, occ-partial, occ-heavy; repeatable. Default: reasonable.")] = None,
    protocol: Annotated[list[ProtocolName], typer.Option(
        help="leaderboard: the public leaderboard's evaluator. matlab: the KAIST devkit most papers "
             "quote. Repeat for both.")] = [ProtocolName.leaderboard],  # noqa: B006
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
    plot: Annotated[Path | None, typer.Option(
        help="Also draw the MR-FPPI curves to this figure (.png, .pdf or .svg).")] = None,
    name: Annotated[list[str] | None, typer.Option(
        help="Method name for each result, in order. Default: the file name before '_result'.")] = None,
    devkit_shift: Annotated[bool, typer.Option(
        help="Read per-image folders as the devkit does (x1+1, y1+1, x2-x1, y2-y1 at four "
             "decimals). --no-devkit-shift reads x1, y1 as they are.")] = True,
    curves: Annotated[bool, typer.Option(help="With --format json, include the full curves.")] = False,
) -> None:
    """Score results with the log-average miss rate, exactly as the leaderboard or the devkit."""
    from .. import report
    from ..evaluate import evaluate_files
    from ..groundtruth import find_gt, load_ground_truth
    from ..imagesets import list_name, read_image_list
    from ..plots import check_figure_path, plot_results

    if name and len(name) != len(results):
        raise typer.BadParameter(f"{len(name)} names for {len(results)} results", param_hint="--name")
    settings = _setting_names(setting)
    if plot is not None:
        check_figure_path(plot)
    splits: list = [s.value for s in split] if split else ([] if images else ["all", "day", "night"])
    for list_path in images or []:
        splits.append((list_name(list_path), read_image_list(list_path)))
    ground_truth = load_ground_truth(find_gt(gt))
    for _, selection in (s for s in splits if not isinstance(s, str)):
        ground_truth.split_mask(selection)  # reject unknown images before any work
    found = evaluate_files(results, ground_truth, settings, splits, [p.value for p in protocol],
                           names=name, devkit_shift=devkit_shift)

    if format is OutputFormat.json:
        print(report.to_json(found, with_curve=curves))
    elif format is OutputFormat.csv:
        sys.stdout.write(report.to_csv(found))
    elif format is OutputFormat.markdown:
        sys.stdout.write(report.to_markdown(found))
    else:
        caption = "\n".join([f"ground truth: {ground_truth.describe()}"] + report.protocol_notes(found))
        report.print_table(found, out, caption)
    if plot is not None:
        plot_results(found, plot)
        err.print(f"figure written to {plot}")


@app.command("submit")
def submit_command(
    result: Annotated[Path, typer.Argument(
        help="A result in any format `kaist-kit eval` reads (COCO result JSON, leaderboard txt, "
             "per-image folder, archives, `kaist-kit test` output); with --check, also a submission zip.",
        show_default=False)],
    out_zip: Annotated[Path | None, typer.Option("--out", help="The submission zip to write.")] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Only validate RESULT as it is and predict its leaderboard score; write nothing. "
                        "Exit code 1 when the leaderboard would not score it correctly.")] = False,
    gt: Annotated[Path | None, typer.Option(
        help="Ground truth (COCO JSON), for the self-evaluated miss rate and the overlap checks. "
             "Default: $KAIST_KIT_GT, then ~/.local/share/kaist-kit/test-all-20.leaderboard.json, "
             "else none.")] = None,
    method: Annotated[str | None, typer.Option(
        help="Method name for the manifest and the results file. Default: the file name before "
             "'_result'.")] = None,
    id_offset: Annotated[int, typer.Option(
        help="Add this to every image id as written: -1 for COCO JSON written with 1-based ids, "
             "1 for txt written 0-based.")] = 0,
    corners: Annotated[bool, typer.Option(
        "--corners", help="Read boxes as corners x1, y1, x2, y2 instead of x, y, width, height.")] = False,
    devkit_shift: Annotated[bool, typer.Option(
        help="Read per-image folders as the devkit does (x1+1, y1+1, x2-x1, y2-y1 at four "
             "decimals). --no-devkit-shift reads x1, y1 as they are.")] = True,
) -> None:
    """Package a result as a leaderboard submission (a zip with the results and a manifest), or check one."""
    from ..groundtruth import find_gt, load_ground_truth
    from ..submission import check as check_file
    from ..submission import package
    from ..submission.report import check_lines, package_lines

    if check and (out_zip is not None or id_offset or corners or method):
        raise typer.BadParameter("--check validates the file as it is; --out, --method, --id-offset and "
                                 "--corners apply when packaging", param_hint="--check")
    if not check and out_zip is None:
        raise typer.BadParameter("say where to write the submission, e.g. --out submission.zip",
                                 param_hint="--out")
    if gt is None:
        try:
            gt = find_gt(None)
        except InputError:
            gt = None  # the packager checks what it can without labels, and says so
    ground_truth = load_ground_truth(gt) if gt is not None else None
    if check:
        report = check_file(result, ground_truth, devkit_shift=devkit_shift)
        out.print("\n".join(check_lines(report)), markup=False, highlight=False)
        if not report.ok:
            raise typer.Exit(1)
        return
    written = package(result, out_zip, ground_truth, method, id_offset=id_offset, corners=corners,
                      devkit_shift=devkit_shift)
    out.print("\n".join(package_lines(written)), markup=False, highlight=False)
class SourceFormat(str, Enum):
    original = "original"
    xml = "xml"
    sanitized = "sanitized"
    paired = "paired"
    improved = "improved"


class Modality(str, Enum):
    visible = "visible"
    lwir = "lwir"


def _parse_size(value: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in value.lower().split("x"))
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not WIDTHxHEIGHT, e.g. 640x512") from None
    return width, height


@app.command("convert")
def convert_command(
    format: Annotated[SourceFormat, typer.Argument(help="original (bbGt tree), xml (official XML tree), "
                                                   "sanitized, paired or improved.", show_default=False)],
    source: Annotated[Path, typer.Argument(help="A folder of annotation files, or a .zip / .tar.gz of one.",
                                           show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="The COCO JSON to write.", show_default=False)],
    image_set: Annotated[str | None, typer.Option(
        help="Frames to keep, in this order: a list file, or a name such as train-all-02 or test-all-20 "
             "(read from imageSets/ beside the source, else built by the official rule).")] = None,
    compat: Annotated[str | None, typer.Option(
        help="'leaderboard': write exactly the layout of the leaderboard's ground truth.")] = None,
    strict: Annotated[bool, typer.Option(
        help="Fail (exit code 2, nothing written) on any problem that changes the annotations.")] = False,
    reference: Annotated[Modality, typer.Option(
        help="Paired annotations: the modality whose box becomes 'bbox'.")] = Modality.lwir,
    image_size: Annotated[str, typer.Option(
        help="Image size for formats that do not record it (bbGt).")] = "640x512",
) -> None:
    """Convert KAIST annotations to COCO JSON, reporting every problem with its file and line."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..converters import COMPAT, convert

    if compat is not None and compat not in COMPAT:
        raise typer.BadParameter(f"unknown layout {compat!r}; choose from {', '.join(COMPAT)}",
                                 param_hint="--compat")
    size = _parse_size(image_size)
    with Progress(TextColumn("converting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("frames", total=None)
        result = convert(format.value, source, out, image_set=image_set, compat=compat, strict=strict,
                         reference=reference.value, image_size=size,
                         echo=lambda line: bar.console.print(line, highlight=False, markup=False),
                         progress=lambda done, total: bar.update(task, completed=done, total=total))
    labels = ", ".join(f"{n} {label}" for label, n in result.labels.items()) or "no objects"
    listed = f" of {result.image_set}" if result.image_set else ""
    err.print(f"wrote {out}: {result.n_images} images{listed}, {result.n_annotations} boxes ({labels})",
              highlight=False)
    err.print(f"problems: {result.problems.summary()}", highlight=False)


@app.command("synth")
def synth_command(
    out: Annotated[Path, typer.Argument(help="A new or empty folder.", show_default=False)],
    seed: Annotated[int, typer.Option(help="Random seed: the same seed writes the same files.")] = 0,
    train: Annotated[int, typer.Option(help="Training frames (half day, half night).")] = 40,
    test: Annotated[int, typer.Option(help="Test frames (half day, half night).")] = 40,
    size: Annotated[str, typer.Option(help="Image size WIDTHxHEIGHT.")] = "640x512",
    quirks: Annotated[bool, typer.Option(
        help="Add the real dataset's defects (stray files, CRLF, zero-size boxes, disagreeing paired "
             "files) for testing converters.")] = False,
) -> None:
    """Write a small synthetic KAIST: image pairs, every annotation format and the image-set lists."""
    from rich.progress import Progress

    from ..synth import SynthConfig, generate

    width, height = _parse_size(size)
    config = SynthConfig(seed=seed, train_frames=train, test_frames=test, width=width, height=height,
                         quirks=quirks)
    with Progress(console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("synthesising", total=train + test)
        summary = generate(out, config, progress=lambda done, total: bar.update(task, completed=done))
    labels = ", ".join(f"{n} {label}" for label, n in summary.labels.items())
    err.print(f"wrote {out}: {summary.frames['train']} training and {summary.frames['test']} test frames "
              f"at {width}x{height}, {labels}", highlight=False)


@app.command("stats")
def stats_command(
    annotations: Annotated[Path, typer.Argument(help="A COCO annotation file (kit or leaderboard layout).",
                                                show_default=False)],
    plot: Annotated[Path | None, typer.Option(help="Also draw a height histogram (.png, .pdf, .svg).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
) -> None:
    """Counts per label, occlusion and day/night; pedestrians per image; heights and scales."""
    import json

    from rich.table import Table

    from ..groundtruth import load_ground_truth
    from ..plots import check_figure_path
    from ..stats import dataset_stats, plot_heights

    if plot is not None:
        check_figure_path(plot)
    gt = load_ground_truth(annotations)
    stats = dataset_stats(gt)
    if json_output:
        print(json.dumps(stats, indent=1))
    else:
        table = Table(title=f"{annotations}: {stats['images']} images, {stats['boxes']} boxes",
                      show_header=False, title_justify="left")
        table.add_column(style="bold")
        table.add_column()
        table.add_row("labels", ", ".join(f"{label} {n}" for label, n in stats["labels"].items()))
        table.add_row("pedestrians", f"{stats['pedestrians']} (boxes labelled person)")
        table.add_row("occlusion", ", ".join(f"{k} {v}" for k, v in stats["occlusion"].items()))
        for period, values in stats["periods"].items():
            table.add_row(period, f"{values['images']} images, {values['pedestrians']} pedestrians")
        per = stats["pedestrians_per_image"]
        table.add_row("per image", f"mean {per['mean']:.2f}, max {per['max']}, "
                                   f"{per['images_with_none']} images with none")
        q = stats["height_quantiles"]
        if q["50%"] is not None:
            table.add_row("height", f"10% {q['10%']:.0f} px, median {q['50%']:.0f} px, 90% {q['90%']:.0f} px")
        scales = stats["caltech_scales"]
        table.add_row("scale (Caltech)", f"near (80 px and up) {100 * scales['near']:.1f}%, medium "
                                         f"{100 * scales['medium']:.1f}%, far (30 px or less) "
                                         f"{100 * scales['far']:.1f}%")
        out.print(table)
    if plot is not None:
        plot_heights(gt, plot)
        err.print(f"figure written to {plot}")


@app.command("show")
def show_command(
    frames: Annotated[list[str], typer.Argument(help="Frames to draw: setXX/VYYY/IZZZZZ names or image ids.",
                                                show_default=False)],
    gt: Annotated[Path | None, typer.Option(help="Ground truth (COCO JSON); default as for eval.")] = None,
    images: Annotated[list[Path] | None, typer.Option(
        help="Folder of the pictures: KAIST's images/ tree or flat setXX_VYYY_IZZZZZ_visible.png files. "
             "Default: images/ beside the ground truth.")] = None,
    det: Annotated[list[Path] | None, typer.Option(help="Result files to draw; repeatable.")] = None,
    score_threshold: Annotated[float, typer.Option(help="Draw detections scoring at least this.")] = 0.3,
    out: Annotated[Path, typer.Option("--out", help="PNG to write; with several frames, the frame name is "
                                      "added to it.", show_default=False)] = Path("frame.png"),
) -> None:
    """Draw ground truth (ignore regions dashed) and detections on the visible and thermal pictures."""
    from ..detections import load_detections, method_name
    from ..groundtruth import find_gt, load_ground_truth
    from ..plots import check_figure_path
    from ..show import draw_frame, find_pictures

    check_figure_path(out)
    gt_path = find_gt(gt)
    ground_truth = load_ground_truth(gt_path)
    roots = images or [gt_path.parent / "images", gt_path.parent]
    drawn = [(method_name(p), load_detections(p, ground_truth)) for p in det or []]
    for frame in frames:
        index = ground_truth.image_index(int(frame) if frame.isdigit() else frame)
        name = ground_truth.image_names[index]
        target = out if len(frames) == 1 else out.with_name(f"{out.stem}_{name.replace('/', '_')}{out.suffix}")
        visible, lwir = find_pictures(name, roots)
        draw_frame(ground_truth, index, visible, lwir, target, drawn, score_threshold)
        err.print(f"{name} drawn to {target}", highlight=False)


@app.command("demo")
def demo_command(
    folder: Annotated[Path, typer.Option("--out", help="Folder for the demo's files (replaced on a rerun).")]
    = Path("kaist-kit-demo"),
    frames: Annotated[int, typer.Option(help="Synthetic test frames.")] = 200,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
) -> None:
    """The kit end to end on a synthetic KAIST: synthesise, convert, detect (simulated), score, draw."""
    from .. import report
    from ..demo import run_demo

    run = run_demo(folder, frames, seed, say=lambda line: err.print(line, highlight=False))
    report.print_table(run.scores, out, "\n".join([f"ground truth: {run.gt}"] + report.protocol_notes(run.scores)))
    for difference in run.comparison.differences:
        if difference.split != "all":
            out.print(difference.sentence(), highlight=False)
    err.print(f"curves: {run.figure}\nnight frame with detections: {run.frame}\n"
              f"submission of the best method: {run.extra['submission']}\n"
              f"diagnosis of the best method: {run.extra['diagnosis']}/report.md", highlight=False)



class DiagnosisFormat(str, Enum):
    table = "table"
    json = "json"


def _check_setting(name: str, hint: str) -> str:
    from ..settings import SETTINGS

    if name not in SETTINGS:
        raise typer.BadParameter(f"unknown setting {name!r}; choose from {', '.join(SETTINGS)}", param_hint=hint)
    return name


@app.command("diagnose")
def diagnose_command(
    result: Annotated[Path, typer.Argument(help="A result in any format `kaist-kit eval` reads.", show_default=False)],
    gt: Annotated[Path | None, typer.Option(help="Ground truth (COCO JSON); default as for eval.")] = None,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", help="Folder for diagnosis.json, report.md, the figures and the drawn examples.")] = None,
    setting: Annotated[str, typer.Option(
        help="The setting the false positives, misses, oracles and examples are shown for (JSON has every "
             "setting); the LAMR table covers all ten.")] = "reasonable",
    split: Annotated[list[Split] | None, typer.Option(help="Split; repeat for several. Default: all, day, night.")]
    = None,
    protocol: Annotated[ProtocolName, typer.Option(
        help="leaderboard or matlab (the devkit).")] = ProtocolName.leaderboard,
    resamples: Annotated[int, typer.Option(min=1, help="Bootstrap resamples of the images.")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed of the bootstrap: the same seed gives the same intervals.")]
    = 0,
    fppi: Annotated[float, typer.Option(
        help="Operating point: the last detection of the curve whose FPPI does not exceed this.")] = 1.0,
    score_threshold: Annotated[float | None, typer.Option(
        help="Operating point at this score threshold instead of --fppi.")] = None,
    foreground_height: Annotated[float, typer.Option(
        help="Foreground: unoccluded pedestrians at least this tall (px); 115 is KAIST's 'near' (about 11 m).")]
    = 115.0,
    images: Annotated[list[Path] | None, typer.Option(
        help="Folders of the visible/lwir pictures, to draw the worst examples (KAIST's images/ tree or flat "
             "setXX_VYYY_IZZZZZ_visible.png files). Default: images/ beside the ground truth.")] = None,
    examples: Annotated[int, typer.Option(min=0, help="Worst examples per error type.")] = 3,
    name: Annotated[str | None, typer.Option(help="Method name. Default: the file name before '_result'.")]
    = None,
    devkit_shift: Annotated[bool, typer.Option(
        help="Read per-image folders as the devkit does; --no-devkit-shift reads x1, y1 as they are.")] = True,
    format: Annotated[DiagnosisFormat, typer.Option("--format", help="Output format.")] = DiagnosisFormat.table,
) -> None:
    """Why a detector misses: LAMR with intervals, false positives by type, misses, foreground c*, oracles."""
    import json
    import math

    from ..detections import load_detections, method_name
    from ..diagnosis import diagnose
    from ..diagnosis_report import print_tables, tables
    from ..groundtruth import find_gt, load_ground_truth

    _check_setting(setting, "--setting")
    if not (fppi > 0 and math.isfinite(fppi)):
        raise typer.BadParameter("must be a positive number", param_hint="--fppi")
    if score_threshold is not None and not math.isfinite(score_threshold):
        raise typer.BadParameter("must be a finite number", param_hint="--score-threshold")
    if not (foreground_height > 0 and math.isfinite(foreground_height)):
        raise typer.BadParameter("must be a positive number", param_hint="--foreground-height")
    gt_path = find_gt(gt)
    ground_truth = load_ground_truth(gt_path)
    dets = load_detections(result, ground_truth, devkit_shift=devkit_shift)
    roots = images or [gt_path.parent / "images", gt_path.parent]
    found = diagnose(ground_truth, dets, name or method_name(result), protocol.value,
                     splits=[s.value for s in split] if split else ("all", "day", "night"), main_setting=setting,
                     resamples=resamples, seed=seed, fppi=fppi, score_threshold=score_threshold,
                     foreground_height=foreground_height, images=roots if out_dir is not None else (),
                     examples=examples, out_dir=out_dir)
    if format is DiagnosisFormat.json:
        print(json.dumps(found.to_dict(), indent=1))
    else:
        print_tables(tables(found, detailed=False), out)
    if out_dir is not None:
        drawn = sum(1 for e in found.examples if e.picture)
        err.print(f"diagnosis written to {out_dir}: diagnosis.json, report.md, 4 figures, {drawn} drawn examples",
                  highlight=False)


@app.command("compare")
def compare_command(
    results: Annotated[list[Path], typer.Argument(help="Two or more results, in any format `kaist-kit eval` reads.",
                                                  show_default=False)],
    gt: Annotated[Path | None, typer.Option(help="Ground truth (COCO JSON); default as for eval.")] = None,
    setting: Annotated[list[str] | None, typer.Option(
        help="Setting; repeatable. Default: the protocol's own (leaderboard: reasonable, reasonable-small, "
             "reasonable-heavy, all-pedestrians; matlab: reasonable and the devkit's six).")] = None,
    split: Annotated[list[Split] | None, typer.Option(help="Split; repeat for several. Default: all, day, night.")]
    = None,
    protocol: Annotated[ProtocolName, typer.Option(
        help="leaderboard or matlab (the devkit).")] = ProtocolName.leaderboard,
    resamples: Annotated[int, typer.Option(min=1, help="Bootstrap resamples of the images.")] = 1000,
    seed: Annotated[int, typer.Option(help="Random seed of the bootstrap.")] = 0,
    plot: Annotated[Path | None, typer.Option(help="Draw the methods' MR-FPPI curves together (.png, .pdf, .svg).")]
    = None,
    name: Annotated[list[str] | None, typer.Option(help="Method name for each result, in order.")] = None,
    devkit_shift: Annotated[bool, typer.Option(
        help="Read per-image folders as the devkit does; --no-devkit-shift reads x1, y1 as they are.")] = True,
    format: Annotated[DiagnosisFormat, typer.Option("--format", help="Output format.")] = DiagnosisFormat.table,
) -> None:
    """Methods side by side with bootstrap intervals, and paired bootstrap tests of their differences."""
    import json

    from ..comparison import compare, comparison_table
    from ..detections import load_detections
    from ..diagnosis_report import print_tables
    from ..evaluate import unique_method_names
    from ..groundtruth import find_gt, load_ground_truth
    from ..plots import check_figure_path, plot_results

    if len(results) < 2:
        raise typer.BadParameter("give at least two results to compare", param_hint="RESULTS")
    if name and len(name) != len(results):
        raise typer.BadParameter(f"{len(name)} names for {len(results)} results", param_hint="--name")
    names = list(name) if name else unique_method_names(results)
    if len(set(names)) < len(names):
        raise typer.BadParameter("two results have the same name; name them with --name", param_hint="--name")
    settings = [_check_setting(s, "--setting") for s in setting] if setting else None
    if plot is not None:
        check_figure_path(plot)
    ground_truth = load_ground_truth(find_gt(gt))
    methods = [(n, load_detections(path, ground_truth, devkit_shift=devkit_shift)) for n, path in zip(names, results)]
    found = compare(ground_truth, methods, protocol.value, settings,
                    [s.value for s in split] if split else ("all", "day", "night"), resamples, seed)
    if format is DiagnosisFormat.json:
        print(json.dumps(found.to_dict(), indent=1))
    else:
        print_tables([comparison_table(found)], out)
        out.print("Paired bootstrap tests (two-sided p; see docs/diagnosis.md):", highlight=False)
        for difference in found.differences:
            out.print(f"  {difference.sentence()}", highlight=False, markup=False)
    if plot is not None:
        plot_results(found.results(), plot)
        err.print(f"figure written to {plot}")



def _models(verb: str, *files: tuple[Path, str]):
    """The detector package, or a one-line error saying how to install what it needs.

    ``files`` are (path, what) pairs checked first, so that a typo fails at once rather than
    after importing mmdetection.
    """
    for path, what in files:
        if not path.is_file():
            raise InputError(f"no such {what}", path)
    try:
        import kaist_kit.models as models
    except ImportError as exc:
        raise InputError(f"kaist-kit {verb} needs the detector extra ({exc.name or exc} is not installed): "
                         "pip install -e '.[mmdet]', see docs/training.md") from None
    return models


@app.command("train")
def train_command(
    config: Annotated[Path, typer.Argument(help="An mmdetection config, e.g. "
                                           "configs/faster-rcnn_r50_fpn_halfway-fusion_1x_kaist.py.",
                                           show_default=False)],
    work_dir: Annotated[Path | None, typer.Option(
        help="Folder for checkpoints and logs. Default: work_dirs/<config name>.")] = None,
    gpus: Annotated[int, typer.Option(
        help="Processes: 1 trains on the GPU if there is one, else on the CPU; more starts distributed "
             "data-parallel training with torchrun (on a CPU-only machine: that many CPU processes).")] = 1,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from the work folder's last checkpoint.")]
    = False,
    cfg_options: Annotated[list[str] | None, typer.Option(
        help="Override a config entry, KEY=VALUE (e.g. train_dataloader.batch_size=8); repeatable. "
             "data_root=DIR moves every dataset to DIR.")] = None,
) -> None:
    """Train a detector from an mmdetection config (needs the mmdet extra)."""
    import subprocess

    _models("train", (config, "config file"))
    from ..models.train import train

    try:
        folder = train(config, work_dir, gpus, resume, cfg_options)
    except subprocess.CalledProcessError as exc:
        err.print(f"error: distributed training stopped with exit code {exc.returncode}", highlight=False)
        raise typer.Exit(exc.returncode or 1) from None
    err.print(f"checkpoints and logs in {folder}", highlight=False)


@app.command("test")
def test_command(
    config: Annotated[Path, typer.Argument(help="The config the checkpoint was trained with.", show_default=False)],
    checkpoint: Annotated[Path, typer.Argument(help="A checkpoint (.pth).", show_default=False)],
    results: Annotated[Path, typer.Option("--out", help="COCO result JSON to write, with the test set's image "
                                          "ids: kaist-kit eval and submit read it.", show_default=False)],
    work_dir: Annotated[Path | None, typer.Option(
        help="Folder for the logs. Default: work_dirs/<config name>.")] = None,
    cfg_options: Annotated[list[str] | None, typer.Option(
        help="Override a config entry, KEY=VALUE; repeatable. data_root=DIR moves every dataset to DIR.")]
    = None,
) -> None:
    """Run a checkpoint on the config's test set, write the results and print the miss rates."""
    from .. import report
    from ..evaluate import evaluate_files
    from ..groundtruth import load_ground_truth

    _models("test", (config, "config file"), (checkpoint, "checkpoint"))
    from ..models.predict import test

    run = test(config, checkpoint, results, work_dir, cfg_options)
    err.print(f"results written to {run.results}", highlight=False)
    gt = load_ground_truth(run.ground_truth)
    if not (~gt.ignore).any():
        err.print(f"{run.ground_truth} has no pedestrians to score against: no miss rates", highlight=False)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)  # the metric's log has already said them
        found = evaluate_files([run.results], gt, run.settings, protocols=[run.protocol], names=[config.stem])
    report.print_table(found, out, "\n".join([f"ground truth: {gt.describe()}"] + report.protocol_notes(found)))


@app.command("infer")
def infer_command(
    config: Annotated[Path, typer.Argument(help="The config the checkpoint was trained with.", show_default=False)],
    checkpoint: Annotated[Path, typer.Argument(help="A checkpoint (.pth).", show_default=False)],
    visible: Annotated[Path, typer.Argument(help="The colour picture.", show_default=False)],
    lwir: Annotated[Path, typer.Argument(help="The thermal picture of the same frame.", show_default=False)],
    figure: Annotated[Path, typer.Option("--out", help="Figure to write (.png, .pdf or .svg).",
                                         show_default=False)],
    score_threshold: Annotated[float, typer.Option(help="Draw detections scoring at least this.")] = 0.3,
    cfg_options: Annotated[list[str] | None, typer.Option(
        help="Override a config entry, KEY=VALUE; repeatable.")] = None,
) -> None:
    """Detect pedestrians on one visible/thermal pair and draw them on both pictures."""
    from ..plots import check_figure_path

    check_figure_path(figure)
    _models("infer", (config, "config file"), (checkpoint, "checkpoint"), (visible, "picture"), (lwir, "picture"))
    from ..models.predict import infer

    found = infer(config, checkpoint, visible, lwir, figure, score_threshold, cfg_options)
    shown = int((found.scores >= score_threshold).sum())
    err.print(f"{shown} detections scoring {score_threshold:g} or more (of {len(found.scores)}) drawn to {figure}",
              highlight=False)


if __name__ == "__main__":
    main()
