"""The pinned ground truths: `fetch` downloads one ahead of time, for machines that work offline later."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..datasets.kaist_truth import GT_FILENAME, default_gt_path
from .app import app, say
from .options import BenchmarkOption, download_bar


@app.command("fetch")
def fetch_command(
    to: Annotated[
        Path | None,
        typer.Option(
            "--to",
            metavar="FOLDER",
            help=f"Folder to put {GT_FILENAME} (or the other benchmark's file) in. Default: "
            f"{default_gt_path().parent}, where every verb looks for it.",
            show_default=False,
        ),
    ] = None,
    benchmark: BenchmarkOption = None,
) -> None:
    """Download the leaderboard's ground truth (test-all-20, 1.6 MB), checked against its pinned MD5; with
    --benchmark, that benchmark's pinned test ground truth (FLIR-aligned, M3FD)."""
    from ..datasets import DEFAULT_BENCHMARK, get_benchmark
    from ..datasets.pinned import fetch_lines

    bench = get_benchmark(benchmark) if benchmark else DEFAULT_BENCHMARK
    rules = bench.pinned_rules
    with download_bar() as progress:
        if rules is not None:  # the dataset's own (KAIST's leaderboard file)
            lines = rules.fetch(to, echo=say, progress=progress)
        else:
            lines = fetch_lines(bench, to, echo=say, progress=progress)
    for line in lines:
        say(line)
