"""Annotations: `convert` them to COCO JSON, `synth` a KAIST to test with, `stats` and `show` a dataset."""

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..converters import MODALITIES, SOURCE_FORMATS
from ..datasets import BENCHMARKS, DEFAULT_BENCHMARK, get_benchmark
from .app import app, out, say
from .command import Whole
from .options import (
    DEFAULT_SIZE,
    MAX_FRAMES,
    SCORES,
    SEEDS,
    GroundTruthOption,
    benchmark_name,
    choices,
    locate_gt,
    parse_size,
    progress_bar,
    repeated,
)

# The other benchmarks' formats (converters/benchmark_formats.py), named here so that --help needs no import.
OTHER_FORMATS = {
    "voc": "FLIR-aligned's, LLVIP's and M3FD's VOC XML trees",
    "cvc-14": "CVC-14's text tree",
    "coco": "a COCO ground truth of another benchmark (the conversions in circulation too)",
}
SourceFormat = Enum("SourceFormat", {name: name for name in [*SOURCE_FORMATS, *OTHER_FORMATS]}, type=str)
Modality = Enum("Modality", {name: name for name in MODALITIES}, type=str)
Origin = Enum("Origin", {name: name for name in ("centre", "corner")}, type=str)
_FORMATS_HELP = (
    "; ".join(f"{spec.name}: {spec.help}" for spec in SOURCE_FORMATS.values())
    + "; with --benchmark, "
    + "; ".join(f"{name}: {what}" for name, what in OTHER_FORMATS.items())
    + "."
)
BenchmarkOption = Annotated[
    str,
    typer.Option(
        "--benchmark",
        metavar="NAME",
        parser=benchmark_name,
        help=f"The dataset: {', '.join(BENCHMARKS)} (docs/benchmarks-other.md).",
    ),
]
FRAMES = Whole(0, MAX_FRAMES)
# Pixels of a side: any image's (convert), the synthetic pictures' (synth, which draws them whole).
MAX_IMAGE_SIDE = 65_535
MIN_SYNTH_SIDE, MAX_SYNTH_SIDE = 64, 2048


@app.command("convert")
def convert_command(
    format: Annotated[SourceFormat, typer.Argument(metavar="FORMAT", help=_FORMATS_HELP)],
    source: Annotated[
        Path,
        typer.Argument(
            metavar="SOURCE", help="A folder of annotation files, or a .zip / .tar.gz of one (coco: the JSON file)."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", metavar="FILE", help="The COCO JSON to write.", show_default=False)],
    benchmark: BenchmarkOption = DEFAULT_BENCHMARK.name,
    split: Annotated[
        str | None,
        typer.Option(
            metavar="SPLIT",
            help="Another benchmark's frames to keep: train or test (M3FD: val too; CVC-14: day, "
            "night), as the dataset keeps them; FLIR-aligned and M3FD: a list file too. "
            "Default: every frame found.",
        ),
    ] = None,
    origin: Annotated[
        Origin,
        typer.Option(
            metavar=choices(Origin),
            help="CVC-14: whether a line's x, y is the box's centre (as MS-DETR reads them) or its top-left corner.",
        ),
    ] = Origin.centre,
    image_set: Annotated[
        str | None,
        typer.Option(
            metavar="LIST",
            help="Frames to keep, in this order: a list file, or a name such as train-all-02 or "
            "test-all-20 (read from imageSets/ beside the source, else built by the official "
            "rule).",
        ),
    ] = None,
    compat: Annotated[
        str | None,
        typer.Option(
            metavar="LAYOUT", help="'leaderboard': write exactly the layout of the leaderboard's ground truth."
        ),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            help="Fail (exit code 2, nothing written) on any problem that changes the annotations, and when the "
            "source looks like another format or gives no box."
        ),
    ] = False,
    reference: Annotated[
        Modality,
        typer.Option(metavar=choices(Modality), help="Paired annotations: the modality whose box becomes 'bbox'."),
    ] = Modality.lwir,
    image_size: Annotated[
        str | None,
        typer.Option(
            metavar="WIDTHxHEIGHT",
            help=f"Image size for formats that do not record it (bbGt, CVC-14), each side 1 "
            f"to {MAX_IMAGE_SIDE} pixels. Default: the benchmark's ({DEFAULT_SIZE} for "
            "KAIST).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Convert annotations to COCO JSON (KAIST's, or another benchmark's with --benchmark), reporting every
    problem with its file and line."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from ..converters import COMPAT, convert

    if compat is not None and compat not in COMPAT:
        raise typer.BadParameter(f"unknown layout {compat!r}; choose from {', '.join(COMPAT)}", param_hint="--compat")
    size = parse_size(image_size, "--image-size", 1, MAX_IMAGE_SIDE) if image_size is not None else None
    bench = get_benchmark(benchmark)
    with progress_bar(TextColumn("converting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()) as bar:
        task = bar.add_task("frames", total=None)
        result = convert(
            format.value,
            source,
            out,
            image_set=image_set,
            compat=compat,
            strict=strict,
            reference=reference.value,
            image_size=size,
            benchmark=bench,
            split=split,
            origin=origin.value,
            echo=lambda line: bar.console.print(line, highlight=False, markup=False),
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    labels = ", ".join(f"{n} {label}" for label, n in result.labels.items()) or "no objects"
    listed = f" of {result.image_set}" if result.image_set else ""
    say(f"wrote {out}: {result.n_images} images{listed}, {result.n_annotations} boxes ({labels})")
    say(f"problems: {result.problems.summary()}")
    for finding in result.findings:
        say(f"warning: {finding}")


@app.command("synth")
def synth_command(
    out: Annotated[Path, typer.Argument(metavar="FOLDER", help="A new or empty folder.")],
    seed: Annotated[
        int,
        typer.Option(
            metavar="N", parser=SEEDS, help=f"Random seed, 0 to {SEEDS.high}: the same seed writes the same files."
        ),
    ] = 0,
    train: Annotated[
        int,
        typer.Option(metavar="N", parser=FRAMES, help=f"Training frames (half day, half night), 0 to {MAX_FRAMES:,}."),
    ] = 40,
    test: Annotated[
        int,
        typer.Option(
            metavar="N",
            parser=FRAMES,
            help=f"Test frames (half day, half night), 0 to {MAX_FRAMES:,}; with --train, at least one frame.",
        ),
    ] = 40,
    size: Annotated[
        str | None,
        typer.Option(
            metavar="WIDTHxHEIGHT",
            help=f"Image size, each side {MIN_SYNTH_SIDE} to {MAX_SYNTH_SIDE} pixels. Default: the "
            f"benchmark's ({DEFAULT_SIZE} for KAIST; M3FD's vary).",
            show_default=False,
        ),
    ] = None,
    quirks: Annotated[
        bool,
        typer.Option(
            help="KAIST: add the real dataset's defects (stray files, CRLF, zero-size boxes, disagreeing paired "
            "files) for testing converters."
        ),
    ] = False,
    benchmark: BenchmarkOption = DEFAULT_BENCHMARK.name,
) -> None:
    """Write a small synthetic dataset: KAIST's image pairs, every annotation format and the image-set lists;
    with --benchmark, another benchmark's layout, frame size, classes and annotation files."""
    from ..datasets.synth import BenchmarkSynthConfig, generate_benchmark

    bench = get_benchmark(benchmark)
    dimensions = parse_size(size, "--size", MIN_SYNTH_SIDE, MAX_SYNTH_SIDE) if size is not None else None
    if train + test == 0:
        raise typer.BadParameter("0 training and 0 test frames: ask for at least one frame", param_hint="--test")
    if quirks and bench.own_synth is None:  # the quirks are drawn by KAIST's own generator
        raise typer.BadParameter("the quirks are KAIST's files' defects", param_hint="--quirks")
    config = BenchmarkSynthConfig(seed, train, test, dimensions)
    with progress_bar() as bar:
        task = bar.add_task("synthesising", total=train + test)
        progress = lambda done, total: bar.update(task, completed=done)  # noqa: E731
        if bench.own_synth is not None:
            summary = bench.own_synth(out, config, quirks=quirks, progress=progress)
        else:
            summary = generate_benchmark(bench, out, config, progress=progress)
    sizes = (
        "x".join(map(str, dimensions))
        if dimensions
        else ("x".join(map(str, bench.image_size)) if bench.image_size else "the dataset's sizes")
    )
    layout = f" in {bench.title}'s layout" if not bench.quiet else ""
    labels = ", ".join(f"{n} {label}" for label, n in summary.counts.items())
    say(
        f"wrote {out}: {summary.frames['train']} training and {summary.frames['test']} test frames{layout} "
        f"at {sizes}, {labels}"
    )


@app.command("stats")
def stats_command(
    annotations: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE",
            help="A COCO annotation file (KAIST: the kit's or the leaderboard's layout; another "
            "benchmark: any COCO ground truth of it); several for several splits.",
        ),
    ],
    plot: Annotated[
        Path | None, typer.Option(metavar="FILE", help="Also draw a height histogram (.png, .pdf, .svg).")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
    benchmark: BenchmarkOption = DEFAULT_BENCHMARK.name,
) -> None:
    """KAIST: counts per label, occlusion and day/night; pedestrians per image; heights and scales. Another
    benchmark: boxes, images and heights per class, COCO's size shares, images and boxes per scene."""
    import json

    from ..output.plots import check_figure_path
    from ..tools.stats import file_stats, per_label

    bench = get_benchmark(benchmark)
    if plot is not None:
        check_figure_path(plot)
        if per_label(bench) and len(annotations) > 1:
            raise typer.BadParameter("draws the heights of one KAIST file: give one FILE", param_hint="--plot")
    found = file_stats(annotations, bench)
    if plot is not None:
        check_figure_path(plot)  # again, now that the inputs are known
    if json_output:
        print(json.dumps(found.to_json(), indent=1))
    else:
        for table in found.tables:
            out.print(table.to_rich())
    if plot is not None:
        found.plot(plot)
        say(f"figure written to {plot}")


PicturesOption = repeated(
    Path,
    metavar="FOLDER",
    help="Folder of the pictures: KAIST's images/ tree or flat setXX_VYYY_IZZZZZ_visible.png "
    "files; another benchmark's root. Default: images/ beside the ground truth, and "
    "its folder and the one above.",
)


DrawnResultsOption = repeated(
    Path, metavar="RESULT", help="A result file to draw; repeat for several: --det A_result.txt --det B_result.json."
)


@app.command("show")
def show_command(
    frames: Annotated[
        list[str],
        typer.Argument(
            metavar="FRAME",
            help="Frames to draw: setXX/VYYY/IZZZZZ names (another benchmark's frame names) or image ids.",
        ),
    ],
    gt: GroundTruthOption = None,
    images: PicturesOption = None,
    det: DrawnResultsOption = None,
    score_threshold: Annotated[
        float, typer.Option(metavar="SCORE", parser=SCORES, help="Draw detections scoring at least this.")
    ] = 0.3,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            metavar="FILE",
            help="PNG to write; with several frames, the frame name is added to it.",
            show_default=False,
        ),
    ] = Path("frame.png"),
    benchmark: BenchmarkOption = DEFAULT_BENCHMARK.name,
) -> None:
    """Draw ground truth (ignore regions dashed; another benchmark's classes in their colours) and detections on
    the visible and thermal pictures side by side."""
    from ..output.plots import check_figure_path

    check_figure_path(out)
    bench = get_benchmark(benchmark)
    rules = bench.pinned_rules  # the dataset's own: its default ground truth, and its reader
    if rules is None and gt is None:
        raise typer.BadParameter(
            f"{bench.title}'s ground truth: give its COCO file (kaist-kit convert writes one)", param_hint="--gt"
        )
    gt_path = locate_gt(gt, bench)
    from ..data.groundtruth import read_ground_truth
    from ..output.show import Drawing, show_benchmark_frames

    roots = images or [gt_path.parent / "images", gt_path.parent, gt_path.parent.parent]
    drawing = Drawing(tuple(frames), tuple(det or ()), tuple(roots), out, score_threshold)
    truth = rules.read(gt_path) if rules is not None else read_ground_truth(gt_path, bench)
    drawn = (bench.own_drawing or show_benchmark_frames)(truth, drawing)
    for name, target in drawn:
        say(f"{name} drawn to {target}")
