"""How far result files are from the thresholds of the confident findings (corners, id-offset, wrong-gt).

    python speed/finding_margins.py [--kaist ../shared/data/kaist] [--other-gt test-all-01.json ...]

For the published result files, the same files misread (boxes written as corners, ids written with
the other base), synthetic test sets scored with the simulated detectors (and misread the same
ways), and, with --other-gt, the published files scored against ground truths of other image sets
(`kaist-kit convert xml annotations-xml-original.tar.gz --image-set test-all-01 --out
test-all-01.json`), the published files against test-all-20 with every box moved to a random place
of its frame (three seeds), a simulated detector of 5 % recall, and the synthetic sets' results
against the real ground truth: the measures `kaist_kit.scoring.findings.readings` takes, the margins to each
threshold (a factor: how many times the measure would have to change for the verdict to flip) and
what fires. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from kaist_kit.converters import convert
from kaist_kit.data.detections import Detections
from kaist_kit.data.groundtruth import GroundTruth, ground_truth_from_coco
from kaist_kit.data.results import load_detections
from kaist_kit.data.writers import write_coco_results
from kaist_kit.datasets.kaist_truth import load_ground_truth
from kaist_kit.scoring.findings import inspect, readings
from kaist_kit.tools.simulate import DEMO_METHODS, SimulatedMethod, simulate
from kaist_kit.tools.synth import SynthConfig, generate

ROOT = Path(__file__).resolve().parents[1]
FILES = ("MBNet_result.txt", "MLPD_result.txt", "MLPD_result.json", "MBNet-per-image.tar.gz")
# (test frames, seed, width, height) of the synthetic test sets.
SYNTHETIC = ((40, 0, 640, 512), (200, 0, 640, 512), (100, 3, 320, 256), (600, 2, 320, 256))
TEST_IMAGES = 2252


def misread(dets: Detections, gt: GroundTruth) -> list[tuple[str, Detections]]:
    """The result as a writer who got the layout or the id base wrong would have written it."""
    if not dets.format.rereadable:
        return []
    corners = dets.boxes.copy()
    corners[:, 2:] += corners[:, :2]
    shift = 1 - 2 * dets.format.id_base  # written with the other base: 1-based COCO ids, 0-based txt ids
    image = dets.image + shift
    keep = (image >= 0) & (image < gt.n_images)
    return [
        ("as corners", replace(dets, boxes=corners)),
        (
            f"ids {'1' if shift > 0 else '0'}-based",
            replace(dets, image=image[keep], boxes=dets.boxes[keep], scores=dets.scores[keep]),
        ),
    ]


def moved_boxes(gt: GroundTruth, seed: int) -> GroundTruth:
    """The same images and labels with every box at a random place of its frame."""
    rng = np.random.default_rng(seed)
    width, height = gt.image_sizes[gt.ann_image].T
    x = rng.uniform(5, width - 5 - gt.boxes[:, 2])
    y = rng.uniform(5, height - 5 - gt.boxes[:, 3])
    data = {
        "images": [
            {"id": int(i), "im_name": n, "width": int(w), "height": int(h)}
            for i, n, (w, h) in zip(gt.image_ids, gt.image_names, gt.image_sizes)
        ],
        "annotations": [
            {
                "id": int(a),
                "image_id": int(gt.image_ids[k]),
                "bbox": [float(bx), float(by), *map(float, b[2:])],
                "height": float(h),
                "occlusion": int(o),
                "ignore": int(g),
            }
            for a, k, bx, by, b, h, o, g in zip(
                gt.ann_ids, gt.ann_image, x, y, gt.boxes, gt.heights, gt.occlusion, gt.ignore
            )
        ],
    }
    return ground_truth_from_coco(data)


def row(case: str, dets: Detections, gt: GroundTruth) -> str:
    measured = readings(dets, gt)
    margins = measured.margins()
    fired = ", ".join(f.code for f in inspect(dets, gt) if f.level == "error") or "none"
    best = measured.best
    other = f"{measured.others[best]} ({best})" if best is not None else "-"
    return (
        f"| {case} | {measured.considered} | {measured.close} | {other} | {margins['reading']:.1f} | "
        f"{measured.hits} | {measured.chance:.1f} | {margins['chance']:.1f} | {margins['almost_none']:.1f} | "
        f"{fired} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kaist", type=Path, default=ROOT.parent / "shared" / "data" / "kaist")
    parser.add_argument("--other-gt", type=Path, nargs="*", default=[])
    args = parser.parse_args()

    lines = [
        "| case | considered | close hits as read | best other reading | reading margin | hits as read "
        "| hits by chance | chance margin | almost-none margin | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    gt = load_ground_truth(args.kaist / "test-all-20.leaderboard.json")
    for name in FILES:
        dets = load_detections(args.kaist / "results" / name, gt)
        lines.append(row(name, dets, gt))
        lines += [row(f"{name} {how}", wrong, gt) for how, wrong in misread(dets, gt)]
    for seed in (1, 2, 3):
        moved = moved_boxes(gt, seed)
        for name in ("MBNet_result.txt", "MLPD_result.json"):
            lines.append(
                row(
                    f"{name} against test-all-20 with its boxes moved (seed {seed})",
                    load_detections(args.kaist / "results" / name, moved),
                    moved,
                )
            )
    poor = SimulatedMethod("poor", {"day": 0.05, "night": 0.05}, {"day": 20, "night": 20})
    lines.append(row("simulated, 5 % recall and 20 false positives per image", simulate(gt, poor, 0), gt))
    for other in args.other_gt:
        other_gt = load_ground_truth(other)
        for name in FILES:
            lines.append(
                row(f"{name} against {other.name}", load_detections(args.kaist / "results" / name, other_gt), other_gt)
            )
    with tempfile.TemporaryDirectory() as tmp:
        for frames, seed, width, height in SYNTHETIC:
            root = Path(tmp) / f"synth-{frames}-{seed}"
            generate(root, SynthConfig(seed=seed, train_frames=0, test_frames=frames, width=width, height=height))
            convert("improved", root / "annotations-improved", root / "test.json", image_size=(width, height))
            synth_gt = load_ground_truth(root / "test.json")
            for method in DEMO_METHODS:
                dets = simulate(synth_gt, method, seed)
                case = f"synthetic {frames} frames {width}x{height}, {method.name}"
                lines.append(row(case, dets, synth_gt))
                if method is DEMO_METHODS[0]:
                    lines += [row(f"{case} {how}", wrong, synth_gt) for how, wrong in misread(dets, synth_gt)]
                if frames <= TEST_IMAGES and (width, height) == (640, 512):
                    path = root / f"{method.name}_result.json"
                    write_coco_results(path, synth_gt.image_ids[dets.image], dets.boxes, dets.scores)
                    lines.append(row(f"{case}, against test-all-20", load_detections(path, gt), gt))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
