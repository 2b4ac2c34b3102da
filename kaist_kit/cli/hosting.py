"""Hosting a challenge: `host evalai`, `host codabench`, `host check` and `leaderboard`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .app import app, out, say
from .command import whole_option
from .options import (
    MetricsOption,
    OptionGroup,
    ProtocolsOption,
    SettingsOption,
    SplitsOption,
    metric_names,
    option_parameters,
    repeated,
    setting_names,
    split_names,
    with_groups,
)

if TYPE_CHECKING:
    from ..hosting.options import HostOptions

MAX_TOP = 50  # curves on one plot (`leaderboard --top`; build_site refuses more)

host = typer.Typer(
    name="host",
    help="Write a challenge bundle for EvalAI or Codabench that scores with the kit, or check a bundle.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(host, name="host")

GtOption = Annotated[
    Path,
    typer.Option(
        "--gt",
        metavar="FILE",
        help="The test ground truth (COCO JSON) the challenge scores against; it goes into the bundle.",
        show_default=False,
    ),
]
TitleOption = Annotated[str, typer.Option(metavar="TEXT", help="The challenge's title.")]
PhaseOption = repeated(
    str,
    "--phase",
    metavar="NAME[:START:END]",
    help="A phase, its dates YYYY-MM-DD (UTC, from 00:00:00 to 23:59:59); repeatable, in order. Default: one phase "
    "'test', open until 2099.",
)


def _options(title: str, phase: list[str] | None, metric, setting, split, protocol):
    """The challenge a bundle hosts, from the hosting verbs' options."""
    from ..hosting.columns import ColumnSpec
    from ..hosting.options import HostOptions, parse_phase

    try:
        phases = [parse_phase(text) for text in phase or ["test"]]
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--phase") from None
    spec = ColumnSpec(
        tuple(metric_names(metric)),
        tuple(setting_names(setting)),
        tuple(split_names(split)),
        tuple(p.value for p in protocol),
    )
    try:
        return HostOptions(title, phases, spec)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--phase") from None


# The challenge's options, which both bundles take: its title, phases and leaderboard columns.
CHALLENGE = OptionGroup(
    option_parameters(
        ("title", TitleOption, "KAIST multispectral pedestrian detection"),
        ("phase", PhaseOption, None),
        ("metric", MetricsOption, None),
        ("setting", SettingsOption, None),
        ("split", SplitsOption, None),
        ("protocol", ProtocolsOption, ["leaderboard"]),
    ),
    _options,
)


@host.command("evalai")
@with_groups(challenge=CHALLENGE)
def evalai_command(
    gt: GtOption,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", help="The bundle's folder (or NAME.zip).", show_default=False),
    ] = None,
    starters: Annotated[
        Path | None,
        typer.Option(
            "--starters",
            metavar="DIR",
            help="Instead of --out: the folder of a repository made from Cloud-CV/EvalAI-Starters, whose GitHub "
            "workflow zips evaluation_script/ (the bundle without evaluation_script.zip; add the Starters' github/ and "
            ".github/ folders).",
            show_default=False,
        ),
    ] = None,
    challenge: HostOptions = None,
) -> None:
    """Write an EvalAI challenge bundle: challenge_config.yaml, templates, and the evaluation script (the folder
    evaluation_script/ and evaluation_script.zip), which scores uploads with the kit on EvalAI's Python 3.9 worker
    (3.7 and 3.8 too) with numpy alone."""
    from ..hosting.evalai import SCRIPT_FOLDER, SCRIPT_ZIP, write_evalai_bundle
    from ..hosting.platforms import EVALAI_WORKER

    if (out_path is None) == (starters is None):
        raise typer.BadParameter("give one of --out DIR and --starters DIR", param_hint="--out")
    target = out_path if out_path is not None else starters
    try:
        written = write_evalai_bundle(gt, target, challenge, starters=starters is not None)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--title") from None
    say(f"wrote {target}: {len(written.sizes)} files, {sum(written.sizes.values()) / 1e3:.0f} kB")
    script = f"{SCRIPT_FOLDER}/ and {SCRIPT_ZIP}" if starters is None else f"{SCRIPT_FOLDER}/"
    out.print(
        f"EvalAI bundle in {target}: leaderboard columns {', '.join(written.labels)}; {script} hold "
        f"{len(written.script_members)} files (the entry point and the kit's core; the zip "
        f"{written.script_size / 1e3:.1f} kB), for EvalAI's Python {EVALAI_WORKER.python} worker. "
        f"`kaist-kit host check {target}` runs it as EvalAI's worker would.",
        markup=False,
        highlight=False,
    )
    if starters is not None:
        out.print(
            "Add the github/ and .github/ folders of Cloud-CV/EvalAI-Starters to it, fill in github/host_config.json, "
            "and push it to a branch named challenge: the Starters' workflow zips evaluation_script/ and creates the "
            "challenge.",
            markup=False,
            highlight=False,
        )


@host.command("codabench")
@with_groups(challenge=CHALLENGE)
def codabench_command(
    gt: GtOption,
    out_path: Annotated[
        Path, typer.Option("--out", metavar="BUNDLE.zip", help="The bundle to write.", show_default=False)
    ],
    challenge: HostOptions = None,
) -> None:
    """Write a Codabench competition bundle: competition.yaml, pages, the reference data and a scoring
    program that scores with the kit."""
    from ..hosting.codabench import write_codabench_bundle

    try:
        written = write_codabench_bundle(gt, out_path, challenge)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--setting") from None
    say(f"wrote {out_path} ({written.size / 1e3:.0f} kB, {len(written.members)} files)")
    out.print(
        f"Codabench bundle {out_path}: leaderboard keys {', '.join(written.keys)}. `kaist-kit host check "
        f"{out_path}` runs its scoring program as Codabench would.",
        markup=False,
        highlight=False,
    )


@host.command("check")
def check_command(
    bundle: Annotated[
        Path,
        typer.Argument(metavar="BUNDLE", help="An EvalAI or Codabench bundle: a folder or a .zip."),
    ],
    run: Annotated[
        bool,
        typer.Option(
            "--run/--no-run",
            help="Run the bundle's evaluator on uploads made from its "
            "test annotations, in a separate process (its code runs on this machine: "
            "check bundles you trust).",
        ),
    ] = True,
    python: Annotated[
        str | None,
        typer.Option(
            "--python",
            metavar="PATH",
            help="The interpreter to run the evaluator in. Default: one of the Python version the platform's worker "
            "runs (pythonX.Y on PATH, pyenv's) that has numpy, else this one (and the report says so).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Lint a challenge bundle as the platform's validators read it and run its evaluator as the platform's worker
    would. Exit code 1 when it has errors, 2 when the bundle cannot be read at all."""
    from ..errors import quantity
    from ..hosting.check import check_bundle

    report = check_bundle(bundle, run=run, python=python)
    for problem in report.problems:
        out.print(problem.line(), markup=False, highlight=False)
    runs = f"; its evaluator ran on {len(report.probes)} uploads in {report.interpreter}" if report.ran else ""
    verdict = "no errors" if report.ok else quantity(sum(p.level == "error" for p in report.problems), "error")
    out.print(f"{bundle}: {report.platform} bundle, {verdict}{runs}", markup=False, highlight=False)
    if not report.ok:
        raise typer.Exit(1)


ReferenceOption = repeated(
    str,
    "--reference",
    metavar="NAME",
    help="A published result of `kaist-kit zoo` to rank among the entries, marked as a reference; repeatable.",
)


TopOption = whole_option(1, MAX_TOP, help=f"Curves of the N leading entries, 1 to {MAX_TOP}.")


@app.command("leaderboard")
def leaderboard_command(
    submissions: Annotated[
        Path,
        typer.Argument(
            metavar="SUBMISSIONS",
            help="A folder of results, one per team or method (with the manifests `kaist-kit submit` writes, if any).",
        ),
    ],
    gt: GtOption,
    out_path: Annotated[Path, typer.Option("--out", metavar="SITE", help="The site's folder.", show_default=False)],
    metric: MetricsOption = None,
    title: TitleOption = "KAIST multispectral pedestrian detection",
    top: TopOption = 5,
    reference: ReferenceOption = None,
) -> None:
    """Score every result of a folder and write a static leaderboard site (index.html and a page per entry);
    a second run rescores only what changed."""
    from ..hosting.leaderboard import build_site
    from ..hosting.options import printable

    site = build_site(submissions, gt, out_path, tuple(metric_names(metric)), title, top, tuple(reference or ()))
    for name in site.skipped:
        say(printable(f"note: {name} is not a result file: left out"))
    out.print(
        printable(
            f"wrote {out_path / 'index.html'}: {len(site.entries)} entries ({len(site.scored)} scored, "
            f"{len(site.refused)} refused, {len(site.reused)} unchanged)"
        ),
        markup=False,
        highlight=False,
    )
