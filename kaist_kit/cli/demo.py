"""The whole kit on a synthetic KAIST, in seconds: `demo`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .app import app, out, say

DEMO_FOLDER = Path("kaist-kit-demo")


@app.command("demo")
def demo_command(
    folder: Annotated[Path, typer.Option("--out", metavar="FOLDER", help="Folder for the demo's files (replaced on "
                                                                        "a rerun).")] = DEMO_FOLDER,
    frames: Annotated[int, typer.Option(metavar="N", help="Synthetic test frames.")] = 200,
    seed: Annotated[int, typer.Option(metavar="N", help="Random seed.")] = 0,
) -> None:
    """The kit end to end on a synthetic KAIST: synthesise, convert, detect (simulated), score, draw."""
    from .. import report
    from ..demo import run_demo

    run = run_demo(folder, frames, seed, say=say)
    report.print_table(run.scores, out, "\n".join([f"ground truth: {run.gt}"] + report.protocol_notes(run.scores)))
    for difference in run.comparison.differences:
        if difference.split != "all":
            out.print(difference.sentence(), highlight=False)
    say(f"curves: {run.figure}\nnight frame with detections: {run.frame}\n"
        f"submission of the best method: {run.extra['submission']}\n"
        f"diagnosis of the best method: {run.extra['diagnosis']}/report.md")
