"""Simulated detectors' results on any ground truth (`simulate`), and the whole kit on a synthetic KAIST, in
seconds (`demo`)."""

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from .app import app, say
from .command import whole_option
from .options import (
    SEEDS,
    BenchmarkOption,
    OriginOption,
    OutputFormat,
    ScoringGroundTruthOption,
    choices,
    render,
)

# The simulated detectors of kaist_kit.tools.simulate, named here so that --help needs no import.
SimulatedName = Enum("SimulatedName", {name: name for name in ("sim-fusion", "sim-visible", "sim-thermal")}, type=str)

MAX_DEMO_FRAMES = 10_000

DEMO_FOLDER = Path("kaist-kit-demo")


@app.command("simulate")
def simulate_command(
    out: Annotated[
        Path, typer.Option("--out", metavar="FILE", help="The COCO result JSON to write.", show_default=False)
    ],
    gt: ScoringGroundTruthOption = None,
    benchmark: BenchmarkOption = None,
    origin: OriginOption = None,
    method: Annotated[
        SimulatedName,
        typer.Option(
            metavar=choices(SimulatedName),
            help="The detector: fusion finds people by day and by night; visible-only misses them at night; "
            "thermal-only is weaker by day.",
        ),
    ] = SimulatedName["sim-fusion"],
    seed: Annotated[int, typer.Option(metavar="N", parser=SEEDS, help=f"Random seed, 0 to {SEEDS.high}.")] = 0,
) -> None:
    """Write a simulated detector's results on a ground truth's images (misses, jittered boxes, false
    positives), as a detector's COCO result JSON: for trying eval, diagnose, compare and submit without a
    detector."""
    from ..tools.simulate import METHODS, write_simulated
    from .options import open_truth

    truth = open_truth(gt, benchmark, origin)
    found = write_simulated(truth.annotations, METHODS[method.value], out, seed)
    say(f"wrote {out}: {len(found):,} detections of {method.value}, simulated on {truth.describe()}")


DemoFramesOption = whole_option(1, MAX_DEMO_FRAMES, help=f"Synthetic test frames, 1 to {MAX_DEMO_FRAMES:,}.")


@app.command("demo")
def demo_command(
    folder: Annotated[
        Path, typer.Option("--out", metavar="FOLDER", help="Folder for the demo's files (replaced on a rerun).")
    ] = DEMO_FOLDER,
    frames: DemoFramesOption = 200,
    seed: Annotated[int, typer.Option(metavar="N", parser=SEEDS, help=f"Random seed, 0 to {SEEDS.high}.")] = 0,
) -> None:
    """The kit end to end on a synthetic KAIST: synthesise, convert, detect (simulated), score, draw."""
    from ..scoring.report import EvalReport
    from ..tools.demo import run_demo

    run = run_demo(folder, frames, seed, say=say)
    differences = [d.sentence() for d in run.comparison.differences if d.split != "all"]
    render(EvalReport(run.scores, ground_truth=str(run.gt), after=differences), OutputFormat.table)
    say(
        f"curves: {run.figure}\nnight frame with detections: {run.frame}\n"
        f"submission of the best method: {run.extra['submission']}\n"
        f"diagnosis of the best method: {run.extra['diagnosis']}/report.md"
    )
