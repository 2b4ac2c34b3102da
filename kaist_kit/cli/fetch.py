"""The pinned ground truths: `fetch` downloads one ahead of time, for machines that work offline later."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from ..datasets.kaist_truth import GT_ENV, GT_FILENAME, default_gt_path
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

    bench = get_benchmark(benchmark) if benchmark else DEFAULT_BENCHMARK
    if not bench.kaist_model:
        from ..datasets.pinned import find_pinned

        with download_bar() as progress:
            path = find_pinned(bench, to, echo=say, progress=progress)
        say(f"{bench.title}'s ground truth is at {path}")
        if to is not None:
            say(f"use it with --gt {path}")
        return
    from ..datasets.kaist_truth import GroundTruthUnavailable, fetch_gt

    with download_bar() as progress:
        try:
            path = fetch_gt(to, echo=say, progress=progress)
        except GroundTruthUnavailable as exc:
            raise exc.for_fetch(default_gt_path() if to is None else to / GT_FILENAME) from None
    say(f"the leaderboard's ground truth is at {path}")
    if path != default_gt_path():
        say(f"use it with --gt {path} or {GT_ENV}={path}")
    elif os.environ.get(GT_ENV):
        say(f"note: {GT_ENV} is set, so the other verbs read {os.environ[GT_ENV]} instead")
