"""`kaist-kit demo`: the kit end to end on a synthetic KAIST, in seconds, with nothing to download."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..converters import convert
from ..data.writers import write_coco_results
from ..datasets.kaist_truth import load_ground_truth
from ..diagnosis import DiagnosisParams, diagnose, write_report
from ..errors import InputError, KitWarning
from ..io.read import input_scope, read_bytes
from ..io.write import recording_outputs, remove_outputs, remove_stale_temporaries, write_json_atomic
from ..metrics.evaluate import Result, evaluate
from ..output.plots import plot_results
from ..output.show import draw_frame, find_pictures
from ..scoring.comparison import Comparison, compare
from ..submission import package
from .simulate import DEMO_METHODS, simulate
from .synth import SynthConfig, generate

MARKER = "demo.json"
MARKER_FORMAT = 1


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


def run_demo(
    out: str | os.PathLike = "kaist-kit-demo", frames: int = 200, seed: int = 0, say: Callable[[str], None] = print
) -> DemoRun:
    """Synthesise a test set, convert it, simulate three detectors, score and draw them.

    ``out`` must be new, empty, or a previous demo's folder holding nothing else: what the previous
    demo wrote (listed in its demo.json) is removed first, and nothing else ever is."""
    out = Path(out)
    _prepare(out)
    made = _Made(out, {"frames": frames, "seed": seed})
    with input_scope(), recording_outputs(made.record):
        try:
            made.write_marker()  # first: a demo stopped halfway still owns what it wrote
            return _run(out, frames, seed, say, made)
        finally:
            made.write_marker()


def _run(out: Path, frames: int, seed: int, say: Callable[[str], None], made: _Made) -> DemoRun:
    dataset = out / "dataset"
    say(f"1/7 synthesising {frames} visible/thermal test frames (half day, half night) in {dataset}")
    generate(dataset, SynthConfig(seed=seed, train_frames=0, test_frames=frames))
    made.write_marker()

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

    frame = next(
        (
            k
            for k in range(gt.n_images)
            if gt.image_periods[k] == "night" and (~gt.ignore[gt.ann_start[k] : gt.ann_start[k + 1]]).sum() >= 2
        ),
        0,
    )
    picture = out / "night-frame.png"
    say(f"5/7 drawing {gt.image_names[frame]} with every method's detections")
    visible, lwir = find_pictures(gt.image_names[frame], [dataset / "images"])
    draw_frame(gt, frame, visible, lwir, picture, list(detections.items()), score_threshold=0.3)

    best = min((r for r in scores if r.split == "all"), key=lambda r: r.lamr).method
    submission = out / "submission.json"
    say(f"6/7 packaging the best method, {best}, as a challenge entry (the file to upload): {submission}")
    package(results[best], submission, gt, best)
    made.write_marker()

    diagnosis = out / "diagnosis"
    say(
        f"7/7 diagnosing {best} (intervals, false positives by type, misses, oracles) in {diagnosis}, "
        "and testing the differences between the methods"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KitWarning)  # step 4 has said it
        found = diagnose(
            gt, detections[best], DiagnosisParams(settings=("reasonable", "all-pedestrians"), examples=1), best
        )
        write_report(found, gt, detections[best], diagnosis, [dataset / "images"])
        comparison = compare(gt, list(detections.items()), settings=["reasonable"])
    return DemoRun(
        out, gt_path, results, scores, figure, picture, {"submission": submission, "diagnosis": diagnosis}, comparison
    )


class _Made:
    """What the demo wrote under its folder, kept in the folder's demo.json (its marker)."""

    def __init__(self, out: Path, settings: dict):
        self.out, self.real, self.settings = out, Path(os.path.realpath(out)), settings
        self.files: dict[str, None] = {}
        self.folders: dict[str, None] = {}

    def record(self, made: list[tuple[str, Path]]) -> None:
        """Note what a write is about to make under the folder, and keep the marker up to date first."""
        new = False
        for kind, path in made:
            try:
                rel = Path(path).relative_to(self.real).as_posix()
            except ValueError:
                continue  # not under the demo's folder
            listed = self.files if kind == "file" else self.folders
            if rel not in (MARKER, ".") and rel not in listed:
                listed[rel] = None
                new = True
        if new:
            self.write_marker()

    def write_marker(self) -> None:
        write_json_atomic(
            self.out / MARKER,
            {
                "kaist_kit_demo": MARKER_FORMAT,
                **self.settings,
                "files": list(self.files),
                "folders": list(self.folders),
            },
            indent=1,
        )


def _prepare(out: Path) -> None:
    """Make ``out`` ready: new or empty as it is, or a previous demo's folder, from which the files
    and folders its marker lists are removed. Anything else in it stops the demo before anything is
    removed: the demo deletes nothing it did not make."""
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir():
        raise InputError("is not a folder; give a folder for the demo's files with --out", out)
    for folder, _, _ in os.walk(out):  # what a killed demo's writes left
        remove_stale_temporaries(folder)
    if not any(out.iterdir()):
        return
    owned = _marker(out)
    if owned is None:
        raise InputError(
            "the folder exists and is not a previous demo's (no demo.json listing what the demo "
            "wrote); choose another with --out",
            out,
        )
    files, folders = owned
    for folder, names, file_names in os.walk(out):
        for name in names + file_names:
            path = Path(folder, name)
            rel = path.relative_to(out).as_posix()
            mine = rel in folders if name in names and not path.is_symlink() else rel in files or rel == MARKER
            if not mine:
                raise InputError(
                    f"the folder holds {rel}, which the previous demo did not write: nothing was "
                    "removed; move it, or choose another folder with --out",
                    out,
                )
    remove_outputs(out, [*files, MARKER], folders)


def _marker(out: Path) -> tuple[set[str], set[str]] | None:
    """The files and the folders a previous demo's marker says it wrote under ``out``; None when there
    is no such marker."""
    path = out / MARKER
    if not path.is_file():
        return None
    try:
        data = json.loads(read_bytes(path, note=False))
    except (InputError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("kaist_kit_demo") != MARKER_FORMAT:
        return None
    lists = [data.get("files"), data.get("folders")]
    if not all(
        isinstance(names, list) and all(isinstance(rel, str) and _inside(rel) for rel in names) for names in lists
    ):
        return None
    return set(lists[0]), set(lists[1])


def _inside(rel: str) -> bool:
    """Whether a path from a marker names a place under the demo's folder."""
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and ".." not in parts and "" not in parts and "\\" not in rel
