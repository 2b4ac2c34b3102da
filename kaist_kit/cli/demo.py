"""The whole kit on a synthetic KAIST, in seconds: `demo`."""

from pathlib import Path
from typing import Annotated

import typer

from .app import app, say
from .command import Whole
from .options import SEEDS, OutputFormat, render

MAX_DEMO_FRAMES = 10_000

DEMO_FOLDER = Path("kaist-kit-demo")


@app.command("demo")
def demo_command(
    folder: Annotated[
        Path, typer.Option("--out", metavar="FOLDER", help="Folder for the demo's files (replaced on a rerun).")
    ] = DEMO_FOLDER,
    frames: Annotated[
        int,
        typer.Option(
            metavar="N", parser=Whole(1, MAX_DEMO_FRAMES), help=f"Synthetic test frames, 1 to {MAX_DEMO_FRAMES:,}."
        ),
    ] = 200,
    seed: Annotated[int, typer.Option(metavar="N", parser=SEEDS, help=f"Random seed, 0 to {SEEDS.high}.")] = 0,
) -> None:
    """The kit end to end on a synthetic KAIST: synthesise, convert, detect (simulated), score, draw."""
    from ..demo import run_demo
    from ..report import EvalReport

    run = run_demo(folder, frames, seed, say=say)
    differences = [d.sentence() for d in run.comparison.differences if d.split != "all"]
    render(EvalReport(run.scores, ground_truth=str(run.gt), after=differences), OutputFormat.table)
    say(
        f"curves: {run.figure}\nnight frame with detections: {run.frame}\n"
        f"submission of the best method: {run.extra['submission']}\n"
        f"diagnosis of the best method: {run.extra['diagnosis']}/report.md"
    )
