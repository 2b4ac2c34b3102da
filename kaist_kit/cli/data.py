"""Annotations: `convert` them to COCO JSON, `synth` a KAIST to test with, `stats` and `show` a dataset."""


from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..converters import MODALITIES, SOURCE_FORMATS
from .app import app, err, out, say
from .command import Whole
from .options import DEFAULT_SIZE, MAX_FRAMES, SCORES, SEEDS, GroundTruthOption, choices, locate_gt, parse_size

SourceFormat = Enum("SourceFormat", {name: name for name in SOURCE_FORMATS}, type=str)
Modality = Enum("Modality", {name: name for name in MODALITIES}, type=str)
_FORMATS_HELP = "; ".join(f"{spec.name}: {spec.help}" for spec in SOURCE_FORMATS.values()) + "."
FRAMES = Whole(0, MAX_FRAMES)
# Pixels of a side: any image's (convert), the synthetic pictures' (synth, which draws them whole).
MAX_IMAGE_SIDE = 65_535
MIN_SYNTH_SIDE, MAX_SYNTH_SIDE = 64, 2048


@app.command("convert")
def convert_command(
    format: Annotated[SourceFormat, typer.Argument(metavar="FORMAT", help=_FORMATS_HELP, show_default=False)],
    source: Annotated[Path, typer.Argument(metavar="SOURCE", help="A folder of annotation files, or a .zip / "
                                           ".tar.gz of one.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The COCO JSON to write.", show_default=False)],
    image_set: Annotated[str | None, typer.Option(
        metavar="LIST", help="Frames to keep, in this order: a list file, or a name such as train-all-02 or "
                             "test-all-20 (read from imageSets/ beside the source, else built by the official "
                             "rule).")] = None,
    compat: Annotated[str | None, typer.Option(
        metavar="LAYOUT", help="'leaderboard': write exactly the layout of the leaderboard's ground truth.")]
    = None,
    strict: Annotated[bool, typer.Option(
        help="Fail (exit code 2, nothing written) on any problem that changes the annotations, and when the "
             "source looks like another format or gives no box.")] = False,
    reference: Annotated[Modality, typer.Option(
        metavar=choices(Modality), help="Paired annotations: the modality whose box becomes 'bbox'.")]
    = Modality.lwir,
    image_size: Annotated[str, typer.Option(
        metavar="WIDTHxHEIGHT", help=f"Image size for formats that do not record it (bbGt), each side 1 to "
                                     f"{MAX_IMAGE_SIDE} pixels.")] = DEFAULT_SIZE,
) -> None:
    """Convert KAIST annotations to COCO JSON, reporting every problem with its file and line."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..converters import COMPAT, convert

    if compat is not None and compat not in COMPAT:
        raise typer.BadParameter(f"unknown layout {compat!r}; choose from {', '.join(COMPAT)}",
                                 param_hint="--compat")
    size = parse_size(image_size, "--image-size", 1, MAX_IMAGE_SIDE)
    with Progress(TextColumn("converting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("frames", total=None)
        result = convert(format.value, source, out, image_set=image_set, compat=compat, strict=strict,
                         reference=reference.value, image_size=size,
                         echo=lambda line: bar.console.print(line, highlight=False, markup=False),
                         progress=lambda done, total: bar.update(task, completed=done, total=total))
    labels = ", ".join(f"{n} {label}" for label, n in result.labels.items()) or "no objects"
    listed = f" of {result.image_set}" if result.image_set else ""
    say(f"wrote {out}: {result.n_images} images{listed}, {result.n_annotations} boxes ({labels})")
    say(f"problems: {result.problems.summary()}")
    for finding in result.findings:
        say(f"warning: {finding}")


@app.command("synth")
def synth_command(
    out: Annotated[Path, typer.Argument(metavar="FOLDER", help="A new or empty folder.", show_default=False)],
    seed: Annotated[int, typer.Option(
        metavar="N", parser=SEEDS, help=f"Random seed, 0 to {SEEDS.high}: the same seed writes the same files.")]
    = 0,
    train: Annotated[int, typer.Option(
        metavar="N", parser=FRAMES, help=f"Training frames (half day, half night), 0 to {MAX_FRAMES:,}.")] = 40,
    test: Annotated[int, typer.Option(
        metavar="N", parser=FRAMES, help=f"Test frames (half day, half night), 0 to {MAX_FRAMES:,}; with --train, "
                                         "at least one frame.")] = 40,
    size: Annotated[str, typer.Option(
        metavar="WIDTHxHEIGHT", help=f"Image size, each side {MIN_SYNTH_SIDE} to {MAX_SYNTH_SIDE} pixels.")]
    = DEFAULT_SIZE,
    quirks: Annotated[bool, typer.Option(
        help="Add the real dataset's defects (stray files, CRLF, zero-size boxes, disagreeing paired "
             "files) for testing converters.")] = False,
) -> None:
    """Write a small synthetic KAIST: image pairs, every annotation format and the image-set lists."""
    from rich.progress import Progress

    from ..synth import SynthConfig, generate

    width, height = parse_size(size, "--size", MIN_SYNTH_SIDE, MAX_SYNTH_SIDE)
    if train + test == 0:
        raise typer.BadParameter("0 training and 0 test frames: ask for at least one frame", param_hint="--test")
    config = SynthConfig(seed=seed, train_frames=train, test_frames=test, width=width, height=height,
                         quirks=quirks)
    with Progress(console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("synthesising", total=train + test)
        summary = generate(out, config, progress=lambda done, total: bar.update(task, completed=done))
    labels = ", ".join(f"{n} {label}" for label, n in summary.labels.items())
    say(f"wrote {out}: {summary.frames['train']} training and {summary.frames['test']} test frames "
        f"at {width}x{height}, {labels}")


@app.command("stats")
def stats_command(
    annotations: Annotated[Path, typer.Argument(metavar="FILE", help="A COCO annotation file (kit or leaderboard "
                                                "layout).", show_default=False)],
    plot: Annotated[Path | None, typer.Option(metavar="FILE", help="Also draw a height histogram (.png, .pdf, "
                                                                   ".svg).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
) -> None:
    """Counts per label, occlusion and day/night; pedestrians per image; heights and scales."""
    import json

    from ..groundtruth import load_ground_truth
    from ..plots import check_figure_path
    from ..stats import dataset_stats, plot_heights, stats_table

    if plot is not None:
        check_figure_path(plot)
    gt = load_ground_truth(annotations)
    if plot is not None:
        check_figure_path(plot)  # again, now that the input is known
    stats = dataset_stats(gt)
    if json_output:
        print(json.dumps(stats, indent=1))
    else:
        out.print(stats_table(stats).to_rich())
    if plot is not None:
        plot_heights(gt, plot)
        say(f"figure written to {plot}")


@app.command("show")
def show_command(
    frames: Annotated[list[str], typer.Argument(metavar="FRAME", help="Frames to draw: setXX/VYYY/IZZZZZ names "
                                                "or image ids.", show_default=False)],
    gt: GroundTruthOption = None,
    images: Annotated[list[Path] | None, typer.Option(
        metavar="FOLDER", help="Folder of the pictures: KAIST's images/ tree or flat setXX_VYYY_IZZZZZ_visible.png "
                               "files. Default: images/ beside the ground truth.")] = None,
    det: Annotated[list[Path] | None, typer.Option(
        metavar="RESULT", help="A result file to draw; repeat for several: --det A_result.txt --det "
                               "B_result.json.")] = None,
    score_threshold: Annotated[float, typer.Option(
        metavar="SCORE", parser=SCORES, help="Draw detections scoring at least this.")] = 0.3,
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="PNG to write; with several frames, the frame "
                                      "name is added to it.", show_default=False)] = Path("frame.png"),
) -> None:
    """Draw ground truth (ignore regions dashed) and detections on the visible and thermal pictures."""
    from ..groundtruth import load_ground_truth
    from ..plots import check_figure_path
    from ..show import show_frames

    check_figure_path(out)
    gt_path = locate_gt(gt)
    roots = images or [gt_path.parent / "images", gt_path.parent]
    for name, target in show_frames(load_ground_truth(gt_path), frames, det or [], roots, out, score_threshold):
        say(f"{name} drawn to {target}")
