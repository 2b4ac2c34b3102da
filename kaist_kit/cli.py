"""The `kaist-kit` command. Each verb is a thin shell over a library function."""

from __future__ import annotations

import sys
import warnings
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer
from rich.console import Console

from . import __version__
from .errors import InputError, KitWarning

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
        err.print(f"[yellow]warning:[/yellow] {message}", markup=True, highlight=False)
    else:
        err.print(f"warning: {category.__name__}: {message}", markup=False, highlight=False)


def main() -> None:
    """Console entry point: input errors become one line on stderr and exit code 2."""
    warnings.showwarning = _show_warning
    warnings.simplefilter("default", KitWarning)
    try:
        app()
    except InputError as exc:
        err.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
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


def _setting_names(values: Optional[List[str]]) -> list[str]:
    from .settings import SETTINGS

    names = list(dict.fromkeys(values or ["reasonable"]))
    for name in names:
        if name not in SETTINGS:
            raise typer.BadParameter(f"unknown setting {name!r}; choose from {', '.join(SETTINGS)}",
                                     param_hint="--setting")
    return names


@app.command("eval")
def eval_command(
    results: Annotated[List[Path], typer.Argument(
        help="Result files: COCO result JSON (0-based image ids), leaderboard txt "
             "(image_id,x,y,w,h,score, 1-based), the devkit's aggregated txt, a per-image folder, "
             "or a .zip / .tar.gz of any of them.", show_default=False)],
    gt: Annotated[Optional[Path], typer.Option(
        help="Ground truth (COCO JSON). Default: $KAIST_KIT_GT, then "
             "~/.local/share/kaist-kit/test-all-20.leaderboard.json.")] = None,
    split: Annotated[Optional[List[Split]], typer.Option(
        help="Split to score; repeat for several. Default: all, day and night.")] = None,
    images: Annotated[Optional[List[Path]], typer.Option(
        help="A list file of image names or ids to score as an extra split; repeatable.")] = None,
    setting: Annotated[Optional[List[str]], typer.Option(
        help="Setting: reasonable, reasonable-small, reasonable-heavy, all-pedestrians, near, medium, "
             "far, occ-none, occ-partial, occ-heavy; repeatable. Default: reasonable.")] = None,
    protocol: Annotated[List[ProtocolName], typer.Option(
        help="leaderboard: the public leaderboard's evaluator. matlab: the KAIST devkit most papers "
             "quote. Repeat for both.")] = [ProtocolName.leaderboard],  # noqa: B006
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
    plot: Annotated[Optional[Path], typer.Option(
        help="Also draw the MR-FPPI curves to this figure (.png, .pdf or .svg).")] = None,
    name: Annotated[Optional[List[str]], typer.Option(
        help="Method name for each result, in order. Default: the file name before '_result'.")] = None,
    devkit_shift: Annotated[bool, typer.Option(
        help="Read per-image folders as the devkit does (x1+1, y1+1, x2-x1, y2-y1 at four "
             "decimals). --no-devkit-shift reads x1, y1 as they are.")] = True,
    curves: Annotated[bool, typer.Option(help="With --format json, include the full curves.")] = False,
) -> None:
    """Score results with the log-average miss rate, exactly as the leaderboard or the devkit."""
    from . import report
    from .evaluate import evaluate_files
    from .groundtruth import find_gt, load_ground_truth
    from .imagesets import list_name, read_image_list
    from .plots import check_figure_path, plot_results

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
    out_zip: Annotated[Optional[Path], typer.Option("--out", help="The submission zip to write.")] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Only validate RESULT as it is and predict its leaderboard score; write nothing. "
                        "Exit code 1 when the leaderboard would not score it correctly.")] = False,
    gt: Annotated[Optional[Path], typer.Option(
        help="Ground truth (COCO JSON), for the self-evaluated miss rate and the overlap checks. "
             "Default: $KAIST_KIT_GT, then ~/.local/share/kaist-kit/test-all-20.leaderboard.json, "
             "else none.")] = None,
    method: Annotated[Optional[str], typer.Option(
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
    from .groundtruth import find_gt, load_ground_truth
    from .submission import check as check_file
    from .submission import package
    from .submission.report import check_lines, package_lines

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


if __name__ == "__main__":
    main()
