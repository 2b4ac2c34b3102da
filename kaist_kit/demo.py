"""`kaist-kit demo`: the kit end to end on a synthetic KAIST, in seconds, with nothing to download."""

from __future__ import annotations

import json
import os
import shutil
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from .comparison import Comparison, compare
from .converters import convert
from .diagnosis import DiagnosisParams, diagnose, write_report
from .errors import InputError, KitWarning
from .evaluate import Result, evaluate
from .groundtruth import load_ground_truth
from .plots import plot_results
from .results import write_coco_results
from .show import draw_frame, find_pictures
from .simulate import DEMO_METHODS, simulate
from .submission import package
from .synth import SynthConfig, generate

MARKER = "demo.json"


@dataclass
class DemoRun:
    out: Path
    gt: Path
    results: dict[str, Path]
    scores: list[Result]
    figure: Path
    frame: Path
    extra: dict[str, Path] = field(default_factory=dict)
    comparison: Comparison | None = None


def run_demo(out: str | os.PathLike = "kaist-kit-demo", frames: int = 200, seed: int = 0,
             say: Callable[[str], None] = print) -> DemoRun:
    """Synthesise a test set, convert it, simulate three detectors, score and draw them."""
    out = Path(out)
    _prepare(out)
    (out / MARKER).write_text(json.dumps({"frames": frames, "seed": seed}) + "\n")
    dataset = out / "dataset"
    say(f"1/7 synthesising {frames} visible/thermal test frames (half day, half night) in {dataset}")
    generate(dataset, SynthConfig(seed=seed, train_frames=0, test_frames=frames))

    gt_path = out / "test-gt.json"
    say(f"2/7 converting the improved-style test annotations to {gt_path}")
    convert("improved", dataset / "annotations-improved", gt_path, image_set="test-all-20")
    gt = load_ground_truth(gt_path)

    say("3/7 simulating three detectors: fusion, visible-only and thermal-only")
    results, detections = {}, {}
    for method in DEMO_METHODS:
        path = out / "results" / f"{method.name}_result.json"
        found = simulate(gt, method, seed)
        write_coco_results(path, gt.image_ids[found.image], found.boxes, found.scores)
        results[method.name] = path
        detections[method.name] = replace(found, source=str(path))

    say("4/7 scoring them (leaderboard protocol, reasonable setting, all / day / night)")
    scores = []
    for name in results:
        scores += evaluate(gt, detections[name], ["reasonable"], method=name)
    figure = out / "mr-fppi.png"
    plot_results(scores, figure)

    frame = next((k for k in range(gt.n_images) if gt.image_periods[k] == "night"
                  and (~gt.ignore[gt.ann_start[k]:gt.ann_start[k + 1]]).sum() >= 2), 0)
    picture = out / "night-frame.png"
    say(f"5/7 drawing {gt.image_names[frame]} with every method's detections")
    visible, lwir = find_pictures(gt.image_names[frame], [dataset / "images"])
    draw_frame(gt, frame, visible, lwir, picture, list(detections.items()), score_threshold=0.3)

    best = min((r for r in scores if r.split == "all"), key=lambda r: r.lamr).method
    submission = out / "submission.json"
    say(f"6/7 packaging the best method, {best}, as a challenge entry (the file to upload): {submission}")
    package(results[best], submission, gt, best)

    diagnosis = out / "diagnosis"
    say(f"7/7 diagnosing {best} (intervals, false positives by type, misses, oracles) in {diagnosis}, "
        "and testing the differences between the methods")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)  # step 4 has said it
        found = diagnose(gt, detections[best], DiagnosisParams(settings=("reasonable", "all-pedestrians"), examples=1),
                         best)
        write_report(found, gt, detections[best], diagnosis, [dataset / "images"])
        comparison = compare(gt, list(detections.items()), settings=["reasonable"])
    return DemoRun(out, gt_path, results, scores, figure, picture,
                   {"submission": submission, "diagnosis": diagnosis}, comparison)


def _prepare(out: Path) -> None:
    """Start from an empty folder; a previous demo's folder (it has the marker) is replaced."""
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).is_file():
            raise InputError("the folder exists and is not a previous demo's; choose another with --out", out)
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
