"""Hosting a challenge: `host evalai`, `host codabench`, `host check` and `leaderboard`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import app, out, say
from .options import (
    MetricsOption,
    ProtocolsOption,
    SettingsOption,
    SplitsOption,
    metric_names,
    setting_names,
    split_names,
)

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
PhaseOption = Annotated[
    list[str] | None,
    typer.Option(
        "--phase",
        metavar="NAME[:START:END]",
        help="A phase, its dates YYYY-MM-DD (UTC, from 00:00:00 to 23:59:59); repeatable, in order. Default: one phase "
        "'test', open until 2099.",
    ),
]


def _options(title: str, phase: list[str] | None, metric, setting, split, protocol):
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


@host.command("evalai")
def evalai_command(
    gt: GtOption,
    out_path: Annotated[
        Path, typer.Option("--out", metavar="DIR", help="The bundle's folder (or NAME.zip).", show_default=False)
    ],
    title: TitleOption = "KAIST multispectral pedestrian detection",
    phase: PhaseOption = None,
    metric: MetricsOption = None,
    setting: SettingsOption = None,
    split: SplitsOption = None,
    protocol: ProtocolsOption = ["leaderboard"],  # noqa: B006 - typer's default for a repeatable option
) -> None:
    """Write an EvalAI challenge bundle: challenge_config.yaml, templates, and evaluation_script.zip, which
    scores uploads with the kit on a worker that has numpy."""
    from ..hosting.evalai import SCRIPT_ZIP, write_evalai_bundle

    written = write_evalai_bundle(gt, out_path, _options(title, phase, metric, setting, split, protocol))
    say(f"wrote {out_path}: {len(written.sizes)} files, {sum(written.sizes.values()) / 1e3:.0f} kB")
    out.print(
        f"EvalAI bundle in {out_path}: leaderboard columns {', '.join(written.labels)}; {SCRIPT_ZIP} holds "
        f"{len(written.script_members)} files (the entry point and the kit's core). `kaist-kit host check "
        f"{out_path}` runs it as EvalAI's worker would.",
        markup=False,
        highlight=False,
    )


@host.command("codabench")
def codabench_command(
    gt: GtOption,
    out_path: Annotated[
        Path, typer.Option("--out", metavar="BUNDLE.zip", help="The bundle to write.", show_default=False)
    ],
    title: TitleOption = "KAIST multispectral pedestrian detection",
    phase: PhaseOption = None,
    metric: MetricsOption = None,
    setting: SettingsOption = None,
    split: SplitsOption = None,
    protocol: ProtocolsOption = ["leaderboard"],  # noqa: B006 - typer's default for a repeatable option
) -> None:
    """Write a Codabench competition bundle: competition.yaml, pages, the reference data and a scoring
    program that scores with the kit."""
    from ..hosting.codabench import write_codabench_bundle

    written = write_codabench_bundle(gt, out_path, _options(title, phase, metric, setting, split, protocol))
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
        typer.Argument(metavar="BUNDLE", help="An EvalAI or Codabench bundle: a folder or a .zip.", show_default=False),
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
) -> None:
    """Lint a challenge bundle and run its evaluator as the platform would. Exit code 1 when it has errors."""
    from ..hosting.check import check_bundle

    report = check_bundle(bundle, run=run)
    for problem in report.problems:
        out.print(problem.line(), markup=False, highlight=False)
    runs = f"; its evaluator ran on {len(report.probes)} uploads" if report.ran else ""
    verdict = "no errors" if report.ok else f"{sum(p.level == 'error' for p in report.problems)} errors"
    out.print(f"{bundle}: {report.platform} bundle, {verdict}{runs}", markup=False, highlight=False)
    if not report.ok:
        raise typer.Exit(1)


@app.command("leaderboard")
def leaderboard_command(
    submissions: Annotated[
        Path,
        typer.Argument(
            metavar="SUBMISSIONS",
            help="A folder of results, one per team or method (with the manifests `kaist-kit submit` writes, if any).",
            show_default=False,
        ),
    ],
    gt: GtOption,
    out_path: Annotated[Path, typer.Option("--out", metavar="SITE", help="The site's folder.", show_default=False)],
    metric: MetricsOption = None,
    title: TitleOption = "KAIST multispectral pedestrian detection",
    top: Annotated[int, typer.Option(metavar="N", min=1, help="Curves of the N leading entries.")] = 5,
    reference: Annotated[
        list[str] | None,
        typer.Option(
            "--reference",
            metavar="NAME",
            help="A published result of `kaist-kit zoo` to rank among the entries, marked as a reference; repeatable.",
        ),
    ] = None,
) -> None:
    """Score every result of a folder and write a static leaderboard site (index.html and a page per entry);
    a second run rescores only what changed."""
    from ..hosting.leaderboard import build_site

    site = build_site(submissions, gt, out_path, tuple(metric_names(metric)), title, top, tuple(reference or ()))
    for name in site.skipped:
        say(f"note: {name} is not a result file: left out")
    out.print(
        f"wrote {out_path / 'index.html'}: {len(site.entries)} entries ({len(site.rescored)} scored, "
        f"{len(site.reused)} unchanged)",
        markup=False,
        highlight=False,
    )
