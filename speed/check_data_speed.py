"""`kaist-kit check-data` on a generated KAIST-sized tree; figures to docs/speed.md.

    python speed/check_data_speed.py [--frames 47664] [--tree DIR] [--repeat 3]

Writes images/setXX/VYYY/{visible,lwir}/IZZZZZ.jpg for --frames frames (the default, 47,664 pairs,
is 95,328 pictures: as many as KAIST has pairs) spread over KAIST's training videos, every picture a
small 640 x 512 JPEG of a few kB, and an annotation file listing every frame; then times the check
with the annotation file (the headers and ends of all pictures read, 32 decoded) and of the bare tree,
--repeat times each, page cache warm (the tree was just written). --tree keeps the tree there for
another run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import describe, publish  # noqa: E402

from kaist_kit.tools.datacheck import DatasetFiles, check_data  # noqa: E402
from kaist_kit.trainsets.lists import VIDEO_FRAMES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def small_jpeg() -> bytes:
    """A 640 x 512 JPEG of a few kB: a grey gradient, coarsely quantised."""
    import numpy as np
    from PIL import Image

    ramp = np.tile(np.linspace(0, 255, 640, dtype=np.uint8), (512, 1))
    buffer = io.BytesIO()
    Image.fromarray(ramp).convert("RGB").save(buffer, format="JPEG", quality=20)
    return buffer.getvalue()


def write_tree(root: Path, frames: int) -> list[str]:
    """The frames' pictures under root/images and an annotation file listing them, in KAIST's names."""
    names = [f"{video}/I{n:05d}" for video, count in VIDEO_FRAMES.items() for n in range(count)][:frames]
    picture = small_jpeg()
    for name in names:
        set_name, video, stem = name.split("/")
        for modality in ("visible", "lwir"):
            folder = root / "images" / set_name / video / modality
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{stem}.jpg").write_bytes(picture)
    images = [{"id": k, "im_name": name, "width": 640, "height": 512} for k, name in enumerate(names)]
    (root / "annotations").mkdir(exist_ok=True)
    (root / "annotations" / "all.json").write_text(json.dumps({"images": images, "annotations": []}))
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=47_664)
    parser.add_argument("--tree", type=Path, help="write (or reuse) the tree here instead of a temporary folder")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "speed.md")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kaist-kit-check-data-") as tmp:
        root = args.tree or Path(tmp)
        start = time.perf_counter()
        if not (root / "annotations" / "all.json").is_file():
            write_tree(root, args.frames)
        written = time.perf_counter() - start
        pictures = sum(len(files) for _, _, files in os.walk(root / "images"))
        size = os.path.getsize(next((root / "images").rglob("*.jpg")))
        annotated = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            check = check_data(root, [DatasetFiles("train", root / "annotations" / "all.json", root / "images")])
            annotated.append(time.perf_counter() - start)
            assert check.ok and check.pictures == pictures, check.problems
        # The tree without annotation files: every pair under images/.
        (root / "annotations" / "all.json").rename(root / "annotations" / "all.json.kept")
        walks = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            walked = check_data(root)
            walks.append(time.perf_counter() - start)
            assert walked.ok and walked.pictures == pictures, walked.problems
        (root / "annotations" / "all.json.kept").rename(root / "annotations" / "all.json")

    publish(
        args.doc,
        "## Checking a data root",
        [
            "## Checking a data root",
            "",
            f"Measured by `python speed/check_data_speed.py --frames {args.frames}` on: {describe()}; "
            f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())} at the end (the machine was shared).",
            f"A generated tree of {pictures:,} pictures ({args.frames:,} pairs in KAIST's layout, each picture a "
            f"640 x 512 JPEG of {size / 1000:.1f} kB), written in {written:.0f} s, so the page cache is warm. "
            f"`kaist-kit check-data` reads each picture's size from its header and looks for its end marker "
            f"(a few hundred bytes a picture, 8 threads), and decodes 32 of them. Median of {args.repeat} runs.",
            "",
            "| check | seconds |",
            "|---|---:|",
            f"| an annotation file listing every frame: {pictures:,} pictures | {statistics.median(annotated):.2f} |",
            f"| the bare tree, no annotation file (every pair under images/) | {statistics.median(walks):.2f} |",
            "",
            "Runs: " + ", ".join(f"{a:.2f} / {w:.2f}" for a, w in zip(annotated, walks)) + " (annotated / bare tree). "
            "The goal is seconds for a full KAIST tree; a cold cache adds the disk's time to read a few hundred "
            "bytes of each file.",
            "",
        ],
    )


if __name__ == "__main__":
    main()
