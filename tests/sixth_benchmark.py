"""A sixth benchmark, added from this one module as a user adds one: its spec, its adapter (a small
made-up RGB-T dataset of two classes) and its registration. Nothing under kaist_kit/ names it.

A ``kaist-kit`` process sees it when ``KAIST_KIT_BENCHMARKS=sixth_benchmark`` (and this folder on the
import path); a test registers it in its own process by importing this module.
"""

from __future__ import annotations

import json
from pathlib import Path

from kaist_kit.datasets import Benchmark, Category, Citation, Split, cameras, numbered, register
from kaist_kit.metrics.spec import AP, AP50

YARD = register(
    Benchmark(
        name="yard",
        title="Yard RGB-T",
        frames=numbered(4, prefix="YARD_"),
        modalities=cameras((320, 256), visible="rgb/YARD_{number}.png", thermal="ir/YARD_{number}.png"),
        annotation_format="coco",
        annotation_path="annotations/yard.json",
        categories=(Category(1, "walker"), Category(2, "cart", ("trolley",))),
        splits=(Split("test", "every frame of the made-up yard", 8),),
        metrics=(AP.name, AP50.name),
        protocols=("coco",),
        citation=Citation("A. Nobody", "A made-up yard seen in colour and heat", "no venue", 2026, "nobody2026yard"),
        download="nowhere: the test writes it",
        licence="CC0",
    )
)

FRAMES = [f"YARD_{n:04d}" for n in range(1, 9)]


def boxes() -> list[tuple[str, int, list[float]]]:
    """(frame, category id, [x, y, w, h]) of every box: frame k holds k % 3 + 1 walkers and a cart on
    even frames, boxes well apart and well inside the frame."""
    found = []
    for k, frame in enumerate(FRAMES):
        for j in range(k % 3 + 1):
            found.append((frame, 1, [20.0 + 90 * j, 40.0 + 5 * k, 40.0, 100.0]))
        if k % 2 == 0:
            found.append((frame, 2, [60.0, 170.0, 120.0, 60.0]))
    return found


def write_ground_truth(path: Path) -> Path:
    """The yard's COCO ground truth (ids as integers, the classes as the spec numbers them)."""
    images = [{"id": i, "file_name": f"rgb/{f}.png", "width": 320, "height": 256} for i, f in enumerate(FRAMES, 1)]
    ids = {f: i for i, f in enumerate(FRAMES, 1)}
    annotations = [
        {"id": a, "image_id": ids[f], "category_id": c, "bbox": b, "area": b[2] * b[3], "iscrowd": 0}
        for a, (f, c, b) in enumerate(boxes(), 1)
    ]
    categories = [{"id": c.id, "name": c.name} for c in YARD.categories]
    path.write_text(json.dumps({"images": images, "annotations": annotations, "categories": categories}))
    return path


def write_detections(path: Path, shift: float = 0.0) -> Path:
    """A COCO result file: every box found, moved ``shift`` pixels right, scores falling in box order."""
    ids = {f: i for i, f in enumerate(FRAMES, 1)}
    rows = [
        {"image_id": ids[f], "category_id": c, "bbox": [b[0] + shift, *b[1:]], "score": round(0.99 - 0.01 * k, 2)}
        for k, (f, c, b) in enumerate(boxes())
    ]
    path.write_text(json.dumps(rows))
    return path
