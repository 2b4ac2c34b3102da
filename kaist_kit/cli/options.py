"""Options that several verbs share, declared once, with help and defaults taken from the library;
the accepted range of each numeric option; how every verb's output is rendered (`render`)."""

from __future__ import annotations

import functools
import inspect
import json
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..data.detections import ID_OFFSET_LIMIT, ReadOptions
from ..datasets import BENCHMARKS, kaist_parse_split
from ..datasets.kaist_truth import GT_ENV, default_gt_path
from ..metrics.per_class import BENCHMARK_PROTOCOLS, BOUNDS, ScoringOptions
from ..metrics.settings import (
    DEFAULT_FPPI_RANGE,
    KAIST_FRAME_SIZE,
    PRESETS,
    PROTOCOLS,
    SETTINGS,
    SPLITS,
    get_setting,
    parse_fppi_range,
)
from ..metrics.spec import COCO, LAMR, MISS_RATE, YOLOV5, all_metrics, metrics_of, names_of
from .app import err, out, say
from .command import Real, Whole, whole_option

# Choices as enums, so that --help lists them and typer rejects anything else: KAIST's (the hosting
# verbs'), and those of the verbs that score any benchmark, KAIST's first.
ProtocolName = Enum("ProtocolName", {name: name for name in PROTOCOLS}, type=str)


def metric_choices(evaluator: str) -> str:
    """The metrics an evaluator computes, each with its spec's description, for --metric's help."""
    return "; ".join(f"{m.name}: {m.description}" for m in metrics_of(evaluator))


Metric = Enum("Metric", {name: name for name in names_of(MISS_RATE)}, type=str)
AnyProtocol = Enum("AnyProtocol", {name: name for name in [*PROTOCOLS, *BENCHMARK_PROTOCOLS]}, type=str)
AnyMetric = Enum("AnyMetric", {m.name: m.name for m in all_metrics()}, type=str)
Origin = Enum("Origin", {name: name for name in ("centre", "corner")}, type=str)
Bounds = Enum("Bounds", {name: name for name in BOUNDS}, type=str)


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


_PROTOCOL_HELP = "leaderboard: the public leaderboard's evaluator. matlab: the KAIST devkit most papers quote."
_ANY_PROTOCOL_HELP = (
    f"{_PROTOCOL_HELP} Other benchmarks: coco (pycocotools' AP and AR), yolov5 (YOLOv5's val.py "
    "AP), ms-detr (CVC-14's miss rate as MS-DETR computes it), and leaderboard or matlab where "
    "the benchmark's papers use them; default: the benchmark's own."
)
_SETTINGS = ", ".join([*SETTINGS, *PRESETS])


def benchmark_name(value: str) -> str:
    """--benchmark's value: the name of a registered benchmark, checked against the registry when the
    command runs (a benchmark registered from outside the kit is one of them)."""
    if value not in BENCHMARKS:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(BENCHMARKS)}")
    return value


def choices(enum) -> str:
    """The metavar of an option with fixed choices: 'a|b|c'."""
    return "|".join(member.value for member in enum)


def choice_option(flag: str, enum: type[Enum], help: str):
    """An option of fixed choices, listed as its metavar; None when not given, what that means said by its help."""
    return Annotated[enum | None, typer.Option(flag, metavar=choices(enum), help=help, show_default=False)]


def repeated(kind: type, *flag: str, metavar: str, help: str):
    """An option given any number of times, None when not given (its help says what that means)."""
    return Annotated[list[kind] | None, typer.Option(*flag, metavar=metavar, help=help)]


def offset_option(flag: str, help: str):
    """A whole number added to every id of a kind as written, within the bound the readers take."""
    return whole_option(-ID_OFFSET_LIMIT, ID_OFFSET_LIMIT, flag, help=help)


def shown_path(path: Path) -> str:
    """A path as help shows it: under the home folder, from '~'."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def unwrapped(*lines: str) -> str:
    """Help printed with these line breaks and no others, so that a long path is never cut."""
    return "\b\n" + "\n".join(lines)


# Help wraps its text in a column of 46 characters on an 80-column terminal; a folder longer than
# this goes whole on a line of its own instead (which only a long $XDG_DATA_HOME makes wider).
_FOLDER_IN_LINE = 40
_HELP_COLUMN = 46


def gt_help(what: str, tail: str = "") -> str:
    """The help of a --gt option: ``what`` it is for, and where the verbs look for the ground truth
    when it is not given."""
    path = default_gt_path()
    folder = shown_path(path.parent)
    if len(folder) <= _FOLDER_IN_LINE:
        return f"{what} Default: ${GT_ENV}, then {path.name} in {folder}, downloaded there on first use{tail}."
    return unwrapped(
        what,
        f"Default: ${GT_ENV}, then",
        f"{path.name} in",
        f"{folder},",
        *textwrap.wrap(f"downloaded there on first use{tail}.", _HELP_COLUMN),
    )


# The accepted values of the numeric options (see command.py: a bad value is one line naming the
# option and this range). Bootstrap memory grows as resamples x images: `compare` of two methods on
# the 2,252 test images peaks at 680 MB with the most resamples (and takes half a minute).
MAX_RESAMPLES = 10_000
SEEDS = Whole(0, 2**32 - 1)
IOUS = Real(0, 1, low_open=True, high_open=True)
SCORES = Real(-1e300, 1e300)
MAX_FRAMES = 100_000  # the synthetic sets' frames (KAIST has 95,328 pairs)
MAX_SIDE = 8192  # pixels of an image side

GroundTruthOption = Annotated[
    Path | None, typer.Option("--gt", metavar="FILE", help=gt_help("Ground truth (COCO JSON)."))
]
# The scoring verbs': the benchmark's part after the folder, so that the folder is never cut.
ScoringGroundTruthOption = Annotated[
    Path | None,
    typer.Option(
        "--gt",
        metavar="FILE",
        help=gt_help(
            "Ground truth (COCO JSON).",
            "; with --benchmark, that benchmark's pinned "
            "file where it has one (else --gt is needed: its COCO JSON or the dataset's "
            "folder)",
        ),
    ),
]
BenchmarkOption = Annotated[
    str | None,
    typer.Option(
        "--benchmark",
        metavar="|".join(BENCHMARKS),
        parser=benchmark_name,
        help="The benchmark: its protocols, metrics and pinned ground truth. Default: the one the ground truth is "
        "recognised as, else kaist.",
        show_default=False,
    ),
]
OriginOption = choice_option(
    "--origin",
    Origin,
    "CVC-14's annotation files (--gt FOLDER): x, y of a line is the box's centre (as MS-DETR reads it; the "
    "default) or its top-left corner.",
)
LlvipBoundsOption = choice_option(
    "--llvip-bounds",
    Bounds,
    "LLVIP's miss rate: the 5-pixel border on LLVIP's own frame (frame, the default) or the KAIST "
    "scripts' fixed bounds [5, 5, 635, 507] as they run unchanged (kaist).",
)
CategoryOffsetOption = offset_option(
    "--category-offset",
    "Other benchmarks: add this to every category_id as written (1 for class indices counted from 0, as "
    "YOLOv5's JSON writes them).",
)
ProtocolsOption = Annotated[
    list[ProtocolName],
    typer.Option("--protocol", metavar=choices(ProtocolName), help=f"{_PROTOCOL_HELP} Repeat for both."),
]
ProtocolOption = Annotated[ProtocolName, typer.Option("--protocol", metavar=choices(ProtocolName), help=_PROTOCOL_HELP)]
AnyProtocolOption = choice_option(
    "--protocol",
    AnyProtocol,
    _ANY_PROTOCOL_HELP.replace("default: the benchmark's own", "default: KAIST's leaderboard, another benchmark's own"),
)
AnyProtocolsOption = Annotated[
    list[AnyProtocol] | None,
    typer.Option(
        "--protocol", metavar=choices(AnyProtocol), help=f"{_ANY_PROTOCOL_HELP} Repeatable.", show_default=False
    ),
]
SettingsOption = repeated(
    str,
    "--setting",
    metavar="SETTING",
    help=f"Setting: {_SETTINGS}; or a custom one, e.g. height=50:inf,occlusion=none+partial (keys height, "
    "occlusion, border, squarify; see docs/evaluation.md); on CVC-14 also MS-DETR's Reasonable, "
    "Reasonable-near, Reasonable-medium, Scale=near, Scale=medium, Scale=far, all (height >= 1). "
    "Repeatable. Default: reasonable.",
)
SplitsOption = repeated(
    str,
    "--split",
    metavar="SPLIT",
    help="Split to score: all, day, night; a scene, campus, road or downtown, alone or as campus-day, "
    f"campus-night, ...; a set, set06 ... set11. Repeatable. Default: {', '.join(SPLITS)}.",
)
IousOption = Annotated[
    list[float] | None,
    typer.Option(
        "--iou",
        metavar="T",
        parser=IOUS,
        help="IoU threshold of the matching, above 0 and below 1, for the LAMR (AP and AR have their own); "
        "repeatable. Default: 0.5.",
    ),
]
MetricsOption = Annotated[
    list[Metric] | None,
    typer.Option(
        "--metric",
        metavar=choices(Metric),
        help=f"{metric_choices(MISS_RATE)}. Repeatable. Default: {LAMR.name}.",
    ),
]
AnyMetricsOption = Annotated[
    list[AnyMetric] | None,
    typer.Option(
        "--metric",
        metavar="METRIC",
        help=f"KAIST: {metric_choices(MISS_RATE)}; default {LAMR.name}. Other benchmarks: also "
        f"{', '.join(names_of(COCO))} (coco), {', '.join(names_of(YOLOV5))} (yolov5); default: those its papers "
        "report. Repeatable.",
    ),
]
FppiRangeOption = Annotated[
    str,
    typer.Option(
        "--fppi-range",
        metavar="LOW:HIGH",
        help="Reference FPPI range LOW:HIGH of the LAMR: the points 10^k for k from log10(LOW) to log10(HIGH) in "
        "steps of 0.25 (1e-4:1 gives MR-4). The default keeps the leaderboard's nine rounded values; other "
        "ranges use exact powers.",
    ),
]
DevkitShiftOption = Annotated[
    bool,
    typer.Option(
        "--devkit-shift/--no-devkit-shift",
        help="Read per-image folders as the devkit does (x1+1, y1+1, x2-x1, y2-y1 at four decimals). "
        "--no-devkit-shift reads x1, y1 as they are.",
    ),
]
FormatOption = Annotated[OutputFormat, typer.Option("--format", metavar=choices(OutputFormat), help="Output format.")]
NamesOption = repeated(
    str,
    "--name",
    metavar="NAME",
    help="Method name for each result, in order. Default: the file name before '_result'.",
)
PlotOption = Annotated[
    Path | None,
    typer.Option("--plot", metavar="FILE", help="Also draw the MR-FPPI curves to this figure (.png, .pdf or .svg)."),
]
ResamplesOption = whole_option(
    1, MAX_RESAMPLES, "--resamples", help=f"Bootstrap resamples of the images, 1 to {MAX_RESAMPLES:,}."
)
SeedOption = Annotated[
    int,
    typer.Option(
        "--seed",
        metavar="N",
        parser=SEEDS,
        help=f"Random seed of the bootstrap, 0 to {SEEDS.high}: the same seed gives the same intervals.",
    ),
]
IdOffsetOption = offset_option(
    "--id-offset",
    "Add this to every image id as written: -1 for COCO JSON written with 1-based ids, 1 for txt written 0-based.",
)
CornersOption = Annotated[
    bool, typer.Option("--corners", help="Read boxes as corners x1, y1, x2, y2 instead of x, y, width, height.")
]
AsIsOption = Annotated[
    bool,
    typer.Option(
        "--as-is",
        help="Score a result as read even when it looks misread (boxes as corners, ids off by one, "
        "detections of other images): such an error is then printed as a warning.",
    ),
]
CfgOptionsOption = repeated(
    str,
    "--cfg-options",
    metavar="KEY=VALUE",
    help="Override a config entry, KEY=VALUE (e.g. train_dataloader.batch_size=8); repeatable. "
    "data_root=DIR moves every dataset to DIR.",
)

DEFAULT_SPLITS = tuple(SPLITS)
DEFAULT_IOU = 0.5
DEFAULT_FPPI_TEXT = "{:g}:{:g}".format(*DEFAULT_FPPI_RANGE)
DEFAULT_PROTOCOLS = [ProtocolName.leaderboard]
DEFAULT_SIZE = "x".join(map(str, KAIST_FRAME_SIZE))


def setting_names(values: list[str] | None, hint: str = "--setting", benchmarks: bool = False) -> list[str]:
    """The settings asked for (default: reasonable): named ones and presets by their names, custom ones
    by the name that spells out their parameters; with ``benchmarks``, also those a benchmark's protocol
    names itself (MS-DETR's 'all' on CVC-14), which a request refuses on KAIST (`make_request`)."""
    names = []
    for value in values or ["reasonable"]:
        try:
            names.append(get_setting(value).name)
        except ValueError as exc:
            from ..metrics.per_class import protocol_setting_names

            if not benchmarks or value not in protocol_setting_names():
                raise typer.BadParameter(str(exc), param_hint=hint) from None
            names.append(value)
    return list(dict.fromkeys(names))


def split_names(values: list[str] | None) -> list[str]:
    """KAIST's splits asked for (default: all, day, night), each checked."""
    for name in values or ():
        try:
            kaist_parse_split(name)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--split") from None
    return list(values) if values else list(DEFAULT_SPLITS)


def iou_thresholds(values: list[float] | None) -> list[float]:
    """The IoU thresholds asked for (default: 0.5); each was checked as it entered (IOUS)."""
    return list(dict.fromkeys(values or [DEFAULT_IOU]))


def one_iou_threshold(values: list[float] | None) -> float:
    """The IoU threshold of a verb that matches once (diagnose, compare): 0.5 unless given."""
    thresholds = iou_thresholds(values)
    if len(thresholds) > 1:
        raise typer.BadParameter("give one threshold (`kaist-kit eval` takes several)", param_hint="--iou")
    return thresholds[0]


def metric_names(values: list[Metric] | None) -> list[str]:
    return list(dict.fromkeys(m.value for m in values)) if values else [LAMR.name]


def fppi_range(value: str) -> tuple[float, float]:
    try:
        return parse_fppi_range(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--fppi-range") from None


def method_names(names: list[str] | None, results: list[Path]) -> list[str] | None:
    if names and len(names) != len(results):
        raise typer.BadParameter(f"{len(names)} names for {len(results)} results", param_hint="--name")
    return names


def parse_size(value: str, hint: str = "--image-size", low: int = 1, high: int = MAX_SIDE) -> tuple[int, int]:
    """(width, height) of a WIDTHxHEIGHT option value, each from ``low`` to ``high`` pixels."""
    side = Whole(-(2**63), 2**63)
    try:
        width, height = (side(v) for v in value.lower().split("x"))
    except (ValueError, typer.BadParameter):
        raise typer.BadParameter(
            f"{value[:40]!r} is not WIDTHxHEIGHT, each from {low} to {high} pixels, e.g. {DEFAULT_SIZE}",
            param_hint=hint,
        ) from None
    if width <= 0 or height <= 0:
        raise typer.BadParameter(
            f"{value[:40]!r}: the width and the height must be positive, each from {low} to {high} pixels",
            param_hint=hint,
        )
    if not (low <= width <= high and low <= height <= high):
        raise typer.BadParameter(
            f"{value[:40]!r}: the width and the height must each be from {low} to {high} pixels", param_hint=hint
        )
    return width, height


def option_parameters(*options: tuple[str, object, object]) -> tuple[inspect.Parameter, ...]:
    """A group's options as a verb declares them: (name, its `Annotated` option, default) each."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    return tuple(
        inspect.Parameter(name, keyword, annotation=option, default=default) for name, option, default in options
    )


@dataclass(frozen=True)
class OptionGroup:
    """Options that several verbs take together and read as one value (``make`` of them by name)."""

    parameters: tuple[inspect.Parameter, ...]
    make: Callable


# How a result file is read: --devkit-shift, --id-offset, --corners, --as-is, --category-offset.
READ = OptionGroup(
    option_parameters(
        ("devkit_shift", DevkitShiftOption, True),
        ("id_offset", IdOffsetOption, 0),
        ("corners", CornersOption, False),
        ("as_is", AsIsOption, False),
        ("category_offset", CategoryOffsetOption, 0),
    ),
    ReadOptions,
)
# A verb's `read` before `with_groups` makes it the options of READ.
DEFAULT_READ = ReadOptions()


def _evaluated(parameter: inspect.Parameter, names: dict) -> inspect.Parameter:
    """A verb's own parameter, keyword-only, its annotation evaluated where the verb's module postpones it."""
    annotation = parameter.annotation
    if isinstance(annotation, str):
        annotation = eval(annotation, names)  # noqa: S307 - the verb's own annotation, as typing.get_type_hints does
    return parameter.replace(kind=parameter.KEYWORD_ONLY, annotation=annotation)


def with_groups(**groups: OptionGroup) -> Callable:
    """A verb whose parameter NAME is the value of ``groups[NAME]``: typer is shown the group's options in
    its place, declared once, and the verb is given the value they make."""

    def expand(verb: Callable) -> Callable:
        signature = inspect.signature(verb)
        parameters = []
        for parameter in signature.parameters.values():
            group = groups.get(parameter.name)
            parameters += group.parameters if group else [_evaluated(parameter, verb.__globals__)]

        @functools.wraps(verb)
        def verb_of_groups(**given):
            for name, group in groups.items():
                given[name] = group.make(**{p.name: given.pop(p.name) for p in group.parameters})
            return verb(**given)

        verb_of_groups.__signature__ = signature.replace(parameters=parameters)
        verb_of_groups.__annotations__ = {p.name: p.annotation for p in parameters}
        verb_of_groups.__annotations__["return"] = signature.return_annotation
        del verb_of_groups.__wrapped__  # typer reads the signature above, not the verb's
        return verb_of_groups

    return expand


def open_truth(gt: Path | None, benchmark: str | None, origin: Origin | None = None):
    """The ground truth and its benchmark (`kaist_kit.scoring.run.open_truth`), the download of a
    pinned file shown with a progress bar; the line saying which benchmark was taken is printed
    (except for KAIST's as ever: see `BenchmarkTruth.announced`)."""
    from ..scoring.run import open_truth as open_benchmark_truth

    with download_bar() as progress:
        truth = open_benchmark_truth(
            gt,
            benchmark,
            origin=origin.value if origin else None,
            echo=say,
            progress=progress,
        )
    if truth.announced:
        say(truth.line)
    return truth


def scoring_options(
    settings: list[str] | None, ious: list[float] | None, fppi_text: str, bounds: Bounds | None
) -> ScoringOptions:
    """The miss rates' options of the scoring verbs: settings (None: the benchmark's first), IoU thresholds,
    the reference FPPI range and, on another benchmark, the KAIST scripts' border."""
    return ScoringOptions(
        settings=tuple(setting_names(settings, benchmarks=True)) if settings else None,
        ious=tuple(iou_thresholds(ious)),
        fppi_range=fppi_range(fppi_text),
        llvip_bounds=bounds.value if bounds else "frame",
    )


@dataclass(frozen=True)
class RequestOptions:
    """What the scoring verbs' shared options ask (the ground truth, splits, protocols, IoUs, the FPPI range,
    LLVIP's bounds, how results are read), made into one `ScoringRequest` by `request`."""

    protocols: list[AnyProtocol]
    read: ReadOptions
    one_iou: bool  # the verbs that match once (diagnose, compare) take one --iou
    # The other options, by their names.
    gt: Path | None = None
    benchmark: str | None = None
    split: list[str] | None = None
    iou: list[float] | None = None
    fppi_range_text: str = DEFAULT_FPPI_TEXT
    origin: Origin | None = None
    llvip_bounds: Bounds | None = None

    def request(self, settings: list[str] | None, names: list[str] | None, **asked):
        """The request, checked against the benchmark: every option value is read before the ground truth is
        opened; ``asked``: the rest of `make_request`'s keywords (metrics, images, curves)."""
        from ..scoring.run import make_request

        ious = [one_iou_threshold(self.iou)] if self.one_iou else self.iou
        scoring = scoring_options(settings, ious, self.fppi_range_text, self.llvip_bounds)
        return make_request(
            open_truth(self.gt, self.benchmark, self.origin),
            protocols=[p.value for p in self.protocols],
            splits=self.split or [],
            scoring=scoring,
            read=self.read,
            names=names,
            **asked,
        )


def _request_group(protocol: tuple[str, object, object], one_iou: bool) -> OptionGroup:
    """The options of `RequestOptions`, in the order help lists them; ``protocol`` one or several."""

    def make(protocol, **options) -> RequestOptions:
        read = ReadOptions(**{p.name: options.pop(p.name) for p in READ.parameters})
        protocols = protocol if isinstance(protocol, list) else [protocol] if protocol else []
        return RequestOptions(protocols, read, one_iou, **options)

    parameters = option_parameters(
        ("gt", ScoringGroundTruthOption, None),
        ("benchmark", BenchmarkOption, None),
        ("split", SplitsOption, None),
        protocol,
        ("iou", IousOption, None),
        ("fppi_range_text", FppiRangeOption, DEFAULT_FPPI_TEXT),
    )
    parameters += READ.parameters + option_parameters(
        ("origin", OriginOption, None), ("llvip_bounds", LlvipBoundsOption, None)
    )
    return OptionGroup(parameters, make)


# `eval`'s: protocols and IoUs, as many as asked; `diagnose`'s and `compare`'s: one of each.
SCORING_REQUEST = _request_group(("protocol", AnyProtocolsOption, None), one_iou=False)
ONE_PROTOCOL_REQUEST = _request_group(("protocol", AnyProtocolOption, None), one_iou=True)


def render(report, format: OutputFormat) -> None:
    """A verb's output (an `EvalReport`, `DiagnosedFile` or `ComparedFiles`: see kaist_kit.scoring.report) on
    standard output, in the format asked for."""
    if format is OutputFormat.json:
        print(json.dumps(report.to_json(), indent=1))
    elif format is OutputFormat.csv:
        sys.stdout.write(report.to_csv())
    elif format is OutputFormat.markdown:
        sys.stdout.write(report.to_markdown())
    else:
        from ..output.tables import print_tables

        print_tables(report.tables(), out, report.light)
        for line in report.lines():
            out.print(line, soft_wrap=False, highlight=False, markup=False)


def locate_gt(path: Path | None, benchmark=None) -> Path:
    """The ground-truth file the verbs use: ``--gt``, else the default of the benchmark (default KAIST) that
    keeps rules of its own for its pinned file (KAIST's: see `find_gt`), whose download on first use is
    announced on stderr with a progress bar."""
    from ..datasets import DEFAULT_BENCHMARK

    if path:
        return Path(path)
    with download_bar() as progress:
        return (benchmark or DEFAULT_BENCHMARK).pinned_rules.find(echo=say, progress=progress)


def load_gt(path: Path | None):
    """The ground truth the verbs score against: ``--gt``, else the default (see `locate_gt`)."""
    from ..datasets.kaist_truth import load_ground_truth

    return load_ground_truth(locate_gt(path))


def progress_bar(*columns):
    """A rich progress bar of these columns on stderr, drawn only when stderr is a terminal and gone
    when done."""
    from rich.progress import Progress

    return Progress(*columns, console=err, transient=True, disable=not err.is_terminal)


@contextmanager
def download_bar() -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` for downloads: a bar on stderr, drawn from the first chunk on and
    only when stderr is a terminal (rich's progress bars are imported then, not before)."""
    bar = task = None

    def progress(done: int, total: int) -> None:
        nonlocal bar, task
        if bar is None:
            from rich.progress import BarColumn, DownloadColumn, TimeRemainingColumn, TransferSpeedColumn

            bar = progress_bar(BarColumn(), DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn())
            bar.start()
            task = bar.add_task("downloading", total=total)
        bar.update(task, completed=done)

    try:
        yield progress
    finally:
        if bar is not None:
            bar.stop()
