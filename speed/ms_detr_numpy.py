"""How much MS-DETR's miss rate on CVC-14 depends on numpy: the numbers of docs/benchmarks-other.md.

    python speed/ms_detr_numpy.py [--frames 200] [--seed 1]

On a synthetic CVC-14 set (`kaist_kit.datasets.synth`) with generated detections, once with distinct
scores (8 decimals) and once with scores rounded to 2 decimals (ties), prints for MS-DETR's Reasonable
and all cells: MS-DETR's own code run as it is (../shared/reference/ms-detr, in the numpy1-py311
environment of tests/reference_envs.py, when it is made) with numpy 1.26 as it runs here and, on an
AVX-512 CPU, with AVX-512 switched off; the kit's ms-detr protocol for each numpy order
(`kaist_kit.metrics.sort_orders`); and the clean reading (matlab: exact powers, stable sorts). Then the order
np.argsort gives two tied arrays under each numpy.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from reference_envs import ENVS  # noqa: E402
from test_ms_detr_reference import AVX512, ms_detr_inputs, run_ms_detr  # noqa: E402

from kaist_kit.data.results import detections_from_coco  # noqa: E402
from kaist_kit.datasets.cvc14 import read_cvc14  # noqa: E402
from kaist_kit.datasets.synth import BenchmarkSynthConfig, generate_benchmark  # noqa: E402
from kaist_kit.metrics.per_class import ScoringOptions, evaluate_benchmark  # noqa: E402
from kaist_kit.metrics.sort_orders import NUMPY1_AVX512, NUMPY1_INTROSORT, THIS_NUMPY, argsort, numpy1_order  # noqa: E402

CELLS = ("Reasonable-all", "Reasonable-day", "Reasonable-night", "all", "all-day", "all-night")
EXAMPLES = {"np.zeros(65)": np.zeros(65), "-np.array([0.5, 0.9] * 35)": -np.array([0.5, 0.9] * 35)}


def detections(annotations, rng, decimals: int) -> list[dict]:
    """Most pedestrians found (a box near theirs, a high score), a few false positives (lower scores)."""
    records = []
    for k, name in enumerate(annotations.image_names):
        found = [
            (np.array(box) + rng.normal(0, [2, 2, 2, 3]), 0.5 + 0.5 * rng.random())
            for box in annotations.boxes[annotations.ann_image == k]
            if rng.random() < 0.85
        ]
        for _ in range(int(rng.integers(0, 5))):
            w, h = rng.uniform(10, 50), rng.uniform(25, 120)
            found.append((np.array([rng.uniform(0, 640 - w), rng.uniform(0, 471 - h), w, h]), 0.7 * rng.random()))
        for box, score in found:
            box = np.round(box * 16) / 16
            box[2:] = np.maximum(box[2:], 1 / 16)
            records.append(
                {"image_id": name, "category_id": 1, "bbox": box.tolist(), "score": round(float(score), decimals)}
            )
    return records


def kit_cells(annotations, records, protocol: str, tie_order: str = "") -> dict[str, float]:
    rows = evaluate_benchmark(
        annotations,
        detections_from_coco(records, annotations),
        "cvc-14",
        [protocol],
        splits=("all", "day", "night"),
        options=ScoringOptions(settings=("Reasonable", "all"), tie_order=tie_order),
    )
    names = {("Reasonable", s): f"Reasonable-{s}" for s in ("all", "day", "night")}
    return {
        names.get((r.setting, r.split), f"{r.setting}-{r.split}".replace("all-all", "all")): r.value("lamr")
        for r in rows
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    env = ENVS["numpy1-py311"]
    python = env.executable if env.ready() else None
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        config = BenchmarkSynthConfig(seed=args.seed, train_frames=0, test_frames=args.frames)
        generate_benchmark("cvc-14", work / "tree", config)
        for decimals in (8, 2):
            annotations = read_cvc14(work / "tree", "test")
            records = detections(annotations, np.random.default_rng(args.seed), decimals)
            inputs = ms_detr_inputs(annotations, records, work / f"scores-{decimals}")
            columns = {}
            if python is not None:
                columns["MS-DETR, numpy 1.26 here"] = run_ms_detr(python, [inputs])[0]
                if numpy1_order() == NUMPY1_AVX512:
                    off = dict(os.environ, NPY_DISABLE_CPU_FEATURES=AVX512)
                    columns["MS-DETR, numpy 1.26 without AVX-512"] = run_ms_detr(python, [inputs], off)[0]
            for order, title in (
                (NUMPY1_AVX512, "ms-detr, numpy 1.26 AVX-512"),
                (NUMPY1_INTROSORT, "ms-detr, numpy 1.26 introsort"),
                (THIS_NUMPY, f"ms-detr, numpy {np.__version__} here"),
            ):
                columns[title] = kit_cells(annotations, records, "ms-detr", order)
            columns["matlab (clean)"] = kit_cells(annotations, records, "matlab")
            print(f"\n{len(records)} detections, scores with {decimals} decimals, {len(annotations.boxes)} boxes")
            print("| cell | " + " | ".join(columns) + " |")
            print("|---|" + "---:|" * len(columns))
            for cell in CELLS:
                print(f"| {cell} | " + " | ".join(f"{100 * c[cell]:.4f}" for c in columns.values()) + " |")
    print()
    for text, keys in EXAMPLES.items():
        for order in (NUMPY1_AVX512, NUMPY1_INTROSORT, THIS_NUMPY):
            print(f"np.argsort({text})[:12], {order}: {argsort(keys, order)[:12].tolist()}")


if __name__ == "__main__":
    main()
