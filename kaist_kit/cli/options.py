"""Options that several verbs share, declared once, with help and defaults taken from the library."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..groundtruth import GT_ENV, default_gt_path
from ..settings import (
    DEFAULT_FPPI_RANGE,
    KAIST_FRAME_SIZE,
    METRICS,
    PRESETS,
    PROTOCOLS,
    SETTINGS,
    SPLITS,
    get_setting,
    parse_fppi_range,
    parse_split,
)
from .app import err, say

# Choices as enums, so that --help lists them and typer rejects anything else.
ProtocolName = Enum("ProtocolName", {name: name for name in PROTOCOLS}, type=str)
Metric = Enum("Metric", {name: name for name in METRICS}, type=str)


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


_PROTOCOL_HELP = ("leaderboard: the public leaderboard's evaluator. matlab: the KAIST devkit most papers "
                  "quote.")
_SETTINGS = ", ".join([*SETTINGS, *PRESETS])


def choices(enum) -> str:
    """The metavar of an option with fixed choices: 'a|b|c'."""
    return "|".join(member.value for member in enum)


def unwrapped(*lines: str) -> str:
    """Help printed with these line breaks and no others, so that a long default (a path) is never
    cut or hyphenated."""
    return "\b\n" + "\n".join(lines)


GroundTruthOption = Annotated[Path | None, typer.Option(
    "--gt", metavar="FILE",
    help=unwrapped(f"Ground truth (COCO JSON). Default: ${GT_ENV}, then", f"{default_gt_path()},",
                   "downloaded there on first use."))]
ProtocolsOption = Annotated[list[ProtocolName], typer.Option(
    "--protocol", metavar=choices(ProtocolName), help=f"{_PROTOCOL_HELP} Repeat for both.")]
ProtocolOption = Annotated[ProtocolName, typer.Option("--protocol", metavar=choices(ProtocolName),
                                                      help=_PROTOCOL_HELP)]
SettingsOption = Annotated[list[str] | None, typer.Option(
    "--setting", metavar="SETTING",
    help=f"Setting: {_SETTINGS}; or a custom one, e.g. height=50:inf,occlusion=none+partial (keys height, "
         "occlusion, border, squarify; see docs/evaluation.md). Repeatable. Default: reasonable.")]
SplitsOption = Annotated[list[str] | None, typer.Option(
    "--split", metavar="SPLIT",
    help="Split to score: all, day, night; a scene, campus, road or downtown, alone or as campus-day, "
         f"campus-night, ...; a set, set06 ... set11. Repeatable. Default: {', '.join(SPLITS)}.")]
IousOption = Annotated[list[float] | None, typer.Option(
    "--iou", metavar="T",
    help="IoU threshold of the matching, for the LAMR (AP and AR have their own); repeatable. Default: 0.5.")]
MetricsOption = Annotated[list[Metric] | None, typer.Option(
    "--metric", metavar=choices(Metric),
    help="lamr: log-average miss rate; ap50, ap75: COCO's AP at IoU 0.5, 0.75; ap: mean AP over IoU "
         "0.50:0.05:0.95; ar: COCO's average recall over those (the 2024 challenge's AP_iou50:95). "
         "Repeatable. Default: lamr.")]
FppiRangeOption = Annotated[str, typer.Option(
    "--fppi-range", metavar="LOW:HIGH",
    help="Reference FPPI range LOW:HIGH of the LAMR: the points 10^k for k from log10(LOW) to log10(HIGH) in "
         "steps of 0.25 (1e-4:1 gives MR-4). The default keeps the leaderboard's nine rounded values; other "
         "ranges use exact powers.")]
DevkitShiftOption = Annotated[bool, typer.Option(
    "--devkit-shift/--no-devkit-shift",
    help="Read per-image folders as the devkit does (x1+1, y1+1, x2-x1, y2-y1 at four decimals). "
         "--no-devkit-shift reads x1, y1 as they are.")]
FormatOption = Annotated[OutputFormat, typer.Option("--format", metavar=choices(OutputFormat), help="Output format.")]
NamesOption = Annotated[list[str] | None, typer.Option(
    "--name", metavar="NAME", help="Method name for each result, in order. Default: the file name before '_result'.")]
PlotOption = Annotated[Path | None, typer.Option(
    "--plot", metavar="FILE", help="Also draw the MR-FPPI curves to this figure (.png, .pdf or .svg).")]
ResamplesOption = Annotated[int, typer.Option("--resamples", metavar="N", min=1,
                                              help="Bootstrap resamples of the images.")]
SeedOption = Annotated[int, typer.Option(
    "--seed", metavar="N", help="Random seed of the bootstrap: the same seed gives the same intervals.")]
IdOffsetOption = Annotated[int, typer.Option(
    "--id-offset", metavar="N", help="Add this to every image id as written: -1 for COCO JSON written with 1-based "
                                     "ids, 1 for txt written 0-based.")]
CornersOption = Annotated[bool, typer.Option(
    "--corners", help="Read boxes as corners x1, y1, x2, y2 instead of x, y, width, height.")]
AsIsOption = Annotated[bool, typer.Option(
    "--as-is", help="Score a result as read even when it looks misread (boxes as corners, ids off by one, "
                    "detections of other images): such an error is then printed as a warning.")]
CfgOptionsOption = Annotated[list[str] | None, typer.Option(
    "--cfg-options", metavar="KEY=VALUE",
    help="Override a config entry, KEY=VALUE (e.g. train_dataloader.batch_size=8); repeatable. "
         "data_root=DIR moves every dataset to DIR.")]

DEFAULT_SPLITS = tuple(SPLITS)
DEFAULT_IOU = 0.5
DEFAULT_FPPI_TEXT = "{:g}:{:g}".format(*DEFAULT_FPPI_RANGE)
DEFAULT_PROTOCOLS = [ProtocolName.leaderboard]
DEFAULT_SIZE = "x".join(map(str, KAIST_FRAME_SIZE))


def setting_names(values: list[str] | None, hint: str = "--setting") -> list[str]:
    """The settings asked for (default: reasonable): named ones and presets by their names, custom ones
    by the name that spells out their parameters."""
    names = []
    for value in values or ["reasonable"]:
        try:
            names.append(get_setting(value).name)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint=hint) from None
    return list(dict.fromkeys(names))


def split_names(values: list[str] | None) -> list[str]:
    """The splits asked for (default: all, day, night), each checked."""
    for name in values or ():
        try:
            parse_split(name)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--split") from None
    return list(values) if values else list(DEFAULT_SPLITS)


def iou_thresholds(values: list[float] | None) -> list[float]:
    """The IoU thresholds asked for (default: 0.5), each between 0 and 1."""
    for value in values or ():
        if not 0 < value < 1:
            raise typer.BadParameter(f"{value:g} is not between 0 and 1", param_hint="--iou")
    return list(dict.fromkeys(values or [DEFAULT_IOU]))


def one_iou_threshold(values: list[float] | None) -> float:
    """The IoU threshold of a verb that matches once (diagnose, compare): 0.5 unless given."""
    thresholds = iou_thresholds(values)
    if len(thresholds) > 1:
        raise typer.BadParameter("give one threshold (`kaist-kit eval` takes several)", param_hint="--iou")
    return thresholds[0]


def metric_names(values: list[Metric] | None) -> list[str]:
    return list(dict.fromkeys(m.value for m in values)) if values else ["lamr"]


def fppi_range(value: str) -> tuple[float, float]:
    try:
        return parse_fppi_range(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--fppi-range") from None


def method_names(names: list[str] | None, results: list[Path]) -> list[str] | None:
    if names and len(names) != len(results):
        raise typer.BadParameter(f"{len(names)} names for {len(results)} results", param_hint="--name")
    return names


def parse_size(value: str, hint: str = "--image-size") -> tuple[int, int]:
    """(width, height) of a WIDTHxHEIGHT option value; both must be positive."""
    try:
        width, height = (int(v) for v in value.lower().split("x"))
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not WIDTHxHEIGHT, e.g. {DEFAULT_SIZE}", param_hint=hint) from None
    if width <= 0 or height <= 0:
        raise typer.BadParameter(f"{value!r}: the width and the height must be positive", param_hint=hint)
    return width, height


def locate_gt(path: Path | None) -> Path:
    """The ground-truth file the verbs use: ``--gt``, else the default (see `find_gt`), whose
    download on first use is announced on stderr with a progress bar."""
    from ..groundtruth import find_gt

    with download_bar() as progress:
        return find_gt(path, echo=say, progress=progress)


def load_gt(path: Path | None):
    """The ground truth the verbs score against: ``--gt``, else the default (see `locate_gt`)."""
    from ..groundtruth import load_ground_truth

    return load_ground_truth(locate_gt(path))


@contextmanager
def download_bar() -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` for downloads: a bar on stderr, drawn from the first chunk on and
    only when stderr is a terminal."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

    bar = Progress(BarColumn(), DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn(),
                   console=err, transient=True, disable=not err.is_terminal)
    task = None

    def progress(done: int, total: int) -> None:
        nonlocal task
        if task is None:
            bar.start()
            task = bar.add_task("downloading", total=total)
        bar.update(task, completed=done)

    try:
        yield progress
    finally:
        bar.stop()
