"""Challenge entries: `submit` packages a result, or checks one as it is."""

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..data.detections import ReadOptions
from ..submission.targets import LEADERBOARD, TARGETS
from .app import app, out, say
from .options import (
    DEFAULT_READ,
    READ,
    BenchmarkOption,
    OriginOption,
    choices,
    gt_help,
    locate_gt,
    open_truth,
    with_groups,
)

TargetName = Enum("TargetName", {name: name for name in TARGETS}, type=str)
DEFAULT_TARGET = TargetName(LEADERBOARD.name)


@app.command("submit")
@with_groups(read=READ)
def submit_command(
    result: Annotated[
        Path,
        typer.Argument(
            metavar="RESULT",
            help="A result in any format `kaist-kit eval` reads (COCO result JSON, leaderboard txt, "
            "per-image folder, archives, `kaist-kit test` output); with --check, also a packaged entry.",
        ),
    ],
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="NAME.json: the results file to upload, with NAME.manifest.json beside it. NAME.txt: the "
            "leaderboard's txt to upload instead (leaderboard only). NAME.zip: the JSON and the manifest in an "
            "archive for records (upload the JSON inside it: the evaluators read .json and .txt files only).",
        ),
    ] = None,
    target: Annotated[
        TargetName,
        typer.Option(
            "--target",
            metavar=choices(TargetName),
            help="leaderboard: the public KAIST leaderboard (category_id 1). challenge2024: the 2024 KAIST RGB-T "
            "challenge on EvalAI (category_id 0, and its AP columns self-evaluated).",
        ),
    ] = DEFAULT_TARGET,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Only validate RESULT as it is: which target it is written for, what that target's "
            "evaluator would do with it and its predicted score; write nothing. Exit code 1 when "
            "that evaluator would not score it correctly or it looks misread, 2 when it cannot be "
            "read.",
        ),
    ] = False,
    gt: Annotated[
        Path | None,
        typer.Option(
            metavar="FILE",
            help=gt_help(
                "Ground truth (COCO JSON), for the self-evaluated miss rate and the overlap checks.", "; else none"
            ),
        ),
    ] = None,
    method: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Method name for the manifest and the results file (100 characters at most). "
            "Default: the file name before '_result'.",
        ),
    ] = None,
    read: ReadOptions = DEFAULT_READ,
    benchmark: BenchmarkOption = None,
    origin: OriginOption = None,
) -> None:
    """Package a result as a challenge entry (the JSON to upload and its manifest), or check one.

    On the other benchmarks (--benchmark), --check checks a COCO result JSON and self-scores it.
    """
    from ..submission import check as check_file
    from ..submission import package
    from ..submission.report import check_lines, package_lines

    packaging = out_path is not None or read.id_offset or read.corners or method or read.as_is
    _check_or_package(check, packaging or target is not DEFAULT_TARGET, out_path)
    from ..datasets import get_benchmark

    # Only the default benchmark's ground truth is had without --gt (`_leaderboard_truth`); another is opened.
    other = benchmark is not None and not get_benchmark(benchmark).quiet
    if other or read.category_offset or origin is not None or gt is not None:
        truth = open_truth(gt, benchmark, origin)
        if truth.benchmark.layout != "splits":
            _check_benchmark(result, truth, check, ReadOptions(category_offset=read.category_offset))
            return
        if read.category_offset or origin is not None:
            raise typer.BadParameter(
                f"applies to the other benchmarks; the ground truth is scored as {truth.benchmark.name}",
                param_hint="--category-offset" if read.category_offset else "--origin",
            )
        ground_truth = truth.annotations
    elif gt is None:
        ground_truth = _leaderboard_truth(check)
    if check:
        report = check_file(result, ground_truth, read)
        out.print("\n".join(check_lines(report)), markup=False, highlight=False)
        if not report.ok:
            raise typer.Exit(1)
        return
    written = package(result, out_path, ground_truth, method, target=target.value, options=read)
    out.print("\n".join(package_lines(written)), markup=False, highlight=False)


def _check_or_package(check: bool, packaging: bool, out_path: Path | None) -> None:
    """--check takes no option of packaging, and packaging needs --out."""
    if check and packaging:
        raise typer.BadParameter(
            "--check validates the file as it is and says which target it suits; --out, "
            "--target, --method, --id-offset, --corners and --as-is apply when packaging",
            param_hint="--check",
        )
    if not check and out_path is None:
        raise typer.BadParameter(
            "say where to write the entry, e.g. --out MY_result.json (the file to upload)", param_hint="--out"
        )


def _leaderboard_truth(check: bool):
    """KAIST's default ground truth, or None where it cannot be had: packaging needs no labels, so
    without network the entry is still packaged, checked by what can be checked without them, as the
    report's note says."""
    from ..datasets.kaist_truth import GroundTruthUnavailable, load_ground_truth
    from ..io.download import downloads_forbidden

    try:
        gt = locate_gt(None)
    except GroundTruthUnavailable as exc:
        if not downloads_forbidden():  # when they are, going without is what was asked for
            say(f"note: {exc.why}; {'checking' if check else 'packaging'} without it")
        return None
    return load_ground_truth(gt)


def _check_benchmark(result: Path, truth, check: bool, options) -> None:
    """`submit --check` on a benchmark other than KAIST: no leaderboard of those takes entries."""
    from ..scoring.run import check_benchmark_file, make_request

    if not check:
        raise typer.BadParameter(
            f"{truth.benchmark.title} has no leaderboard that takes entries: --check validates "
            "and self-scores a result as it is",
            param_hint="--benchmark",
        )
    report = check_benchmark_file(result, make_request(truth, read=options))
    out.print("\n".join(report.lines()), markup=False, highlight=False)
    if not report.ok:
        raise typer.Exit(1)
