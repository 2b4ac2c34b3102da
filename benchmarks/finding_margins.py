"""How far result files are from the thresholds of the confident findings (corners, id-offset, wrong-gt).

    python benchmarks/finding_margins.py [--kaist ../shared/data/kaist] [--other-gt test-all-01.json ...]

For the published result files, the same files misread (boxes written as corners, ids written with
the other base), synthetic test sets scored with the simulated detectors (and misread the same
ways), and, with --other-gt, the published files scored against ground truths of other image sets
(`kaist-kit convert xml annotations-xml-original.tar.gz --image-set test-all-01 --out
test-all-01.json`): the measures `kaist_kit.findings.readings` takes, the margins to each threshold
(a factor: how many times the measure would have to change for the verdict to flip) and what fires.
Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import replace
from pathlib import Path

from kaist_kit.converters import convert
from kaist_kit.detections import Detections, load_detections
from kaist_kit.findings import inspect, readings
from kaist_kit.groundtruth import GroundTruth, load_ground_truth
from kaist_kit.simulate import DEMO_METHODS, simulate
from kaist_kit.synth import SynthConfig, generate

ROOT = Path(__file__).resolve().parents[1]
FILES = ("MBNet_result.txt", "MLPD_result.txt", "MLPD_result.json", "MBNet-per-image.tar.gz")
# (test frames, seed, width, height) of the synthetic test sets.
SYNTHETIC = ((40, 0, 640, 512), (200, 0, 640, 512), (100, 3, 320, 256), (600, 2, 320, 256))


def misread(dets: Detections, gt: GroundTruth) -> list[tuple[str, Detections]]:
    """The result as a writer who got the layout or the id base wrong would have written it."""
    if not dets.format.rereadable:
        return []
    corners = dets.boxes.copy()
    corners[:, 2:] += corners[:, :2]
    shift = 1 - 2 * dets.format.id_base  # written with the other base: 1-based COCO ids, 0-based txt ids
    image = dets.image + shift
    keep = (image >= 0) & (image < gt.n_images)
    return [("as corners", replace(dets, boxes=corners)),
            (f"ids {'1' if shift > 0 else '0'}-based", replace(dets, image=image[keep], boxes=dets.boxes[keep],
                                                               scores=dets.scores[keep]))]


def row(case: str, dets: Detections, gt: GroundTruth) -> str:
    measured = readings(dets, gt)
    margins = measured.margins()
    fired = ", ".join(f.code for f in inspect(dets, gt) if f.level == "error") or "none"
    best = measured.best
    other = f"{measured.others[best]} ({best})" if best is not None else "-"
    return (f"| {case} | {measured.considered} | {measured.close} | {other} | {margins['reading']:.1f} | "
            f"{measured.hits} | {measured.chance:.1f} | {margins['chance']:.1f} | {fired} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kaist", type=Path, default=ROOT.parent / "shared" / "data" / "kaist")
    parser.add_argument("--other-gt", type=Path, nargs="*", default=[])
    args = parser.parse_args()

    lines = ["| case | considered | close hits as read | best other reading | reading margin | hits as read "
             "| hits by chance | chance margin | errors |", "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    gt = load_ground_truth(args.kaist / "test-all-20.leaderboard.json")
    for name in FILES:
        dets = load_detections(args.kaist / "results" / name, gt)
        lines.append(row(name, dets, gt))
        lines += [row(f"{name} {how}", wrong, gt) for how, wrong in misread(dets, gt)]
    for other in args.other_gt:
        other_gt = load_ground_truth(other)
        for name in FILES:
            lines.append(row(f"{name} against {other.name}", load_detections(args.kaist / "results" / name,
                                                                              other_gt), other_gt))
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
    print("\n".join(lines))


if __name__ == "__main__":
    main()
